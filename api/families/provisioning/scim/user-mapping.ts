// A directory user as a SCIM User and back. Columns the directory has (userName, name, displayName, emails…) are the
// directory's; SCIM-only ones (primary flags, ims, entitlements, roles, x509Certificates) live in `users.scim`; the
// enterprise extension lives in the user's `attributes` (employeeNumber, costCenter, organization, division,
// department, manager as the manager's id) where conditions read them as `subject.properties`.
import type { ScimUserRow } from '../../../../db/provisioning/scim/users.ts';
import type { UserFields } from '../../../../db/directory/users/rows.ts';
import { invalidValue } from '../../../../lib/scim/errors.ts';
import { URN } from '../../../../lib/scim/schema.ts';
import type { Resource } from '../../../../lib/scim/values.ts';

const ENTERPRISE_STRINGS = ['employeeNumber', 'costCenter', 'organization', 'division', 'department'] as const;
const SCALARS = ['displayName', 'nickName', 'profileUrl', 'title', 'userType', 'preferredLanguage', 'locale', 'timezone'] as const;
const NAME_PARTS = ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'] as const;
const ADDRESS_PARTS = ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type'] as const;
const VERBATIM = ['ims', 'entitlements', 'roles', 'x509Certificates'] as const;
type PrimaryList = 'emails' | 'phoneNumbers' | 'addresses' | 'photos';
const MAX_TEXT = 2048;

type Item = Record<string, unknown>;
const present = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

export function userToScim(row: ScimUserRow, baseUrl: string): Resource {
  const primary = (row.scim.primary ?? {}) as Record<string, number>;
  const flagged = (list: PrimaryList, items: Item[]) => items.map(({ id: _, ...item }, i) => ({ ...present(item), primary: primary[list] === i }));
  const enterprise = present(Object.fromEntries(ENTERPRISE_STRINGS.map((k) => [k, typeof row.attributes[k] === 'string' ? row.attributes[k] : undefined])));
  const manager = row.attributes.manager;
  if (typeof manager === 'string' && manager) {
    enterprise.manager = present({ value: manager, $ref: `${baseUrl}/Users/${manager}`, displayName: row.managerName });
  }
  const name = row.names ? present(Object.fromEntries(NAME_PARTS.map((k) => [k, row.names?.[k]]))) : {};
  const hasEnterprise = Object.keys(enterprise).length > 0;
  return {
    schemas: hasEnterprise ? [URN.user, URN.enterpriseUser] : [URN.user],
    id: row.id,
    ...(row.rawExternalId !== null && { externalId: row.rawExternalId }),
    userName: row.userName,
    ...(Object.keys(name).length > 0 && { name }),
    ...present(Object.fromEntries(SCALARS.map((k) => [k, row[k]]))),
    active: row.active,
    ...(row.emails.length > 0 && { emails: flagged('emails', row.emails) }),
    ...(row.phoneNumbers.length > 0 && { phoneNumbers: flagged('phoneNumbers', row.phoneNumbers) }),
    ...(row.addresses.length > 0 && { addresses: flagged('addresses', row.addresses) }),
    ...(row.photos.length > 0 && { photos: flagged('photos', row.photos) }),
    ...Object.fromEntries(VERBATIM.filter((k) => Array.isArray(row.scim[k]) && (row.scim[k] as unknown[]).length > 0).map((k) => [k, row.scim[k]])),
    ...(row.groups.length > 0 && { groups: row.groups.map((g) => ({ ...g, $ref: `${baseUrl}/Groups/${g.value}`, type: 'direct' })) }),
    ...(hasEnterprise && { [URN.enterpriseUser]: enterprise }),
    meta: {
      resourceType: 'User',
      created: row.createdAt,
      lastModified: row.updatedAt,
      location: `${baseUrl}/Users/${row.id}`,
      version: `W/"${row.version}"`,
    },
  };
}

function text(name: string, value: unknown, required = false): string | null {
  if (value === undefined || value === null || value === '') {
    if (required) throw invalidValue(`${name} is required.`);
    return null;
  }
  if (typeof value !== 'string') throw invalidValue(`${name} must be a string.`);
  if (value.length > MAX_TEXT) throw invalidValue(`${name} must be at most ${MAX_TEXT} characters.`);
  return value;
}

function list(name: string, value: unknown): Item[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => v === null || typeof v !== 'object' || Array.isArray(v)))
    throw invalidValue(`${name} must be a list of objects.`);
  if (value.length > 50) throw invalidValue(`${name} takes at most 50 values.`);
  return value as Item[];
}

/** Items with a value, each once (case-insensitively), and the position of the first primary one. */
function valued(name: string, value: unknown) {
  const seen = new Set<string>();
  const items = list(name, value).filter((item) => {
    const v = text(`${name}.value`, item.value);
    if (v === null || seen.has(v.toLowerCase())) return false;
    seen.add(v.toLowerCase());
    return true;
  });
  const primary = items.findIndex((item) => item.primary === true);
  return { items: items.map((item) => ({ id: crypto.randomUUID(), value: item.value as string, type: text(`${name}.type`, item.type) })), primary };
}

export interface UserWrite {
  fields: UserFields;
  scim: Record<string, unknown>;
}

/** The directory fields of a canonical SCIM User; `attributes` are the current ones with the enterprise part replaced. */
export function userFromScim(resource: Resource, attributes: Record<string, unknown>): UserWrite {
  if (resource.active !== undefined && typeof resource.active !== 'boolean') throw invalidValue('active must be a boolean.');
  const name = resource.name;
  if (name !== undefined && name !== null && (typeof name !== 'object' || Array.isArray(name))) throw invalidValue('name must be an object.');
  const names = name ? (Object.fromEntries(NAME_PARTS.map((k) => [k, text(`name.${k}`, (name as Item)[k])])) as Record<string, string | null>) : null;
  const emails = valued('emails', resource.emails);
  const phones = valued('phoneNumbers', resource.phoneNumbers);
  const photos = valued('photos', resource.photos);
  const addresses = list('addresses', resource.addresses);
  const enterprise = (resource[URN.enterpriseUser] ?? {}) as Item;
  const nextAttributes: Record<string, unknown> = { ...attributes };
  for (const key of ENTERPRISE_STRINGS) {
    const value = text(key, enterprise[key]);
    if (value === null) delete nextAttributes[key];
    else nextAttributes[key] = value;
  }
  const manager = enterprise.manager as Item | undefined;
  const managerId = manager ? text('manager.value', manager.value) : null;
  if (managerId === null) delete nextAttributes.manager;
  else nextAttributes.manager = managerId;
  const primaryAddress = addresses.findIndex((a) => a.primary === true);
  const scim: Record<string, unknown> = {
    primary: present({
      emails: emails.primary >= 0 ? emails.primary : undefined,
      phoneNumbers: phones.primary >= 0 ? phones.primary : undefined,
      addresses: primaryAddress >= 0 ? primaryAddress : undefined,
      photos: photos.primary >= 0 ? photos.primary : undefined,
    }),
    ...Object.fromEntries(VERBATIM.filter((k) => resource[k] !== undefined).map((k) => [k, list(k, resource[k])])),
  };
  return {
    fields: {
      userName: text('userName', resource.userName, true)!,
      externalId: text('externalId', resource.externalId),
      ...(Object.fromEntries(SCALARS.map((k) => [k, text(k, resource[k])])) as Record<(typeof SCALARS)[number], string | null>),
      ...(resource.active !== undefined && { active: resource.active as boolean }),
      names: names && Object.values(names).some((v) => v !== null) ? ({ id: crypto.randomUUID(), ...names } as UserFields['names']) : null,
      emails: emails.items,
      phoneNumbers: phones.items,
      photos: photos.items,
      addresses: addresses.map((a) => ({
        id: crypto.randomUUID(),
        ...(Object.fromEntries(ADDRESS_PARTS.map((k) => [k, text(`addresses.${k}`, a[k])])) as Record<(typeof ADDRESS_PARTS)[number], string | null>),
      })),
      attributes: nextAttributes,
    },
    scim,
  };
}

// The schemas this service implements: core User, the enterprise User extension and Group (RFC 7643 §4, §8.7).
// Only attributes that are stored and returned are listed, so a client validating responses against them finds
// nothing it was not told of.
import { attribute, complex, multi, str, URN, type SchemaDef } from './schema.ts';

const readOnly = { mutability: 'readOnly' } as const;
const reference = (name: string, description: string, referenceTypes: string[]) => attribute(name, 'reference', description, { referenceTypes, ...readOnly });

export const USER_SCHEMA: SchemaDef = {
  id: URN.user,
  name: 'User',
  description: 'User Account',
  attributes: [
    str('userName', 'Unique identifier for the User, case-insensitively unique in the environment.', { required: true, uniqueness: 'server' }),
    complex('name', "The components of the user's real name.", [
      str('formatted', 'The full name, formatted for display.'),
      str('familyName', 'The family name.'),
      str('givenName', 'The given name.'),
      str('middleName', 'The middle name(s).'),
      str('honorificPrefix', 'The honorific prefix(es).'),
      str('honorificSuffix', 'The honorific suffix(es).'),
    ]),
    str('displayName', 'The name of the User, suitable for display.'),
    str('nickName', 'The casual way to address the user.'),
    attribute('profileUrl', 'reference', "A URI of the user's online profile.", { referenceTypes: ['external'] }),
    str('title', "The user's title, such as 'Vice President'."),
    str('userType', 'The relationship between the organization and the user.'),
    str('preferredLanguage', "The user's preferred written or spoken language."),
    str('locale', "The user's default location for localization."),
    str('timezone', "The user's time zone in IANA Time Zone database format."),
    attribute('active', 'boolean', "The user's administrative status; an inactive user stays listed and readable."),
    str('password', 'Accepted and ignored: never stored nor returned.', { mutability: 'writeOnly', returned: 'never' }),
    multi('emails', 'Email addresses, each unique in the environment case-insensitively.', ['work', 'home', 'other']),
    multi('phoneNumbers', 'Phone numbers.', ['work', 'home', 'mobile', 'fax', 'pager', 'other']),
    multi('ims', 'Instant messaging addresses.', ['aim', 'gtalk', 'icq', 'xmpp', 'msn', 'skype', 'qq', 'yahoo']),
    multi('photos', 'URLs of photos of the user.', ['photo', 'thumbnail']),
    complex(
      'addresses',
      'Physical mailing addresses.',
      [
        str('formatted', 'The full mailing address, formatted for display.'),
        str('streetAddress', 'The full street address.'),
        str('locality', 'The city or locality.'),
        str('region', 'The state or region.'),
        str('postalCode', 'The zip code or postal code.'),
        str('country', 'The country name component.'),
        str('type', 'A label of its function.', { canonicalValues: ['work', 'home', 'other'] }),
        attribute('primary', 'boolean', 'The primary address.'),
      ],
      { multiValued: true },
    ),
    complex(
      'groups',
      'The groups the user belongs to, maintained through the Group resource.',
      [
        str('value', 'The id of the group.', readOnly),
        reference('$ref', 'The URI of the group.', ['Group']),
        str('display', 'The displayName of the group.', readOnly),
        str('type', "'direct': a direct member.", { ...readOnly, canonicalValues: ['direct'] }),
      ],
      { multiValued: true, ...readOnly },
    ),
    multi('entitlements', 'Entitlements of the user.', []),
    multi('roles', 'Roles of the user.', []),
    multi('x509Certificates', 'X.509 certificates of the user.', []),
  ],
};

export const ENTERPRISE_USER_SCHEMA: SchemaDef = {
  id: URN.enterpriseUser,
  name: 'EnterpriseUser',
  description: "Enterprise User; stored in the directory user's `attributes`, read by conditions as `subject.properties`.",
  attributes: [
    str('employeeNumber', 'A numeric or alphanumeric identifier assigned to a person.'),
    str('costCenter', 'The name of a cost center.'),
    str('organization', 'The name of an organization.'),
    str('division', 'The name of a division.'),
    str('department', 'The name of a department.'),
    complex('manager', "The user's manager: set by its id (the manager's value or a bare id string); removed by an empty value.", [
      str('value', 'The id of the manager User.'),
      reference('$ref', 'The URI of the manager User.', ['User']),
      str('displayName', 'The displayName of the manager.', readOnly),
    ]),
  ],
};

export const GROUP_SCHEMA: SchemaDef = {
  id: URN.group,
  name: 'Group',
  description: 'Group',
  attributes: [
    str('displayName', 'A name of the group, case-insensitively unique in the environment.', { required: true, uniqueness: 'server' }),
    complex(
      'members',
      'The users of the group.',
      [
        str('value', 'The id of the member User.', { mutability: 'immutable' }),
        attribute('$ref', 'reference', 'The URI of the member.', { referenceTypes: ['User'], mutability: 'immutable' }),
        str('display', 'The displayName of the member.', readOnly),
        str('type', "'User'.", { mutability: 'immutable', canonicalValues: ['User'] }),
      ],
      { multiValued: true },
    ),
  ],
};

/** The common attributes of every resource (RFC 7643 §3.1), found by name like the schema's own. */
export const COMMON_ATTRIBUTES = [
  str('id', 'The identifier assigned by the service.', { ...readOnly, returned: 'always', caseExact: true, uniqueness: 'server' }),
  str('externalId', 'The identifier of the resource in the provisioning client.', { caseExact: true }),
  complex(
    'meta',
    'Resource metadata.',
    [
      str('resourceType', 'The type of the resource.', readOnly),
      attribute('created', 'dateTime', 'When it was created.', readOnly),
      attribute('lastModified', 'dateTime', 'When it was last changed.', readOnly),
      attribute('location', 'reference', 'Its URI.', readOnly),
      str('version', 'Its version, as in the ETag header.', readOnly),
    ],
    readOnly,
  ),
];

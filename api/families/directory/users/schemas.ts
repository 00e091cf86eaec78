import { z } from 'zod';
import { Group } from '../../../../db/directory/groups/rows.ts';
import { DirectoryUser } from '../../../../db/directory/users/rows.ts';
import { cursorPageOf, cursorParam, displayName, encodeCursor, pageOf, PageQuery } from '../../../common/schemas.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';
import type { UserCursor } from '../../../../db/directory/users/queries.ts';

export { DirectoryUser, EnvironmentScopeParams };

const MAX_ATTRIBUTES_BYTES = 16 * 1024;

/** Custom attributes: a JSON object of at most 16 KiB serialized. */
export const AttributesBody = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    if (Buffer.byteLength(JSON.stringify(value)) > MAX_ATTRIBUTES_BYTES) ctx.addIssue({ code: 'custom', message: 'must be at most 16 KiB as JSON' });
  })
  .describe('A JSON object of custom attributes (at most 16 KiB serialized), read by conditions as `subject.properties`');

const text = (max: number) => displayName(max).nullable().optional();
const freeText = z.string().max(1000).nullable().optional();
const type = text(50);
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000);

const Names = z.strictObject({
  formatted: text(500),
  familyName: text(200),
  givenName: text(200),
  middleName: text(200),
  honorificPrefix: text(50),
  honorificSuffix: text(50),
});
const Email = z.strictObject({ value: z.email({ error: 'must be an email address' }).max(254), type });
const PhoneNumber = z.strictObject({ value: displayName(50), type });
const Address = z.strictObject({
  formatted: freeText,
  streetAddress: freeText,
  locality: text(200),
  region: text(200),
  postalCode: text(50),
  country: text(100),
  type,
});
const Photo = z.strictObject({ value: httpUrl, type });

/** Each email once, case-insensitively: the index of emails would fold them into one. */
const Emails = z
  .array(Email)
  .max(20)
  .superRefine((emails, ctx) => {
    const seen = new Map<string, number>();
    emails.forEach((email, i) => {
      const first = seen.get(email.value.toLowerCase());
      if (first === undefined) seen.set(email.value.toLowerCase(), i);
      else ctx.addIssue({ code: 'custom', path: [i, 'value'], message: `repeats emails.${first}.value` });
    });
  });

const fields = {
  userName: displayName(256).describe('Unique in the environment, case-insensitively'),
  externalId: text(256).describe('Unique in the environment; the id stands in for it when absent'),
  displayName: text(256),
  nickName: text(256),
  profileUrl: httpUrl.nullable().optional(),
  title: text(256),
  userType: text(100),
  preferredLanguage: text(50),
  locale: text(50),
  timezone: text(100),
  active: z.boolean().optional(),
  names: Names.nullable().optional(),
  emails: Emails.optional().describe('Each unique in the environment, case-insensitively'),
  phoneNumbers: z.array(PhoneNumber).max(20).optional(),
  addresses: z.array(Address).max(10).optional(),
  photos: z.array(Photo).max(10).optional(),
  attributes: AttributesBody.optional(),
};

export const CreateUserBody = z.strictObject(fields).meta({ id: 'CreateDirectoryUserRequest' });
export type CreateUserBody = z.infer<typeof CreateUserBody>;
export const UpdateUserBody = z
  .strictObject({ ...fields, userName: fields.userName.optional() })
  .meta({ id: 'UpdateDirectoryUserRequest', description: 'A field given replaces the stored one; lists and attributes are replaced whole.' });
export type UpdateUserBody = z.infer<typeof UpdateUserBody>;

export const UserParams = EnvironmentScopeParams.extend({ userId: z.uuid() });

const CURSOR = /^u:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
export const encodeUserCursor = (c: UserCursor) => encodeCursor(`u:${c.at}:${c.id}`);

export const UsersQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: cursorParam(CURSOR, (m): UserCursor => ({ at: m[1]!, id: m[2]! })).optional(),
  email: z.string().max(254).optional().describe('Users with this email, case-insensitively'),
  emailPrefix: z.string().min(1).max(254).optional().describe('Users with an email starting with this, case-insensitively'),
  userName: z.string().max(256).optional().describe('The user with this userName, case-insensitively'),
  externalId: z.string().max(256).optional(),
  active: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  groupId: z.uuid().optional().describe('Members of this group'),
});
export type UsersQuery = z.infer<typeof UsersQuery>;

export const UserResponse = z.object({ user: DirectoryUser }).meta({ id: 'DirectoryUserResponse' });
export const UsersList = cursorPageOf('users', DirectoryUser).meta({ id: 'DirectoryUsersList' });
export const UserGroupsList = pageOf('groups', Group).meta({ id: 'DirectoryUserGroupsList' });
export { PageQuery };

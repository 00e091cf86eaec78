import { z } from 'zod';
import { Group } from '../../../../db/directory/groups/rows.ts';
import { DirectoryUser } from '../../../../db/directory/users/rows.ts';
import { displayName, pageOf, PageQuery } from '../../../common/schemas.ts';
import { AttributesBody, EnvironmentScopeParams } from '../users/schemas.ts';

export { EnvironmentScopeParams };

const fields = {
  name: displayName(200).describe('Unique in the environment, case-insensitively'),
  description: z.string().max(2000).nullable().optional(),
  externalId: displayName(256).nullable().optional().describe('Unique in the environment'),
  attributes: AttributesBody.optional(),
};

export const CreateGroupBody = z.strictObject(fields).meta({ id: 'CreateDirectoryGroupRequest' });
export type CreateGroupBody = z.infer<typeof CreateGroupBody>;
export const UpdateGroupBody = z
  .strictObject({ ...fields, name: fields.name.optional() })
  .meta({ id: 'UpdateDirectoryGroupRequest', description: 'A field given replaces the stored one; attributes are replaced whole.' });
export type UpdateGroupBody = z.infer<typeof UpdateGroupBody>;

export const GroupParams = EnvironmentScopeParams.extend({ groupId: z.uuid() });
export const MemberParams = GroupParams.extend({ userId: z.uuid() });
/** A membership carries nothing yet: the body may be left out, or be an empty object. */
export const AddMemberBody = z.preprocess((body) => body ?? {}, z.strictObject({})).meta({ id: 'AddDirectoryGroupMemberRequest' });

export const GroupsQuery = PageQuery.extend({
  name: z.string().max(200).optional().describe('The group with this name, case-insensitively'),
  externalId: z.string().max(256).optional(),
});
export type GroupsQuery = z.infer<typeof GroupsQuery>;

export const GroupResponse = z.object({ group: Group }).meta({ id: 'DirectoryGroupResponse' });
export const GroupsList = pageOf('groups', Group).meta({ id: 'DirectoryGroupsList' });
export const MembersList = pageOf('users', DirectoryUser).meta({ id: 'DirectoryGroupMembersList' });
export { PageQuery };

// Request and response shapes of the RBAC management API. Keys are what AuthZEN requests name: a resource type
// (`resource.type`), an action (`action.name`), a permission `<type>:<action>`, a role key.
import { z } from 'zod';
import { Action, Assignment, Permission, Resource, ResourceType, Role } from '../../../../db/access/rbac/rows.ts';
import { MAX_CONDITION_LENGTH } from '../../../../lib/authz/conditions.ts';
import { cursorPageOf, displayName, encodeCursor, pageOf, PageQuery } from '../../../common/schemas.ts';

export { Action, Assignment, Permission, Resource, ResourceType, Role };

const KEY = /^[A-Za-z0-9_.-]{1,100}$/;
export const TypeKey = z.string().regex(KEY, 'must be 1–100 characters of A–Z, a–z, 0–9, _ . - (no colon)');
export const ActionName = z.string().regex(KEY, 'must be 1–100 characters of A–Z, a–z, 0–9, _ . -');
export const RoleKey = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be 1–100 characters of A–Z, a–z, 0–9, _ . : -');
export const ResourceId = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .regex(/^\P{Cc}*$/u, 'must not contain control characters');
export const PermissionKey = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,100}:[A-Za-z0-9_.-]{1,100}$/, 'must be <type>:<action>')
  .describe('`<type>:<action>`, e.g. `todo:update`');
export const Condition = z
  .string()
  .max(MAX_CONDITION_LENGTH, `must be at most ${MAX_CONDITION_LENGTH} characters`)
  .describe('A CEL expression over `subject`, `resource`, `action` and `context` (each with `properties`) that must evaluate to a bool');

const name = displayName(200).nullable().optional();
const description = z.string().max(2000).nullable().optional();
const MAX_ATTRIBUTES = 16 * 1024;
export const Attributes = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_ATTRIBUTES) ctx.addIssue({ code: 'custom', message: 'must be at most 16 KiB as JSON' });
});

export const EnvironmentParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
export const TypeParams = EnvironmentParams.extend({ type: TypeKey });
export const ActionParams = TypeParams.extend({ action: ActionName });
export const ResourceParams = TypeParams.extend({ resourceId: ResourceId });
export const RoleParams = EnvironmentParams.extend({ role: RoleKey });
export const AssignmentParams = EnvironmentParams.extend({ assignmentId: z.uuid() });

const ActionInput = z.strictObject({ name: ActionName, description });
const Actions = z.array(ActionInput).max(500);

export const CreateResourceTypeBody = z
  .strictObject({
    key: TypeKey,
    name,
    description,
    storedInstancesOnly: z
      .boolean()
      .default(true)
      .describe('true (default): decisions deny an id that is not stored; false: unknown ids are decided on the request properties'),
    actions: Actions.default([]),
  })
  .meta({ id: 'CreateRbacResourceTypeRequest' });
export const UpdateResourceTypeBody = z
  .strictObject({
    name,
    description,
    storedInstancesOnly: z.boolean().optional(),
    actions: Actions.optional().describe('Replaces the whole list: a removed action takes the role permissions on it along'),
  })
  .meta({ id: 'UpdateRbacResourceTypeRequest' });
export const PutActionBody = z.strictObject({ description }).meta({ id: 'PutRbacActionRequest' });

export const ResourceTypeResponse = z.object({ resourceType: ResourceType }).meta({ id: 'RbacResourceTypeResponse' });
export const ResourceTypesList = pageOf('resourceTypes', ResourceType).meta({ id: 'RbacResourceTypesList' });
export const PermissionsList = pageOf('permissions', Permission).meta({ id: 'RbacPermissionsList' });

export const PutResourceBody = z.strictObject({ attributes: Attributes }).meta({ id: 'PutRbacResourceRequest' });
export const BatchResourcesBody = z
  .strictObject({
    resources: z
      .array(z.strictObject({ id: ResourceId, attributes: Attributes }))
      .min(1)
      .max(1000),
  })
  .meta({ id: 'BatchRbacResourcesRequest' });
export const BatchResourcesResponse = z.object({ upserted: z.number().int() }).meta({ id: 'BatchRbacResourcesResponse' });
export const ResourceResponse = z.object({ resource: Resource }).meta({ id: 'RbacResourceResponse' });
export const ResourcesList = cursorPageOf('resources', Resource).meta({ id: 'RbacResourcesList' });

/** Resource ids may hold any character, so the cursor (`r:<last id>`) is checked here rather than by a pattern. */
export const encodeResourceCursor = (last: { id: string }) => encodeCursor(`r:${last.id}`);
const ResourceCursor = z
  .string()
  .max(1200)
  .transform((value, ctx) => {
    const token = /^[A-Za-z0-9_-]+$/.test(value) ? Buffer.from(value, 'base64url').toString('utf8') : '';
    if (!token.startsWith('r:') || encodeCursor(token) !== value) {
      ctx.addIssue({ code: 'custom', message: 'is not a cursor returned by this API' });
      return z.NEVER;
    }
    return token.slice(2);
  })
  .describe('Opaque cursor from a previous page (`nextCursor`)');
export const ResourcesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: ResourceCursor.optional(),
  idPrefix: z.string().max(200).optional().describe('Only resources whose id starts with this'),
});

const RolePermissionInput = z.strictObject({ permission: PermissionKey, condition: Condition.nullable().optional() });
const RolePermissions = z.array(RolePermissionInput).max(1000);
const Inherits = z.array(RoleKey).max(100).describe('Keys of roles whose permissions this role inherits');
export const CreateRoleBody = z
  .strictObject({ key: RoleKey, name, description, permissions: RolePermissions.default([]), inherits: Inherits.default([]) })
  .meta({ id: 'CreateRbacRoleRequest' });
export const UpdateRoleBody = z
  .strictObject({
    name,
    description,
    permissions: RolePermissions.optional().describe('Replaces every permission of the role'),
    inherits: Inherits.optional().describe('Replaces what the role inherits'),
  })
  .meta({ id: 'UpdateRbacRoleRequest' });
export const RoleResponse = z.object({ role: Role }).meta({ id: 'RbacRoleResponse' });
export const RolesList = pageOf('roles', Role).meta({ id: 'RbacRolesList' });

const GrantResources = z
  .array(z.strictObject({ type: TypeKey, id: ResourceId }))
  .min(1)
  .max(1000)
  .describe('Limits the grant to these instances');
export const CreateAssignmentBody = z
  .strictObject({
    role: RoleKey,
    userId: z.uuid().optional().describe('A user of this environment (or groupId)'),
    groupId: z.uuid().optional().describe('A group of this environment (or userId)'),
    resources: GrantResources.optional(),
    condition: Condition.optional(),
  })
  .meta({ id: 'CreateRbacAssignmentRequest' });
export const UpdateAssignmentBody = z
  .strictObject({ resources: GrantResources.nullable().optional().describe('null: every instance'), condition: Condition.nullable().optional() })
  .meta({ id: 'UpdateRbacAssignmentRequest' });
export const AssignmentsQuery = PageQuery.extend({
  role: RoleKey.optional().describe('Only grants of this role'),
  userId: z.uuid().optional().describe('Only grants to this user'),
  groupId: z.uuid().optional().describe('Only grants to this group'),
});
export const AssignmentResponse = z.object({ assignment: Assignment }).meta({ id: 'RbacAssignmentResponse' });
export const AssignmentsList = pageOf('assignments', Assignment).meta({ id: 'RbacAssignmentsList' });

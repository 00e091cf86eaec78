// Shapes of the access model's management API: resource types with actions, stored resource instances, roles
// with permissions and inheritance, and assignments (grants) of roles to users or groups.
import { z } from 'zod';
import { isoTimestamp, uuid } from '../../shared/rows.ts';

export const Action = z.object({ name: z.string(), description: z.string().nullable() }).meta({ id: 'RbacAction' });

export const ResourceType = z
  .object({
    id: uuid,
    key: z.string().describe('What AuthZEN requests name as `resource.type`'),
    name: z.string().nullable(),
    description: z.string().nullable(),
    storedInstancesOnly: z.boolean().describe('true: decisions deny an id that is not stored; false: unknown ids are decided on the request properties'),
    actions: z.array(Action),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'RbacResourceType' });
export type ResourceType = z.infer<typeof ResourceType>;

export const Permission = z
  .object({
    permission: z.string().describe('`<type>:<action>`'),
    resourceType: z.string(),
    action: z.string(),
    description: z.string().nullable().describe("The action's description"),
  })
  .meta({ id: 'RbacPermission' });

export const Resource = z
  .object({
    type: z.string(),
    id: z.string().describe('The id the client chose (AuthZEN `resource.id`)'),
    attributes: z.record(z.string(), z.unknown()),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'RbacResource' });
export type Resource = z.infer<typeof Resource>;

export const RolePermission = z
  .object({
    permission: z.string(),
    resourceType: z.string(),
    action: z.string(),
    condition: z.string().nullable().describe('CEL over subject, resource, action and context; null = unconditional'),
  })
  .meta({ id: 'RbacRolePermission' });

export const Role = z
  .object({
    id: uuid,
    key: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    permissions: z.array(RolePermission),
    inherits: z.array(z.string()).describe('Keys of the roles whose permissions this role inherits (transitively)'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'RbacRole' });
export type Role = z.infer<typeof Role>;

export const ResourceRef = z.object({ type: z.string(), id: z.string() }).meta({ id: 'RbacResourceRef' });
export type ResourceRef = z.infer<typeof ResourceRef>;

export const Assignment = z
  .object({
    id: uuid,
    role: z.string().describe('The key of the granted role'),
    userId: uuid.nullable(),
    groupId: uuid.nullable(),
    resources: z.array(ResourceRef).nullable().describe('The instances the grant is limited to; null = every instance'),
    condition: z.string().nullable().describe('CEL that must hold for the grant to apply; null = always'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'RbacAssignment' });
export type Assignment = z.infer<typeof Assignment>;

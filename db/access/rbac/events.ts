// Events of the access model's management (resource types, resources, roles, assignments), assembled into the
// event catalog (db/event-catalog.ts).
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { Assignment, Resource, ResourceType, Role } from './rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const resourceType = z.looseObject({ resourceType: ResourceType });
const resource = z.looseObject({ resource: Resource });
const role = z.looseObject({ role: Role });
const assignment = z.looseObject({ assignment: Assignment });

export const RBAC_EVENTS = {
  'rbac.resource_type.created': { description: 'A resource type (with its actions) was created.', data: resourceType },
  'rbac.resource_type.updated': { description: 'A resource type or its actions were changed.', data: resourceType },
  'rbac.resource_type.deleted': {
    description: 'A resource type was deleted with its resources and the permissions on it; `resourceType` is its last state.',
    data: resourceType,
  },
  'rbac.resource.created': { description: 'A resource instance was stored.', data: resource },
  'rbac.resource.updated': { description: 'The attributes of a resource instance were replaced.', data: resource },
  'rbac.resource.deleted': { description: 'A resource instance was deleted; `resource` is its last state.', data: resource },
  'rbac.resources.upserted': {
    description: 'Resource instances of one type were stored or replaced in one batch.',
    data: z.looseObject({ type: z.string(), count: z.number().int(), ids: z.array(z.string()) }),
  },
  'rbac.role.created': { description: 'A role was created.', data: role },
  'rbac.role.updated': { description: 'A role, its permissions or its inheritance were changed.', data: role },
  'rbac.role.deleted': { description: 'A role was deleted with its assignments; `role` is its last state.', data: role },
  'rbac.role.assigned': { description: 'A role was assigned to a user or a group (an assignment was created).', data: assignment },
  'rbac.assignment.updated': { description: 'The resources or the condition of an assignment were changed.', data: assignment },
  'rbac.role.unassigned': { description: 'An assignment was deleted; `assignment` is its last state.', data: assignment },
} as const satisfies Record<string, EventTypeEntry>;

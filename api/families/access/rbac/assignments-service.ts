// Assignments (grants) of roles to users or groups of the environment's directory, optionally limited to listed
// resource instances and conditioned by CEL.
import type { DatabasePool } from 'slonik';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createAssignmentQueries, type AssignmentFilter } from '../../../../db/access/rbac/assignments.ts';
import { createResourceTypeQueries } from '../../../../db/access/rbac/resource-types.ts';
import { createRoleQueries } from '../../../../db/access/rbac/roles.ts';
import type { Assignment, ResourceRef } from '../../../../db/access/rbac/rows.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { invalidField } from '../../../errors.ts';
import { checkCondition, checkUnique, found } from './checks.ts';

type Db = Parameters<typeof createAssignmentQueries>[0];
type Verb = 'create' | 'update' | 'delete';
const EVENT_OF = {
  create: 'rbac.role.assigned',
  update: 'rbac.assignment.updated',
  delete: 'rbac.role.unassigned',
} as const satisfies Record<Verb, EventType>;

export interface AssignmentInput {
  role: string;
  userId?: string | undefined;
  groupId?: string | undefined;
  resources?: ResourceRef[] | undefined;
  condition?: string | undefined;
}
export interface AssignmentChanges {
  resources?: ResourceRef[] | null | undefined;
  condition?: string | null | undefined;
}

const change = (verb: Verb, assignment: Assignment, before: Assignment | null): CallerChange => ({
  action: `rbac.assignment.${verb}`,
  resource: { type: 'rbac_assignment', id: assignment.id },
  before,
  after: verb === 'delete' ? null : assignment,
  event: { type: EVENT_OF[verb], data: { assignment } },
});

function checkChanges(input: AssignmentChanges) {
  if (input.resources)
    checkUnique(
      input.resources,
      (r) => `${r.type}:${r.id}`,
      (i) => `body.resources.${i}`,
    );
  checkCondition(input.condition, 'body.condition');
}

export function createAssignmentService(pool: DatabasePool) {
  const env = (caller: EnvironmentCaller) => caller.scope.environmentId;
  const find = (db: Db, caller: EnvironmentCaller, id: string) => found(createAssignmentQueries(db, env(caller)).findAssignment(id), 'assignment', id);

  /** 400 naming the first listed resource whose type the environment does not have. */
  const checkResourceTypes = async (db: Db, caller: EnvironmentCaller, resources: ResourceRef[] | null | undefined) => {
    if (!resources) return;
    const types = await createResourceTypeQueries(db, env(caller)).findTypeIds([...new Set(resources.map((r) => r.type))]);
    const i = resources.findIndex((r) => !types.has(r.type));
    if (i >= 0) throw invalidField(`body.resources.${i}.type`, `${resources[i]!.type} is not a resource type of this environment`);
  };

  return {
    find: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    list: (caller: EnvironmentCaller, query: PageQuery & AssignmentFilter) =>
      listPage('assignments', query, (page) => createAssignmentQueries(pool, env(caller)).findAssignments(query, page)),

    create: (caller: EnvironmentCaller, input: AssignmentInput) => {
      if ((input.userId === undefined) === (input.groupId === undefined)) {
        throw invalidField(input.userId === undefined ? 'body.userId' : 'body.groupId', 'exactly one of userId and groupId must be given');
      }
      checkChanges(input);
      return pool.transaction(async (trx) => {
        const queries = createAssignmentQueries(trx, env(caller));
        const roleId = (await createRoleQueries(trx, env(caller)).findRoleIds([input.role])).get(input.role);
        if (!roleId) throw invalidField('body.role', `${input.role} is not a role of this environment`);
        const [kind, subjectId] = input.userId ? (['user', input.userId] as const) : (['group', input.groupId!] as const);
        if (!(await queries.subjectExists(kind, subjectId))) {
          throw invalidField(`body.${kind}Id`, `${subjectId} is not a ${kind} of this environment`);
        }
        await checkResourceTypes(trx, caller, input.resources);
        const id = await queries.insertAssignment({
          roleId,
          userId: input.userId ?? null,
          groupId: input.groupId ?? null,
          resources: input.resources ?? null,
          condition: input.condition ?? null,
        });
        const assignment = await find(trx, caller, id);
        await record(trx, caller, change('create', assignment, null));
        return assignment;
      });
    },

    update: (caller: EnvironmentCaller, id: string, changes: AssignmentChanges) => {
      checkChanges(changes);
      return pool.transaction(async (trx) => {
        const queries = createAssignmentQueries(trx, env(caller));
        await queries.lockAssignment(id);
        const before = await find(trx, caller, id);
        await checkResourceTypes(trx, caller, changes.resources);
        await queries.updateAssignment(id, changes);
        const assignment = await find(trx, caller, id);
        await record(trx, caller, change('update', assignment, before));
        return assignment;
      });
    },

    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id);
        await createAssignmentQueries(trx, env(caller)).deleteAssignment(id);
        await record(trx, caller, change('delete', before, before));
        return before;
      }),
  };
}

export type AssignmentService = ReturnType<typeof createAssignmentService>;

// An employee is a member of its department's group, so roles assigned to a department hold for its employees.
// A terminated employee gets no membership back (its deprovisioning removed them); a rehire restores it.
import type { CommonQueryMethods } from 'slonik';
import { createGroupQueries } from '../../../../db/directory/groups/queries.ts';
import type { Employee } from '../../../../db/provisioning/hris/rows.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';

const membership = (verb: 'member_add' | 'member_remove', groupId: string, userId: string): CallerChange => ({
  action: `directory.group.${verb}`,
  resource: { type: 'group', id: groupId },
  after: { userId },
  event:
    verb === 'member_add'
      ? { type: 'directory.group.member_added', data: { groupId, userId } }
      : { type: 'directory.group.member_removed', data: { groupId, userId } },
});

export async function syncDepartmentMembership(db: CommonQueryMethods, caller: EnvironmentCaller, before: Employee | null, after: Employee) {
  const groups = createGroupQueries(db, caller.scope.environmentId);
  const previous = before?.departmentId ?? null;
  if (previous && previous !== after.departmentId && (await groups.removeMember(previous, after.userId))) {
    await record(db, caller, membership('member_remove', previous, after.userId));
  }
  if (after.departmentId && after.employmentStatus !== 'TERMINATED' && (await groups.addMember(after.departmentId, after.userId))) {
    await record(db, caller, membership('member_add', after.departmentId, after.userId));
  }
}

// syncDirectory: the one activity of an environment's directory-sync process. Applies the due lifecycle changes
// (an HR prehire's start, a termination date), then deprovisions the users waiting for it, each in a transaction of
// its own with its row locked and re-read: a retry, a replay or a second process finds it done.
import { sql, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import { createDirectoryUserQueries } from '../db/directory/users/queries.ts';
import { createDirectorySyncQueries, type LifecycleChange } from '../db/directory/sync/queries.ts';
import { Employee } from '../db/provisioning/hris/rows.ts';
import { employeeColumns } from '../db/provisioning/hris/employees.ts';
import { recordChange, type Change } from '../db/shared/changes.ts';
import type { Activities } from '../workflows/activities.ts';
import { DEPROVISION_STEPS, DIRECTORY_SYNC_ACTOR } from './deprovision-steps.ts';

export interface DirectorySyncDeps {
  pool: DatabasePool;
}

/** Changes per activity call: past it the process calls again at once (each call stays well within its timeout). */
const BATCH = 100;

/**
 * Makes a due change of `active` happen: an employee's status first (a prehire becomes ACTIVE, a terminated one
 * TERMINATED, so the deprovisioning trigger records the reason), then the user's, each with its event.
 */
async function applyLifecycleChange(trx: DatabaseTransactionConnection, change: LifecycleChange, scope: Change['scope']) {
  const before = await createDirectoryUserQueries(trx, change.environmentId).findUser(change.userId, 'update');
  if (!before) return;
  const activate = change.action === 'activate';
  const employee = await trx.maybeOne(sql.type(Employee)`
    UPDATE hris_employees e SET employment_status = ${activate ? 'ACTIVE' : 'TERMINATED'}, version = version + 1, updated_at = now(),
      termination_date = ${activate ? sql.fragment`termination_date` : sql.fragment`coalesce(termination_date, current_date)`}
    WHERE user_id = ${change.userId} AND employment_status = ANY(${sql.array(activate ? ['PREHIRE'] : ['PREHIRE', 'ACTIVE', 'LEAVE'], 'text')})
    RETURNING ${employeeColumns}`);
  if (employee) {
    await recordChange(trx, {
      actor: DIRECTORY_SYNC_ACTOR,
      action: activate ? 'hris.employee.start' : 'hris.employee.terminate',
      resource: { type: 'employee', id: employee.userId },
      scope,
      after: { employmentStatus: employee.employmentStatus },
      event: activate ? { type: 'hris.employee.started', data: { employee } } : { type: 'hris.employee.terminated', data: { employee } },
    });
  }
  const verb = before.active !== activate ? (activate ? 'activate' : 'deactivate') : employee ? 'update' : null;
  if (!verb) return;
  const attributes = employee ? { ...before.attributes, employmentStatus: employee.employmentStatus } : before.attributes;
  const user = await createDirectoryUserQueries(trx, change.environmentId).updateUser(change.userId, { active: activate, attributes });
  await recordChange(trx, {
    actor: DIRECTORY_SYNC_ACTOR,
    action: `directory.user.${verb}`,
    resource: { type: 'user', id: user.id },
    scope,
    before,
    after: user,
    event:
      verb === 'activate'
        ? { type: 'directory.user.activated', data: { user } }
        : verb === 'deactivate'
          ? { type: 'directory.user.deactivated', data: { user } }
          : { type: 'directory.user.updated', data: { user } },
  });
}

export function createDirectorySyncActivities(deps: DirectorySyncDeps): Pick<Activities, 'syncDirectory'> {
  const { pool } = deps;
  /** Runs `step` in transactions until it finds nothing more or `budget` is spent; returns how many it did. */
  const drain = async (budget: number, step: (trx: DatabaseTransactionConnection) => Promise<boolean>) => {
    let done = 0;
    while (done < budget && (await pool.transaction(step))) done++;
    return done;
  };

  return {
    syncDirectory: async ({ environmentId }) => {
      const found = await createDirectorySyncQueries(pool).scopeOf(environmentId);
      if (!found) return { deprovisioned: 0, applied: 0, more: false, nextDueAt: null }; // the environment is gone
      const scope = { ...found, environmentId };
      const applied = await drain(BATCH, async (trx) => {
        const sync = createDirectorySyncQueries(trx);
        const due = await sync.findDueLifecycleChange(environmentId);
        if (!due) return false;
        // Locks in the order the HRIS service takes them (employee, user, then its lifecycle changes): no deadlock.
        await trx.query(sql.unsafe`SELECT 1 FROM hris_employees WHERE user_id = ${due.userId} FOR UPDATE`);
        await createDirectoryUserQueries(trx, environmentId).findUser(due.userId, 'update');
        const change = await sync.lockDueLifecycleChange(due.id);
        if (change) {
          await applyLifecycleChange(trx, change, scope);
          await sync.markApplied(change.environmentId, change.id);
        }
        return true;
      });
      const deprovisioned = await drain(BATCH - applied, async (trx) => {
        const target = await createDirectorySyncQueries(trx).claimDeprovisioning(environmentId);
        if (!target) return false;
        // Reactivated (or deleted: its own deprovisioning follows) before its turn came: nothing to take away.
        const user = target.reason === 'deleted' ? null : await createDirectoryUserQueries(trx, environmentId).findUser(target.userId, 'update');
        if (target.reason === 'deleted' || (user && !user.active)) {
          const removed: Record<string, string[]> = {};
          for (const step of DEPROVISION_STEPS) removed[step.name] = await step.run(trx, { ...target, scope });
          await recordChange(trx, {
            actor: DIRECTORY_SYNC_ACTOR,
            action: 'directory.user.deprovision',
            resource: { type: 'user', id: target.userId },
            scope,
            after: { reason: target.reason, removed },
            event: { type: 'directory.user.deprovisioned', data: { userId: target.userId, reason: target.reason, removed } },
          });
        }
        await createDirectorySyncQueries(trx).finishDeprovisioning(target.environmentId, target.id);
        return true;
      });
      const more = applied + deprovisioned >= BATCH;
      return { deprovisioned, applied, more, nextDueAt: await createDirectorySyncQueries(pool).nextDueAt(environmentId) };
    },
  };
}

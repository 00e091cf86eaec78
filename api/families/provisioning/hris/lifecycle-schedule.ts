// Keeps an employee's future-dated changes of `active` in step with its HR dates, and tells the environment's
// directory-sync process (started if it is not running) about a new one, in the caller's transaction.
import type { CommonQueryMethods } from 'slonik';
import { createDirectorySyncQueries } from '../../../../db/directory/sync/queries.ts';
import { startOfDay, type Employment } from '../../../../db/provisioning/hris/lifecycle.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import type { EnvironmentCaller } from '../../../access/caller.ts';

export async function scheduleEmployment(db: CommonQueryMethods, caller: EnvironmentCaller, userId: string, employment: Employment) {
  const { environmentId } = caller.scope;
  const sync = createDirectorySyncQueries(db);
  const changes = [
    ['activate', employment.activateOn],
    ['deactivate', employment.deactivateOn],
  ] as const;
  for (const [action, day] of changes) {
    if (day) await sync.schedule(environmentId, userId, action, startOfDay(day));
    else await sync.unschedule(environmentId, userId, action);
  }
  const due = changes.flatMap(([, day]) => (day ? [Date.parse(startOfDay(day))] : []));
  if (due.length === 0) return;
  const outbox = createProcessOutboxQueries(db);
  await outbox.enqueueStart({ kind: 'directory-sync', entityId: environmentId, tenantId: caller.scope.tenant.id, input: { environmentId } });
  await outbox.enqueueSignal({ kind: 'directory-sync', entityId: environmentId, topic: 'directory', payload: { type: 'schedule', dueAt: Math.min(...due) } });
}

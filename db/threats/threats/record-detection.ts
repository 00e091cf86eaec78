// A detection recorded as a threat: opens it or adds to the open one with its key, and records `threat.created` (and
// its alert when it reaches the environment's threshold) or `threat.updated` with the system as the actor, in the
// caller's transaction.
import type { CommonQueryMethods } from 'slonik';
import { recordChange, type RequestOrigin } from '../../shared/changes.ts';
import type { EventOf } from '../../event-catalog.ts';
import { createThreatAlertingQueries } from './alerting.ts';
import { createThreatQueries, type Detection } from './queries.ts';

export async function recordDetection(
  trx: CommonQueryMethods,
  scope: { tenantId: string; environmentId: string },
  detection: Detection,
  origin: RequestOrigin = {},
) {
  const queries = createThreatQueries(trx, scope.environmentId);
  const { id, created } = await queries.upsertDetection(detection);
  const threat = await queries.byId(id);
  const system = (event: EventOf) =>
    recordChange(trx, {
      actor: { type: 'system', id: null },
      origin,
      action: event.type === 'threat.created' ? 'threat.create' : event.type === 'threat.alerted' ? 'threat.alert' : 'threat.update',
      resource: { type: 'threat', id },
      scope,
      event,
    });
  if (created) {
    await system({ type: 'threat.created', data: { threat } });
    const alert = await createThreatAlertingQueries(trx).alertOf(threat, 'created');
    if (alert) await system(alert);
  } else {
    await system({ type: 'threat.updated', data: { threat, change: 'occurrence' } });
  }
  return threat;
}

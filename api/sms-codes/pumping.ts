// The SMS pumping protection's refusal: a text over the environment's hourly rate (in all, or to one number) is not
// sent; the refusal is audited and evented as `sms.rate_limited` and opens or adds to a `sign_in.sms_pumping`
// threat (one per environment for the environment's rate, one per number for a number's) with the sign-in's IP,
// user agent and user.
import type { CommonQueryMethods } from 'slonik';
import { recordChange, type Change, type RequestOrigin } from '../../db/shared/changes.ts';
import { createThreatQueries } from '../../db/threats/threats/queries.ts';
import { createThreatAlertingQueries } from '../../db/threats/threats/alerting.ts';
import type { EventOf } from '../../db/event-catalog.ts';

export interface PumpingRefusal {
  scope: { tenantId: string; environmentId: string };
  origin: RequestOrigin;
  userId: string;
  clientId: string;
  limit: 'environment' | 'number';
  maxPerHour: number;
  /** The number's HMAC, hex: the per-number threat's key (never the number). */
  numberKey: string;
  phoneNumberHint: string;
  country: string | null;
  purpose: 'enrolment' | 'second_factor';
}

export async function refuseOverRate(trx: CommonQueryMethods, r: PumpingRefusal) {
  const { environmentId } = r.scope;
  const now = new Date().toISOString();
  const byEnvironment = r.limit === 'environment';
  const queries = createThreatQueries(trx, environmentId);
  const { id, created } = await queries.upsertDetection({
    category: 'sign_in.sms_pumping',
    severity: byEnvironment ? 'high' : 'medium',
    subject: byEnvironment ? `environment:${environmentId}` : `phone:${r.phoneNumberHint}`,
    dedupeKey: byEnvironment ? 'sign_in.sms_pumping:environment' : `sign_in.sms_pumping:number:${r.numberKey}`,
    summary: byEnvironment
      ? `The sign-in pages were asked for more than ${r.maxPerHour} SMS codes in an hour`
      : `The sign-in pages were asked for more than ${r.maxPerHour} SMS codes in an hour to ${r.phoneNumberHint}${r.country ? ` (${r.country})` : ''}`,
    evidence: {
      limit: r.limit,
      maxPerHour: r.maxPerHour,
      phoneNumberHint: r.phoneNumberHint,
      country: r.country,
      userId: r.userId,
      clientId: r.clientId,
      ip: r.origin.ip ?? null,
      userAgent: r.origin.userAgent ?? null,
    },
    eventIds: [],
    occurrences: 1,
    firstSeenAt: now,
    lastSeenAt: now,
  });
  const threat = await queries.byId(id);
  const system = (event: EventOf, action: string): Change => ({
    actor: { type: 'system', id: null },
    origin: r.origin,
    action,
    resource: { type: 'threat', id },
    scope: r.scope,
    event,
  });
  if (created) {
    await recordChange(trx, system({ type: 'threat.created', data: { threat } }, 'threat.create'));
    const alert = await createThreatAlertingQueries(trx).alertOf(threat, 'created');
    if (alert) await recordChange(trx, system(alert, 'threat.alert'));
  } else {
    await recordChange(trx, system({ type: 'threat.updated', data: { threat, change: 'occurrence' } }, 'threat.update'));
  }
  const { userId, clientId, limit, maxPerHour, phoneNumberHint, country, purpose } = r;
  await recordChange(trx, {
    actor: { type: 'user', id: userId },
    origin: r.origin,
    action: 'sms.rate_limited',
    resource: { type: 'user', id: userId },
    scope: r.scope,
    event: {
      type: 'sms.rate_limited',
      data: { environmentId, userId, clientId, limit, maxPerHour, phoneNumberHint, country, purpose, ip: r.origin.ip ?? null, threatId: id },
    },
  });
}

// How every change of a request or grant is recorded, by the API (a caller) and by processes (the system): the
// audit entry and the event, with what a notification channel needs (policy name, requester, environment).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { EventType } from '../../event-catalog.ts';
import { recordChange, type Actor, type RequestOrigin } from '../../shared/changes.ts';
import type { AccessRequest, Grant } from './rows.ts';

/** Who changes elevate: a caller of the API, a process, or (later) an approval from a chat integration. */
export interface ElevateActor {
  actor: Actor;
  origin?: RequestOrigin;
  organizationId: string | null;
}

export const systemActor = (id: string): ElevateActor => ({ actor: { type: 'system', id }, organizationId: null });

const EVENT_OF = {
  'request.created': 'elevate.request.created',
  'request.approved': 'elevate.request.approved',
  'request.approval_recorded': 'elevate.request.approval_recorded',
  'request.denied': 'elevate.request.denied',
  'request.cancelled': 'elevate.request.cancelled',
  'request.expired': 'elevate.request.expired',
  'request.reminded': 'elevate.request.reminded',
  'request.escalated': 'elevate.request.escalated',
  'grant.created': 'elevate.grant.created',
  'grant.activated': 'elevate.grant.activated',
  'grant.extended': 'elevate.grant.extended',
  'grant.revoked': 'elevate.grant.revoked',
  'grant.expired': 'elevate.grant.expired',
} as const satisfies Record<string, EventType>;

type Verbs<K extends string> = keyof typeof EVENT_OF extends infer E ? (E extends `${K}.${infer V}` ? V : never) : never;
export type RequestVerb = Verbs<'request'>;
export type GrantVerb = Verbs<'grant'>;

const Context = z.object({
  tenantId: z.uuid(),
  policy: z.object({
    id: z.uuid(),
    name: z.string(),
    // What the policy grants, named, for a chat approval message.
    target: z.object({ type: z.enum(['role', 'group']), id: z.uuid(), name: z.string() }),
    notificationChannelIds: z.array(z.uuid()),
    escalationChannelIds: z.array(z.uuid()),
  }),
  requester: z.object({ id: z.uuid(), userName: z.string(), displayName: z.string().nullable() }),
});

const contextOf = (db: CommonQueryMethods, policyId: string, userId: string) =>
  db.one(sql.type(Context)`
    SELECT e.tenant_id AS "tenantId", json_build_object('id', p.id, 'name', p.name,
        'target', CASE WHEN p.role_id IS NOT NULL THEN json_build_object('type', 'role', 'id', p.role_id, 'name', coalesce(r.name, r.key))
          ELSE json_build_object('type', 'group', 'id', p.group_id, 'name', g.name) END,
        'notificationChannelIds', p.notification_channel_ids, 'escalationChannelIds', p.escalation_channel_ids) AS policy,
      json_build_object('id', u.id, 'userName', u.user_name, 'displayName', u.display_name) AS requester
    FROM elevate_policies p JOIN environments e ON e.id = p.environment_id
      LEFT JOIN rbac_roles r ON r.id = p.role_id LEFT JOIN groups g ON g.id = p.group_id, users u
    WHERE p.id = ${policyId} AND u.id = ${userId}`);

async function record(
  db: CommonQueryMethods,
  who: ElevateActor,
  resource: { type: 'elevate_request' | 'elevate_grant'; id: string; environmentId: string; policyId: string; userId: string },
  action: string,
  before: Record<string, unknown> | null,
  after: Record<string, unknown>,
  event: (context: z.infer<typeof Context> & { environmentId: string }) => Parameters<typeof recordChange>[1]['event'],
) {
  const context = { ...(await contextOf(db, resource.policyId, resource.userId)), environmentId: resource.environmentId };
  await recordChange(db, {
    actor: who.actor,
    origin: who.origin ?? {},
    action,
    resource: { type: resource.type, id: resource.id },
    scope: { organizationId: who.organizationId, tenantId: context.tenantId, environmentId: resource.environmentId },
    before,
    after,
    event: event(context),
  });
}

export const recordRequest = (
  db: CommonQueryMethods,
  who: ElevateActor,
  environmentId: string,
  verb: RequestVerb,
  request: AccessRequest,
  before: AccessRequest | null,
) =>
  record(
    db,
    who,
    { type: 'elevate_request', id: request.id, environmentId, policyId: request.policyId, userId: request.requesterId },
    `elevate.request.${verb}`,
    before,
    request,
    ({ environmentId, policy, requester }) => ({ type: EVENT_OF[`request.${verb}`], data: { request, environmentId, policy, requester } }),
  );

export const recordGrant = (db: CommonQueryMethods, who: ElevateActor, environmentId: string, verb: GrantVerb, grant: Grant, before: Grant | null) =>
  record(
    db,
    who,
    { type: 'elevate_grant', id: grant.id, environmentId, policyId: grant.policyId, userId: grant.userId },
    `elevate.grant.${verb}`,
    before,
    grant,
    ({ environmentId, policy, requester }) => ({ type: EVENT_OF[`grant.${verb}`], data: { grant, environmentId, policy, requester } }),
  );

// Webhook endpoints: subscriptions of a tenant (optionally one environment) to event types, with
// signing secrets shown once and rotated with an overlap.
import type { DatabasePool } from 'slonik';
import { displayPrefix, encrypt, generateCredential } from '../../../../lib/crypto.ts';
import { EVENT_CATALOG, type EventType } from '../../../../db/event-catalog.ts';
import { recordChange } from '../../../../db/shared/changes.ts';
import { createDeliveryQueries } from '../../../../db/events/webhooks/deliveries.ts';
import { createWebhookEndpointQueries, type EndpointChanges } from '../../../../db/events/webhooks/queries.ts';
import type { WebhookEndpoint } from '../../../../db/events/webhooks/rows.ts';
import { invalidField, notFound } from '../../../errors.ts';
import type { Caller } from '../../../access/caller.ts';
import { checkEnvironmentInTenant, checkTargetUrl, reachableTenant } from '../../../access/reach.ts';

type Db = Parameters<typeof createWebhookEndpointQueries>[0];
type Verb = 'create' | 'update' | 'delete' | 'rotate_secret' | 'enable';
const EVENT_OF = {
  create: 'webhook.endpoint.created',
  update: 'webhook.endpoint.updated',
  delete: 'webhook.endpoint.deleted',
  rotate_secret: 'webhook.endpoint.secret_rotated',
  enable: 'webhook.endpoint.enabled',
} as const satisfies Record<Verb, EventType>;

export interface WebhookServiceDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  allowPrivateNetworkTargets: boolean;
  secretOverlapMs: number;
}

/** Every pattern must match at least one type the service emits, so a typo does not subscribe to nothing. */
export function checkEventTypes(patterns: string[], path = 'body.eventTypes') {
  const types = Object.keys(EVENT_CATALOG);
  patterns.forEach((p, i) => {
    const ok = p === '*' || (p.endsWith('.*') ? types.some((t) => t.startsWith(p.slice(0, -1))) : types.includes(p));
    if (!ok) throw invalidField(`${path}.${i}`, `${p} matches no event type (see GET /v1/event-types)`, 'webhook.unknown_event_type');
  });
}

export function createWebhookService(deps: WebhookServiceDeps) {
  const { pool } = deps;

  const checkUrl = (url: string) => checkTargetUrl(url, { allowPrivate: deps.allowPrivateNetworkTargets, path: 'body.url', code: 'webhook.url_refused' });
  const reachTenant = (db: Db, caller: Caller, tenantId: string) => reachableTenant(db, caller, tenantId);
  const find = async (db: Db, caller: Caller, tenantId: string, id: string) => {
    await reachTenant(db, caller, tenantId);
    const endpoint = await createWebhookEndpointQueries(db).findEndpoint(tenantId, id);
    if (!endpoint) throw notFound('webhook', id);
    return endpoint;
  };
  const checkEnvironment = (tenantId: string, environmentId: string | null | undefined) => checkEnvironmentInTenant(pool, tenantId, environmentId);
  const newSecret = async (db: Db, endpointId: string) => {
    const secret = generateCredential('whsec');
    await createWebhookEndpointQueries(db).insertSecret(endpointId, encrypt(deps.masterKey, secret), displayPrefix(secret));
    return secret;
  };
  const audit = (caller: Caller, verb: Verb, endpoint: WebhookEndpoint, before: WebhookEndpoint | null, extra: Record<string, unknown> = {}) => ({
    actor: caller.actor,
    origin: caller.origin,
    action: `webhook.endpoint.${verb}`,
    resource: { type: 'webhook_endpoint', id: endpoint.id },
    scope: { tenantId: endpoint.tenantId, environmentId: endpoint.environmentId },
    before,
    after: verb === 'delete' ? null : endpoint,
    event: {
      type: EVENT_OF[verb],
      data: { endpoint, ...extra },
    },
  });

  return {
    find: (caller: Caller, tenantId: string, id: string) => find(pool, caller, tenantId, id),
    reachTenant: (caller: Caller, tenantId: string) => reachTenant(pool, caller, tenantId),

    list: async (caller: Caller, tenantId: string, page: { limit: number; offset: number }) => {
      await reachTenant(pool, caller, tenantId);
      return createWebhookEndpointQueries(pool).findEndpoints(tenantId, page);
    },

    create: async (
      caller: Caller,
      tenantId: string,
      input: { url: string; description?: string | null; eventTypes: string[]; environmentId?: string | null; active?: boolean },
    ) => {
      await reachTenant(pool, caller, tenantId);
      checkEventTypes(input.eventTypes);
      await checkEnvironment(tenantId, input.environmentId);
      await checkUrl(input.url);
      return pool.transaction(async (trx) => {
        const queries = createWebhookEndpointQueries(trx);
        const id = await queries.insertEndpoint({
          tenantId,
          environmentId: input.environmentId ?? null,
          url: input.url,
          description: input.description ?? null,
          eventTypes: input.eventTypes,
          active: input.active ?? true,
        });
        const secret = await newSecret(trx, id);
        const endpoint = (await queries.findEndpointById(id))!;
        await recordChange(trx, audit(caller, 'create', endpoint, null));
        return { endpoint, secret };
      });
    },

    update: async (caller: Caller, tenantId: string, id: string, changes: EndpointChanges) => {
      if (changes.eventTypes) checkEventTypes(changes.eventTypes);
      await checkEnvironment(tenantId, changes.environmentId);
      if (changes.url) await checkUrl(changes.url);
      return pool.transaction(async (trx) => {
        await createWebhookEndpointQueries(trx).lockEndpoint(id);
        const before = await find(trx, caller, tenantId, id);
        const endpoint = await createWebhookEndpointQueries(trx).updateEndpoint(id, changes);
        await recordChange(trx, audit(caller, 'update', endpoint, before));
        if (changes.active && !before.active) {
          // Re-enabling resumes: what the disabling cut short is delivered again.
          const cut = await createDeliveryQueries(trx).findFailedSince(id, '-infinity', 'endpoint disabled');
          for (const d of cut) await createDeliveryQueries(trx).insertRedelivery(d);
          await recordChange(trx, audit(caller, 'enable', endpoint, before, { redelivered: cut.length }));
        }
        return endpoint;
      });
    },

    remove: (caller: Caller, tenantId: string, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, tenantId, id);
        await createWebhookEndpointQueries(trx).deleteEndpoint(id);
        await recordChange(trx, audit(caller, 'delete', before, before));
        return before;
      }),

    rotateSecret: (caller: Caller, tenantId: string, id: string) =>
      pool.transaction(async (trx) => {
        await createWebhookEndpointQueries(trx).lockEndpoint(id);
        const before = await find(trx, caller, tenantId, id);
        await createWebhookEndpointQueries(trx).expireCurrentSecrets(id, deps.secretOverlapMs / 1000);
        const secret = await newSecret(trx, id);
        const endpoint = (await createWebhookEndpointQueries(trx).findEndpointById(id))!;
        await recordChange(trx, audit(caller, 'rotate_secret', endpoint, before));
        return { endpoint, secret };
      }),
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

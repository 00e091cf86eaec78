// Webhook endpoints: subscriptions of a tenant (optionally one environment) to event types, with
// signing secrets shown once and rotated with an overlap.
import type { DatabasePool } from 'slonik';
import { displayPrefix, encrypt, generateCredential } from '../../../../lib/crypto.ts';
import { EVENT_CATALOG, type EventType } from '../../../../db/event-catalog.ts';
import { createDeliveryQueries } from '../../../../db/events/webhooks/deliveries.ts';
import { createWebhookEndpointQueries, type EndpointChanges } from '../../../../db/events/webhooks/queries.ts';
import type { WebhookEndpoint } from '../../../../db/events/webhooks/rows.ts';
import { ApiError, invalidField, orNotFound } from '../../../errors.ts';
import { record, type CallerChange, type TenantCaller } from '../../../access/caller.ts';
import { checkEnvironmentInTenant, checkTargetUrl } from '../../../access/reach.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

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
  /** WEBHOOK_MAX_ENDPOINTS_PER_TENANT. */
  maxEndpointsPerTenant: number;
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
  const find = (db: Db, caller: TenantCaller, id: string) =>
    orNotFound(createWebhookEndpointQueries(db, caller.scope.tenant.id).findEndpoint(id), 'webhook', id);
  const checkEnvironment = (caller: TenantCaller, environmentId: string | null | undefined) =>
    checkEnvironmentInTenant(pool, caller.scope.tenant.id, environmentId);
  const newSecret = async (db: Db, caller: TenantCaller, endpointId: string) => {
    const secret = generateCredential('whsec');
    await createWebhookEndpointQueries(db, caller.scope.tenant.id).insertSecret(endpointId, encrypt(deps.masterKey, secret), displayPrefix(secret));
    return secret;
  };
  const audit = (verb: Verb, endpoint: WebhookEndpoint, before: WebhookEndpoint | null, extra: Record<string, unknown> = {}): CallerChange => ({
    action: `webhook.endpoint.${verb}`,
    resource: { type: 'webhook_endpoint', id: endpoint.id },
    scope: { environmentId: endpoint.environmentId },
    before,
    after: verb === 'delete' ? null : endpoint,
    event: {
      type: EVENT_OF[verb],
      data: { endpoint, ...extra },
    },
  });

  return {
    find: (caller: TenantCaller, id: string) => find(pool, caller, id),

    list: (caller: TenantCaller, query: PageQuery) =>
      listPage('endpoints', query, (page) => createWebhookEndpointQueries(pool, caller.scope.tenant.id).findEndpoints(page)),

    create: async (
      caller: TenantCaller,
      input: { url: string; description?: string | null; eventTypes: string[]; environmentId?: string | null; active?: boolean },
    ) => {
      checkEventTypes(input.eventTypes);
      await checkEnvironment(caller, input.environmentId);
      await checkUrl(input.url);
      return pool.transaction(async (trx) => {
        const queries = createWebhookEndpointQueries(trx, caller.scope.tenant.id);
        await queries.lockTenantEndpoints();
        const existing = await queries.countEndpoints();
        if (existing >= deps.maxEndpointsPerTenant) {
          throw new ApiError(
            409,
            'webhook.limit_reached',
            `This tenant has ${existing} webhook endpoints, the most it may have (WEBHOOK_MAX_ENDPOINTS_PER_TENANT=${deps.maxEndpointsPerTenant}); delete one first, or subscribe an existing endpoint to more event types.`,
          );
        }
        const id = await queries.insertEndpoint({
          environmentId: input.environmentId ?? null,
          url: input.url,
          description: input.description ?? null,
          eventTypes: input.eventTypes,
          active: input.active ?? true,
        });
        const secret = await newSecret(trx, caller, id);
        const endpoint = (await queries.findEndpoint(id))!;
        await record(trx, caller, audit('create', endpoint, null));
        return { endpoint, secret };
      });
    },

    update: async (caller: TenantCaller, id: string, changes: EndpointChanges) => {
      if (changes.eventTypes) checkEventTypes(changes.eventTypes);
      await checkEnvironment(caller, changes.environmentId);
      if (changes.url) await checkUrl(changes.url);
      return pool.transaction(async (trx) => {
        await createWebhookEndpointQueries(trx, caller.scope.tenant.id).lockEndpoint(id);
        const before = await find(trx, caller, id);
        const endpoint = await createWebhookEndpointQueries(trx, caller.scope.tenant.id).updateEndpoint(id, changes);
        await record(trx, caller, audit('update', endpoint, before));
        if (changes.active && !before.active) {
          // Re-enabling resumes: what the disabling cut short is delivered again.
          const cut = await createDeliveryQueries(trx).findFailedSince(id, '-infinity', 'endpoint disabled');
          for (const d of cut) await createDeliveryQueries(trx).insertRedelivery(d);
          await record(trx, caller, audit('enable', endpoint, before, { redelivered: cut.length }));
        }
        return endpoint;
      });
    },

    remove: (caller: TenantCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id);
        await createWebhookEndpointQueries(trx, caller.scope.tenant.id).deleteEndpoint(id);
        await record(trx, caller, audit('delete', before, before));
        return before;
      }),

    rotateSecret: (caller: TenantCaller, id: string) =>
      pool.transaction(async (trx) => {
        await createWebhookEndpointQueries(trx, caller.scope.tenant.id).lockEndpoint(id);
        const before = await find(trx, caller, id);
        await createWebhookEndpointQueries(trx, caller.scope.tenant.id).expireCurrentSecrets(id, deps.secretOverlapMs / 1000);
        const secret = await newSecret(trx, caller, id);
        const endpoint = (await createWebhookEndpointQueries(trx, caller.scope.tenant.id).findEndpoint(id))!;
        await record(trx, caller, audit('rotate_secret', endpoint, before));
        return { endpoint, secret };
      }),
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

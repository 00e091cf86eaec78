// Notification channels: Slack, Teams, PagerDuty, Datadog or a signed webhook, subscribed to event types. Secrets are
// stored encrypted and never returned (masked hints only); a generated signing secret is shown once. Tests send at once.
import { randomUUID } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { buildChannelRequest } from '../../../../lib/notifications/build-request.ts';
import { type ChannelKind, secretHints } from '../../../../lib/notifications/channel-kinds.ts';
import { postOutbound } from '../../../../lib/outbound/http-client.ts';
import type { LookupFn } from '../../../../lib/outbound/ssrf-guard.ts';
import { decrypt, encrypt, generateCredential } from '../../../../lib/crypto.ts';
import type { EventType } from '../../../../db/event-catalog.ts';
import { type ChannelChanges, createNotificationChannelQueries } from '../../../../db/events/notification-channels/queries.ts';
import type { NotificationChannel } from '../../../../db/events/webhooks/rows.ts';
import { orNotFound } from '../../../errors.ts';
import { parseChannelFields } from './schemas.ts';
import { record, type CallerChange, type TenantCaller } from '../../../access/caller.ts';
import { deliveryWithAttempts, pageDeliveries } from '../webhooks/deliveries.ts';
import type { DeliveriesQuery } from '../webhooks/schemas.ts';
import { checkEnvironmentInTenant, checkTargetUrl } from '../../../access/reach.ts';
import { checkEventTypes } from '../webhooks/service.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

type Db = Parameters<typeof createNotificationChannelQueries>[0];
type Fields = Record<string, unknown>;
type Verb = 'create' | 'update' | 'delete' | 'test';
const EVENT_OF = {
  create: 'notification_channel.created',
  update: 'notification_channel.updated',
  delete: 'notification_channel.deleted',
  test: 'notification_channel.tested',
} as const satisfies Record<Verb, EventType>;

export interface NotificationChannelServiceDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  allowPrivateNetworkTargets: boolean;
  timeoutMs: number;
  baseUrls: { pagerduty: string; datadog: string | null };
  lookup?: LookupFn;
}

export function createNotificationChannelService(deps: NotificationChannelServiceDeps) {
  const { pool } = deps;

  /** Validates config and secrets against the kind, refuses private URLs, and seals the secrets. */
  const prepare = async (kind: ChannelKind, input: { config?: Fields; secrets?: Fields }) => {
    const { config, secrets } = parseChannelFields(kind, input);
    const sealed = secrets && { ...secrets };
    const urls = { 'body.config.url': kind === 'webhook' && config?.url, 'body.secrets.webhookUrl': sealed?.webhookUrl };
    for (const [path, url] of Object.entries(urls)) {
      if (typeof url !== 'string') continue;
      await checkTargetUrl(url, { allowPrivate: deps.allowPrivateNetworkTargets, lookup: deps.lookup, path, code: 'notification_channel.url_refused' });
    }
    const signingSecret = sealed && kind === 'webhook' && !sealed.signingSecret ? generateCredential('whsec') : undefined;
    if (sealed && signingSecret) sealed.signingSecret = signingSecret;
    const stored = sealed && { encrypted: encrypt(deps.masterKey, JSON.stringify(sealed)), hints: secretHints(kind, sealed) };
    return { config, secrets: stored, signingSecret };
  };
  const find = (db: Db, caller: TenantCaller, id: string) =>
    orNotFound(createNotificationChannelQueries(db, caller.scope.tenant.id).findChannel(id), 'notification_channel', id);
  const checkEnvironment = (caller: TenantCaller, environmentId: string | null | undefined) =>
    checkEnvironmentInTenant(pool, caller.scope.tenant.id, environmentId);
  const audit = (verb: Verb, channel: NotificationChannel, before: NotificationChannel | null): CallerChange => ({
    action: `notification_channel.${verb}`,
    resource: { type: 'notification_channel', id: channel.id },
    scope: { environmentId: channel.environmentId },
    ...(verb === 'test' ? {} : { before, after: verb === 'delete' ? null : channel }),
    event: {
      type: EVENT_OF[verb],
      data: { channel, ...(verb === 'test' ? { message: 'A test notification sent from the API.' } : {}) },
    },
  });

  return {
    find: (caller: TenantCaller, id: string) => find(pool, caller, id),

    list: (caller: TenantCaller, query: PageQuery) =>
      listPage('channels', query, (page) => createNotificationChannelQueries(pool, caller.scope.tenant.id).findChannels(page)),

    create: async (
      caller: TenantCaller,
      input: { kind: ChannelKind; name: string; eventTypes: string[]; config: Fields; secrets: Fields; environmentId?: string | null; active?: boolean },
    ) => {
      checkEventTypes(input.eventTypes);
      await checkEnvironment(caller, input.environmentId);
      const { config, secrets, signingSecret } = await prepare(input.kind, input);
      return pool.transaction(async (trx) => {
        const queries = createNotificationChannelQueries(trx, caller.scope.tenant.id);
        const id = await queries.insertChannel({
          environmentId: input.environmentId ?? null,
          kind: input.kind,
          name: input.name,
          eventTypes: input.eventTypes,
          config: config!,
          secretsEncrypted: secrets!.encrypted,
          secretHints: secrets!.hints,
          active: input.active ?? true,
        });
        const channel = await queries.findChannelById(id);
        await record(trx, caller, audit('create', channel, null));
        return { channel, ...(signingSecret ? { signingSecret } : {}) };
      });
    },

    update: async (caller: TenantCaller, id: string, input: Omit<ChannelChanges, 'secrets'> & { secrets?: Fields }) => {
      const current = await find(pool, caller, id);
      if (input.eventTypes) checkEventTypes(input.eventTypes);
      await checkEnvironment(caller, input.environmentId);
      const { config, secrets, signingSecret } = await prepare(current.kind, input);
      return pool.transaction(async (trx) => {
        await createNotificationChannelQueries(trx, caller.scope.tenant.id).lockChannel(id);
        const before = await find(trx, caller, id);
        const channel = await createNotificationChannelQueries(trx, caller.scope.tenant.id).updateChannel(id, { ...input, config, secrets });
        await record(trx, caller, audit('update', channel, before));
        return { channel, ...(signingSecret ? { signingSecret } : {}) };
      });
    },

    remove: (caller: TenantCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id);
        await createNotificationChannelQueries(trx, caller.scope.tenant.id).deleteChannel(id);
        await record(trx, caller, audit('delete', before, before));
        return before;
      }),

    /** Records a notification_channel.tested event and sends it to this channel now (not through a delivery). */
    test: async (caller: TenantCaller, id: string) => {
      const channel = await find(pool, caller, id);
      const event = await pool.transaction(async (trx) => {
        const { eventId } = await record(trx, caller, audit('test', channel, null));
        return createNotificationChannelQueries(trx, caller.scope.tenant.id).findChannelEvent(eventId);
      });
      const secrets = JSON.parse(
        decrypt(deps.masterKey, await createNotificationChannelQueries(pool, caller.scope.tenant.id).findSecretsEncrypted(id)),
      ) as Fields;
      const request = buildChannelRequest(channel.kind, channel.config as never, secrets as never, event, {
        deliveryId: randomUUID(),
        baseUrls: deps.baseUrls,
      });
      const result = await postOutbound(request.url, request.body, request.headers, {
        timeoutMs: deps.timeoutMs,
        allowPrivate: deps.allowPrivateNetworkTargets,
        lookup: deps.lookup,
      });
      return {
        success: result.ok,
        statusCode: result.statusCode,
        error: result.error,
        responseExcerpt: result.responseExcerpt,
        durationMs: result.durationMs,
        eventId: event.id,
      };
    },

    deliveries: async (caller: TenantCaller, channelId: string, query: DeliveriesQuery) => {
      await find(pool, caller, channelId);
      return pageDeliveries(pool, caller.scope.tenant.id, { channelId }, query);
    },

    delivery: async (caller: TenantCaller, channelId: string, deliveryId: string) => {
      await find(pool, caller, channelId);
      return deliveryWithAttempts(pool, caller.scope.tenant.id, { channelId }, deliveryId);
    },
  };
}

export type NotificationChannelService = ReturnType<typeof createNotificationChannelService>;

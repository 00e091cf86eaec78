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
import { recordChange } from '../../../../db/shared/changes.ts';
import { type ChannelChanges, createNotificationChannelQueries } from '../../../../db/events/notification-channels/queries.ts';
import type { NotificationChannel } from '../../../../db/events/webhooks/rows.ts';
import { notFound } from '../../../errors.ts';
import { parseChannelFields } from './schemas.ts';
import type { Caller } from '../../../access/caller.ts';
import { deliveryWithAttempts, pageDeliveries } from '../webhooks/deliveries.ts';
import { checkEnvironmentInTenant, checkTargetUrl, reachableTenant } from '../../../access/reach.ts';
import { checkEventTypes } from '../webhooks/service.ts';

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
  const reachTenant = (db: Db, caller: Caller, tenantId: string) => reachableTenant(db, caller, tenantId);
  const find = async (db: Db, caller: Caller, tenantId: string, id: string) => {
    await reachTenant(db, caller, tenantId);
    const channel = await createNotificationChannelQueries(db).findChannel(tenantId, id);
    if (!channel) throw notFound('notification_channel', id);
    return channel;
  };
  const checkEnvironment = (tenantId: string, environmentId: string | null | undefined) => checkEnvironmentInTenant(pool, tenantId, environmentId);
  const audit = (caller: Caller, verb: Verb, channel: NotificationChannel, before: NotificationChannel | null) => ({
    actor: caller.actor,
    origin: caller.origin,
    action: `notification_channel.${verb}`,
    resource: { type: 'notification_channel', id: channel.id },
    scope: { tenantId: channel.tenantId, environmentId: channel.environmentId },
    ...(verb === 'test' ? {} : { before, after: verb === 'delete' ? null : channel }),
    event: {
      type: EVENT_OF[verb],
      data: { channel, ...(verb === 'test' ? { message: 'A test notification sent from the API.' } : {}) },
    },
  });

  return {
    find: (caller: Caller, tenantId: string, id: string) => find(pool, caller, tenantId, id),

    list: async (caller: Caller, tenantId: string, page: { limit: number; offset: number }) => {
      await reachTenant(pool, caller, tenantId);
      return createNotificationChannelQueries(pool).findChannels(tenantId, page);
    },

    create: async (
      caller: Caller,
      tenantId: string,
      input: { kind: ChannelKind; name: string; eventTypes: string[]; config: Fields; secrets: Fields; environmentId?: string | null; active?: boolean },
    ) => {
      await reachTenant(pool, caller, tenantId);
      checkEventTypes(input.eventTypes);
      await checkEnvironment(tenantId, input.environmentId);
      const { config, secrets, signingSecret } = await prepare(input.kind, input);
      return pool.transaction(async (trx) => {
        const queries = createNotificationChannelQueries(trx);
        const id = await queries.insertChannel({
          tenantId,
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
        await recordChange(trx, audit(caller, 'create', channel, null));
        return { channel, ...(signingSecret ? { signingSecret } : {}) };
      });
    },

    update: async (caller: Caller, tenantId: string, id: string, input: Omit<ChannelChanges, 'secrets'> & { secrets?: Fields }) => {
      const current = await find(pool, caller, tenantId, id);
      if (input.eventTypes) checkEventTypes(input.eventTypes);
      await checkEnvironment(tenantId, input.environmentId);
      const { config, secrets, signingSecret } = await prepare(current.kind, input);
      return pool.transaction(async (trx) => {
        await createNotificationChannelQueries(trx).lockChannel(id);
        const before = await find(trx, caller, tenantId, id);
        const channel = await createNotificationChannelQueries(trx).updateChannel(id, { ...input, config, secrets });
        await recordChange(trx, audit(caller, 'update', channel, before));
        return { channel, ...(signingSecret ? { signingSecret } : {}) };
      });
    },

    remove: (caller: Caller, tenantId: string, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, tenantId, id);
        await createNotificationChannelQueries(trx).deleteChannel(id);
        await recordChange(trx, audit(caller, 'delete', before, before));
        return before;
      }),

    /** Records a notification_channel.tested event and sends it to this channel now (not through a delivery). */
    test: async (caller: Caller, tenantId: string, id: string) => {
      const channel = await find(pool, caller, tenantId, id);
      const event = await pool.transaction(async (trx) => {
        const { eventId } = await recordChange(trx, audit(caller, 'test', channel, null));
        return createNotificationChannelQueries(trx).findChannelEvent(eventId);
      });
      const secrets = JSON.parse(decrypt(deps.masterKey, await createNotificationChannelQueries(pool).findSecretsEncrypted(id))) as Fields;
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

    deliveries: async (caller: Caller, tenantId: string, channelId: string, query: { cursor?: string; limit: number; status?: string }) => {
      await find(pool, caller, tenantId, channelId);
      return pageDeliveries(pool, { channelId }, query);
    },

    delivery: async (caller: Caller, tenantId: string, channelId: string, deliveryId: string) => {
      await find(pool, caller, tenantId, channelId);
      return deliveryWithAttempts(pool, { channelId }, deliveryId);
    },
  };
}

export type NotificationChannelService = ReturnType<typeof createNotificationChannelService>;

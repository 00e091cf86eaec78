// attemptDelivery: one attempt of a delivery to a webhook endpoint or notification channel.
// Idempotent: an attempt already recorded is answered from its record and never sent twice.
import type { DatabasePool } from 'slonik';
import { decrypt } from '../db/crypto.ts';
import { recordChange } from '../db/queries/changes.ts';
import { createDeliveryQueries, type DeliveryTarget, type RecordedAttempt } from '../db/queries/deliveries.ts';
import { createWebhookEndpointQueries } from '../db/queries/webhook-endpoints.ts';
import type { Activities, AttemptResult } from '../workflows/activities.ts';
import { buildChannelRequest } from './notifications/build-request.ts';
import type { ChannelKind } from './notifications/channel-kinds.ts';
import { postOutbound } from './outbound/http-client.ts';
import type { LookupFn } from './outbound/ssrf-guard.ts';
import { buildWebhookRequest } from './webhook-request.ts';

export interface DeliveryDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  timeoutMs: number;
  allowPrivate: boolean;
  /** An endpoint failing for longer than this (every attempt failed) is disabled. */
  disableAfterMs: number;
  baseUrls: { pagerduty: string; datadog: string | null };
  lookup?: LookupFn;
}

export function createDeliveryActivities(deps: DeliveryDeps): Pick<Activities, 'attemptDelivery'> {
  const { pool } = deps;

  const send = async (target: DeliveryTarget, attempt: number): Promise<RecordedAttempt> => {
    const startedAt = new Date().toISOString();
    let url: string, body: string, headers: Record<string, string>;
    if (target.endpoint) {
      const secrets = (await createWebhookEndpointQueries(pool).findActiveSecrets(target.endpoint.id)).map((s) => decrypt(deps.masterKey, s.secretEncrypted));
      ({ body, headers } = buildWebhookRequest(target.event, target.id, secrets));
      url = target.endpoint.url;
    } else {
      const channel = target.channel!;
      const secrets = JSON.parse(decrypt(deps.masterKey, channel.secretsEncrypted)) as Record<string, unknown>;
      const event = { ...target.event, tenantId: target.tenantId, actor: target.event.actor, subject: target.event.subject };
      ({ url, body, headers } = buildChannelRequest(channel.kind as ChannelKind, channel.config as never, secrets as never, event, { deliveryId: target.id, baseUrls: deps.baseUrls }));
    }
    const result = await postOutbound(url, body, headers, { timeoutMs: deps.timeoutMs, allowPrivate: deps.allowPrivate, lookup: deps.lookup });
    return {
      attempt, startedAt, durationMs: Math.round(result.durationMs), statusCode: result.statusCode,
      error: result.ok || result.statusCode ? null : result.error, responseExcerpt: result.responseExcerpt, retryAfterMs: result.retryAfterMs,
    };
  };

  /** Disables an endpoint the service gives up on, with an event, and stops its other pending deliveries. */
  const giveUpOn = async (target: DeliveryTarget, reason: 'gone' | 'failing') => {
    const endpointId = target.endpoint!.id;
    await pool.transaction(async (trx) => {
      const endpoints = createWebhookEndpointQueries(trx);
      if (!(await endpoints.disableEndpoint(endpointId, reason))) return;
      await createDeliveryQueries(trx).settleAllPendingOfEndpoint(endpointId, 'endpoint disabled');
      const endpoint = await endpoints.findEndpointById(endpointId);
      await recordChange(trx, {
        actor: { type: 'system', id: 'webhook-delivery' }, action: 'webhook.endpoint.disable', resource: { type: 'webhook_endpoint', id: endpointId },
        scope: { tenantId: target.tenantId, environmentId: endpoint?.environmentId ?? null }, after: { active: false, disabledReason: reason },
        event: { type: 'webhook.endpoint.disabled', data: { endpoint, reason: reason === 'gone' ? 'The endpoint answered 410 Gone.' : 'Every delivery failed for too long.' } },
      });
    });
  };

  const attemptDelivery = async (input: { deliveryId: string; attempt: number; nextDelayMs: number | null }): Promise<AttemptResult> => {
    const queries = createDeliveryQueries(pool);
    const target = await queries.findTarget(input.deliveryId);
    if (!target) return { done: true, status: 'failed' }; // deleted with its endpoint or channel
    if (target.status !== 'pending') return { done: true, status: target.status };
    if (!(target.endpoint?.active ?? target.channel?.active)) {
      await queries.settle(target.id, 'failed', 'endpoint disabled');
      return { done: true, status: 'failed' };
    }

    let outcome = await queries.findAttempt(target.id, input.attempt);
    if (!outcome) {
      outcome = await send(target, input.attempt);
      await queries.recordAttempt(target.id, outcome);
    }
    const succeeded = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    if (succeeded) {
      await pool.transaction(async (trx) => {
        await createDeliveryQueries(trx).settle(target.id, 'succeeded', null);
        if (target.endpoint) await createWebhookEndpointQueries(trx).markHealthy(target.endpoint.id);
      });
      return { done: true, status: 'succeeded' };
    }
    if (target.endpoint && outcome.statusCode === 410) {
      await queries.settle(target.id, 'failed', 'endpoint answered 410 Gone');
      await giveUpOn(target, 'gone');
      return { done: true, status: 'failed' };
    }
    if (target.endpoint) {
      const since = await createWebhookEndpointQueries(pool).markFailing(target.endpoint.id);
      if (Date.now() - Date.parse(since) > deps.disableAfterMs) {
        await queries.settle(target.id, 'failed', 'endpoint disabled');
        await giveUpOn(target, 'failing');
        return { done: true, status: 'failed' };
      }
    }
    if (input.nextDelayMs === null) {
      await queries.settle(target.id, 'failed', 'every attempt failed');
      return { done: true, status: 'failed' };
    }
    const nextDelayMs = Math.max(input.nextDelayMs, outcome.retryAfterMs ?? 0);
    await queries.scheduleNext(target.id, nextDelayMs);
    return { done: false, nextDelayMs };
  };

  return { attemptDelivery };
}

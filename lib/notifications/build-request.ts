import {
  type ChannelConfig,
  type ChannelConfigInput,
  type ChannelKind,
  type ChannelSecrets,
  type ChannelSecretsInput,
  channelConfigSchemas,
  channelSecretSchemas,
} from './channel-kinds.ts';
import { buildDatadogRequest } from './formats/datadog.ts';
import { buildGenericWebhookRequest } from './formats/generic-webhook.ts';
import { buildPagerDutyRequest } from './formats/pagerduty.ts';
import { buildSlackRequest } from './formats/slack.ts';
import type { ChannelEvent, ChannelRequest } from './formats/summary.ts';
import { buildTeamsRequest } from './formats/teams.ts';

export type { ChannelEvent, ChannelRequest } from './formats/summary.ts';

export interface BuildContext {
  deliveryId: string;
  /** Provider API origins; `datadog`, when set, overrides `https://api.<site>`. */
  baseUrls: { pagerduty: string; datadog: string | null };
  /** Signing time and Datadog's age clamp; defaults to the current time. */
  nowSeconds?: number;
}

type Builder<K extends ChannelKind> = (
  config: ChannelConfig<K>,
  secrets: ChannelSecrets<K>,
  event: ChannelEvent,
  ctx: Required<BuildContext>,
) => ChannelRequest;

const builders: { [K in ChannelKind]: Builder<K> } = {
  webhook: (config, secrets, event, ctx) => buildGenericWebhookRequest(config, secrets, event, ctx.deliveryId, ctx.nowSeconds),
  slack: (_config, secrets, event) => buildSlackRequest(secrets, event),
  teams: (_config, secrets, event) => buildTeamsRequest(secrets, event),
  pagerduty: (config, secrets, event, ctx) => buildPagerDutyRequest(config, secrets, event, ctx.baseUrls.pagerduty),
  datadog: (config, secrets, event, ctx) => buildDatadogRequest(config, secrets, event, ctx.baseUrls.datadog, ctx.nowSeconds),
};

/**
 * The exact HTTP request that forwards `event` to a channel. Config and secrets are re-validated
 * because they come back from storage; `body` is the exact string to send (and, for generic
 * webhooks, the string the signature covers).
 */
export function buildChannelRequest<K extends ChannelKind>(
  kind: K,
  config: ChannelConfigInput<K>,
  secrets: ChannelSecretsInput<K>,
  event: ChannelEvent,
  ctx: BuildContext,
): ChannelRequest {
  // `parse` on a schema picked by a generic key widens to the union of outputs; the key pins it.
  const parsedConfig = channelConfigSchemas[kind].parse(config) as ChannelConfig<K>;
  const parsedSecrets = channelSecretSchemas[kind].parse(secrets) as ChannelSecrets<K>;
  const nowSeconds = ctx.nowSeconds ?? Math.floor(Date.now() / 1000);
  return builders[kind](parsedConfig, parsedSecrets, event, { ...ctx, nowSeconds });
}

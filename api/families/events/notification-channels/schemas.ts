import { z } from 'zod';
import { displayName } from '../../../common/schemas.ts';
import { CHANNEL_KINDS, type ChannelKind, channelConfigSchemas, channelSecretSchemas } from '../../../../lib/notifications/channel-kinds.ts';
import { NotificationChannel } from '../../../../db/events/webhooks/rows.ts';
import { ApiError } from '../../../errors.ts';
import { EventTypePatterns } from '../webhooks/schemas.ts';
import { pageOf } from '../../../common/schemas.ts';
import { issueDetails } from '../../../common/issue-details.ts';

export { NotificationChannel };
export { DeliveriesList, DeliveriesQuery, DeliveryDetail } from '../webhooks/schemas.ts';

const name = displayName(200);
// Checked against the kind's own schema by the service, so errors name e.g. body.config.site.
const config = z
  .record(z.string(), z.unknown())
  .describe(
    'Per kind: webhook `{ url }`; slack `{ channelLabel?, approverAttribute? }` (the user attribute holding the Slack member id, default `slackUserId`); teams `{ channelLabel? }`; pagerduty `{ severityMap?, source? }`; datadog `{ site?, tags? }`',
  );
const secrets = z
  .record(z.string(), z.unknown())
  .describe(
    'Per kind, write-only: webhook `{ signingSecret? }` (generated when absent); slack `{ webhookUrl, signingSecret? }` (the Slack app signing secret, for approval buttons); teams `{ webhookUrl }`; pagerduty `{ routingKey }`; datadog `{ apiKey }`',
  );

export const CreateChannelBody = z
  .strictObject({
    kind: z.enum(CHANNEL_KINDS),
    name,
    eventTypes: EventTypePatterns,
    config: config.default({}),
    secrets: secrets.default({}),
    environmentId: z.uuid().nullable().optional().describe('Only events of this environment; all of the tenant when absent'),
    active: z.boolean().optional(),
  })
  .meta({ id: 'CreateNotificationChannelRequest' });

export const UpdateChannelBody = z
  .strictObject({
    name: name.optional(),
    eventTypes: EventTypePatterns.optional(),
    config: config.optional().describe('Replaces the whole config'),
    secrets: secrets.optional().describe('Replaces every secret; a webhook channel without signingSecret gets a new generated one'),
    environmentId: z.uuid().nullable().optional(),
    active: z.boolean().optional(),
  })
  .meta({ id: 'UpdateNotificationChannelRequest' });

export const ChannelParams = z.strictObject({ tenantId: z.uuid(), channelId: z.uuid() });
export const ChannelDeliveryParams = ChannelParams.extend({ deliveryId: z.uuid() });

export const ChannelResponse = z.object({ channel: NotificationChannel }).meta({ id: 'NotificationChannelResponse' });
export const ChannelWithSecretResponse = z
  .object({
    channel: NotificationChannel,
    signingSecret: z.string().optional().describe('The whsec_ signing secret the service generated for a webhook channel, shown only in this response'),
  })
  .meta({ id: 'NotificationChannelWithSecretResponse' });
export const ChannelsList = pageOf('channels', NotificationChannel).meta({ id: 'NotificationChannelsList' });

export const ChannelTestResult = z
  .object({
    success: z.boolean().describe('The provider accepted the notification (2xx)'),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable().describe('Network error, timeout or refusal, when there was no HTTP status'),
    responseExcerpt: z.string().nullable().describe('First 2 KiB of the response body'),
    durationMs: z.number().int(),
    eventId: z.uuid().describe('The notification_channel.tested event that was sent'),
  })
  .meta({ id: 'NotificationChannelTestResult' });

type Fields = Record<string, unknown>;

/** The given config and secrets parsed with the kind's schemas; a 400 naming every wrong field otherwise. */
export function parseChannelFields(kind: ChannelKind, input: { config?: Fields; secrets?: Fields }) {
  const config = input.config && channelConfigSchemas[kind].safeParse(input.config);
  const secrets = input.secrets && channelSecretSchemas[kind].safeParse(input.secrets);
  const details = [...issueDetails('body.config', input.config ?? {}, config?.error), ...issueDetails('body.secrets', input.secrets ?? {}, secrets?.error)];
  if (details.length)
    throw new ApiError(400, 'notification_channel.invalid', `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, { details });
  return { config: config?.data as Fields | undefined, secrets: secrets?.data as Fields | undefined };
}

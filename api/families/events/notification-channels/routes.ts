import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  ChannelDeliveryParams,
  ChannelParams,
  ChannelResponse,
  ChannelsList,
  ChannelTestResult,
  ChannelWithSecretResponse,
  CreateChannelBody,
  DeliveriesList,
  DeliveriesQuery,
  DeliveryDetail,
  UpdateChannelBody,
} from './schemas.ts';
import { TenantParams } from '../../tenants/tenants/schemas.ts';
import type { NotificationChannelService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Notification channels'];
const base = '/v1/tenants/:tenantId/notification-channels';
const read = requires('notification-channels:read');
const write = requires('notification-channels:write');

export function notificationChannelRoutes(app: App, channels: NotificationChannelService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listNotificationChannels',
      summary: 'List notification channels',
      description: 'Lists the notification channels of a tenant, one page at a time; secrets are never shown, only hints of them.',
      security: read,
      params: TenantParams,
      querystring: PageQuery,
      response: { 200: ChannelsList, ...errorResponses(404) },
    },
    handler: (r) => channels.list(callerOf(r, 'tenant'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createNotificationChannel',
      summary: 'Create a notification channel (a generated webhook signing secret is shown once)',
      description:
        'Creates a channel of a kind (webhook, slack, teams, pagerduty, datadog) for event types; a generic webhook channel gets a generated signing secret, shown only in this response. 400 `notification_channel.invalid` for a config or secrets that do not fit the kind.',
      security: write,
      params: TenantParams,
      body: CreateChannelBody,
      response: { 201: ChannelWithSecretResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.status(201).send(await channels.create(callerOf(r, 'tenant'), r.body)),
  });
  app.get(`${base}/:channelId`, {
    schema: {
      tags,
      operationId: 'getNotificationChannel',
      summary: 'Get a notification channel',
      description: 'Returns one channel with its config and hints of its secrets, never the secrets themselves.',
      security: read,
      params: ChannelParams,
      response: { 200: ChannelResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ channel: await channels.find(callerOf(r, 'tenant'), r.params.channelId) }),
  });
  app.patch(`${base}/:channelId`, {
    schema: {
      tags,
      operationId: 'updateNotificationChannel',
      summary: 'Update, disable or enable a notification channel (secrets are replaced as a whole)',
      description:
        'Changes the name, event types, environment, config or secrets (each replaced as a whole when given); active=false disables the channel, active=true enables it again.',
      security: write,
      params: ChannelParams,
      body: UpdateChannelBody,
      response: { 200: ChannelWithSecretResponse, ...errorResponses(404) },
    },
    handler: (r) => channels.update(callerOf(r, 'tenant'), r.params.channelId, r.body),
  });
  app.delete(`${base}/:channelId`, {
    schema: {
      tags,
      operationId: 'deleteNotificationChannel',
      summary: 'Delete a notification channel and its deliveries',
      description: 'Deletes the channel with its deliveries and returns it.',
      security: write,
      params: ChannelParams,
      response: { 200: ChannelResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ channel: await channels.remove(callerOf(r, 'tenant'), r.params.channelId) }),
  });
  app.post(`${base}/:channelId/test`, {
    schema: {
      tags,
      operationId: 'testNotificationChannel',
      summary: 'Send a test notification now and report what the provider answered',
      description:
        'Sends a test notification to the channel at once (not queued) and reports what the provider answered: success, status code, error and an excerpt of the response.',
      security: write,
      params: ChannelParams,
      response: { 200: ChannelTestResult, ...errorResponses(404) },
    },
    handler: (r) => channels.test(callerOf(r, 'tenant'), r.params.channelId),
  });
  app.get(`${base}/:channelId/deliveries`, {
    schema: {
      tags,
      operationId: 'listNotificationChannelDeliveries',
      summary: 'List deliveries to a channel, newest first',
      description: 'Lists the deliveries to this channel, newest first, one page at a time with `cursor`, optionally of one status.',
      security: read,
      params: ChannelParams,
      querystring: DeliveriesQuery,
      response: { 200: DeliveriesList, ...errorResponses(404) },
    },
    handler: (r) => channels.deliveries(callerOf(r, 'tenant'), r.params.channelId, r.query),
  });
  app.get(`${base}/:channelId/deliveries/:deliveryId`, {
    schema: {
      tags,
      operationId: 'getNotificationChannelDelivery',
      summary: 'Get a delivery to a channel with every attempt',
      description: 'Returns one delivery to the channel with every attempt: when, how long, the status code or error, and an excerpt of the response.',
      security: read,
      params: ChannelDeliveryParams,
      response: { 200: DeliveryDetail, ...errorResponses(404) },
    },
    handler: (r) => channels.delivery(callerOf(r, 'tenant'), r.params.channelId, r.params.deliveryId),
  });
}

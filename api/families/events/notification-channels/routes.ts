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
      summary: 'List notification channels',
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
      summary: 'Create a notification channel (a generated webhook signing secret is shown once)',
      security: write,
      params: TenantParams,
      body: CreateChannelBody,
      response: { 201: ChannelWithSecretResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.status(201).send(await channels.create(callerOf(r, 'tenant'), r.body)),
  });
  app.get(`${base}/:channelId`, {
    schema: { tags, summary: 'Get a notification channel', security: read, params: ChannelParams, response: { 200: ChannelResponse, ...errorResponses(404) } },
    handler: async (r) => ({ channel: await channels.find(callerOf(r, 'tenant'), r.params.channelId) }),
  });
  app.patch(`${base}/:channelId`, {
    schema: {
      tags,
      summary: 'Update, disable or enable a notification channel (secrets are replaced as a whole)',
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
      summary: 'Delete a notification channel and its deliveries',
      security: write,
      params: ChannelParams,
      response: { 200: ChannelResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ channel: await channels.remove(callerOf(r, 'tenant'), r.params.channelId) }),
  });
  app.post(`${base}/:channelId/test`, {
    schema: {
      tags,
      summary: 'Send a test notification now and report what the provider answered',
      security: write,
      params: ChannelParams,
      response: { 200: ChannelTestResult, ...errorResponses(404) },
    },
    handler: (r) => channels.test(callerOf(r, 'tenant'), r.params.channelId),
  });
  app.get(`${base}/:channelId/deliveries`, {
    schema: {
      tags,
      summary: 'List deliveries to a channel, newest first',
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
      summary: 'Get a delivery to a channel with every attempt',
      security: read,
      params: ChannelDeliveryParams,
      response: { 200: DeliveryDetail, ...errorResponses(404) },
    },
    handler: (r) => channels.delivery(callerOf(r, 'tenant'), r.params.channelId, r.params.deliveryId),
  });
}

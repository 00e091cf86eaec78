import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import { TenantParams } from '../../tenants/tenants/schemas.ts';
import {
  CreateWebhookBody,
  DeliveriesList,
  DeliveriesQuery,
  DeliveryDetail,
  DeliveryParams,
  DeliveryResponse,
  RecoverBody,
  RecoverResponse,
  UpdateWebhookBody,
  WebhookParams,
  WebhookResponse,
  WebhooksList,
  WebhookWithSecretResponse,
} from './schemas.ts';
import type { DeliveryService } from './deliveries.ts';
import type { WebhookService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Webhooks'];
const base = '/v1/tenants/:tenantId/webhooks';
const read = requires('webhooks:read');
const write = requires('webhooks:write');

export function webhookRoutes(app: App, webhooks: WebhookService, deliveries: DeliveryService) {
  app.get(base, {
    schema: {
      tags,
      summary: 'List webhook endpoints',
      security: read,
      params: TenantParams,
      querystring: PageQuery,
      response: { 200: WebhooksList, ...errorResponses(404) },
    },
    handler: (r) => webhooks.list(callerOf(r, 'tenant'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      summary: 'Create a webhook endpoint (the signing secret is shown once)',
      security: write,
      params: TenantParams,
      body: CreateWebhookBody,
      response: { 201: WebhookWithSecretResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.status(201).send(await webhooks.create(callerOf(r, 'tenant'), r.body)),
  });
  app.get(`${base}/:webhookId`, {
    schema: { tags, summary: 'Get a webhook endpoint', security: read, params: WebhookParams, response: { 200: WebhookResponse, ...errorResponses(404) } },
    handler: async (r) => ({ endpoint: await webhooks.find(callerOf(r, 'tenant'), r.params.webhookId) }),
  });
  app.patch(`${base}/:webhookId`, {
    schema: {
      tags,
      summary: 'Update, disable or re-enable a webhook endpoint',
      security: write,
      params: WebhookParams,
      body: UpdateWebhookBody,
      response: { 200: WebhookResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ endpoint: await webhooks.update(callerOf(r, 'tenant'), r.params.webhookId, r.body) }),
  });
  app.delete(`${base}/:webhookId`, {
    schema: {
      tags,
      summary: 'Delete a webhook endpoint and its deliveries',
      security: write,
      params: WebhookParams,
      response: { 200: WebhookResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ endpoint: await webhooks.remove(callerOf(r, 'tenant'), r.params.webhookId) }),
  });
  app.post(`${base}/:webhookId/rotate-secret`, {
    schema: {
      tags,
      summary: 'Rotate the signing secret (the previous one keeps signing during the overlap)',
      security: write,
      params: WebhookParams,
      response: { 200: WebhookWithSecretResponse, ...errorResponses(404) },
    },
    handler: (r) => webhooks.rotateSecret(callerOf(r, 'tenant'), r.params.webhookId),
  });
  app.post(`${base}/:webhookId/test`, {
    schema: {
      tags,
      summary: 'Send a webhook.test event to this endpoint',
      security: write,
      params: WebhookParams,
      response: { 202: DeliveryResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(202).send({ delivery: await deliveries.test(callerOf(r, 'tenant'), r.params.webhookId) }),
  });
  app.post(`${base}/:webhookId/recover`, {
    schema: {
      tags,
      summary: 'Redeliver every failed delivery since a time',
      security: write,
      params: WebhookParams,
      body: RecoverBody,
      response: { 202: RecoverResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(202).send({ deliveries: await deliveries.recover(callerOf(r, 'tenant'), r.params.webhookId, r.body.since) }),
  });
  app.get(`${base}/:webhookId/deliveries`, {
    schema: {
      tags,
      summary: 'List deliveries, newest first',
      security: read,
      params: WebhookParams,
      querystring: DeliveriesQuery,
      response: { 200: DeliveriesList, ...errorResponses(404) },
    },
    handler: (r) => deliveries.list(callerOf(r, 'tenant'), r.params.webhookId, r.query),
  });
  app.get(`${base}/:webhookId/deliveries/:deliveryId`, {
    schema: {
      tags,
      summary: 'Get a delivery with every attempt',
      security: read,
      params: DeliveryParams,
      response: { 200: DeliveryDetail, ...errorResponses(404) },
    },
    handler: (r) => deliveries.get(callerOf(r, 'tenant'), r.params.webhookId, r.params.deliveryId),
  });
  app.post(`${base}/:webhookId/deliveries/:deliveryId/redeliver`, {
    schema: {
      tags,
      summary: 'Redeliver: a new delivery of the same event, freshly signed',
      security: write,
      params: DeliveryParams,
      response: { 202: DeliveryResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) =>
      reply.status(202).send({ delivery: await deliveries.redeliver(callerOf(r, 'tenant'), r.params.webhookId, r.params.deliveryId) }),
  });
}

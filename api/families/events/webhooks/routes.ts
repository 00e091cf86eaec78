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
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints',
      description: 'Lists the webhook endpoints of a tenant, one page at a time; signing secrets appear as prefixes only.',
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
      operationId: 'createWebhook',
      summary: 'Create a webhook endpoint (the signing secret is shown once)',
      description:
        'Registers an endpoint URL for event types (patterns such as `tenant.*` allowed), optionally of one environment; the signing secret is shown only in this response. 400 `webhook.unknown_event_type` for a pattern that matches no event type; 409 `webhook.limit_reached` when the tenant has as many endpoints as `WEBHOOK_MAX_ENDPOINTS_PER_TENANT` allows (default 50).',
      security: write,
      params: TenantParams,
      body: CreateWebhookBody,
      response: { 201: WebhookWithSecretResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send(await webhooks.create(callerOf(r, 'tenant'), r.body)),
  });
  app.get(`${base}/:webhookId`, {
    schema: {
      tags,
      operationId: 'getWebhook',
      summary: 'Get a webhook endpoint',
      description: 'Returns one webhook endpoint with its state: active, why and when it was disabled, since when it fails.',
      security: read,
      params: WebhookParams,
      response: { 200: WebhookResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ endpoint: await webhooks.find(callerOf(r, 'tenant'), r.params.webhookId) }),
  });
  app.patch(`${base}/:webhookId`, {
    schema: {
      tags,
      operationId: 'updateWebhook',
      summary: 'Update, disable or re-enable a webhook endpoint',
      description:
        'Changes the URL, description, event types or environment; active=false disables the endpoint, active=true re-enables it and redelivers what its disabling cut short.',
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
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint and its deliveries',
      description: 'Deletes the endpoint and its deliveries, and returns the endpoint; nothing more is delivered to it.',
      security: write,
      params: WebhookParams,
      response: { 200: WebhookResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ endpoint: await webhooks.remove(callerOf(r, 'tenant'), r.params.webhookId) }),
  });
  app.post(`${base}/:webhookId/rotate-secret`, {
    schema: {
      tags,
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret (the previous one keeps signing during the overlap)',
      description:
        'Issues a new signing secret, shown only in this response. While the previous one overlaps, deliveries carry a signature per active secret, so receivers switch without missing events.',
      security: write,
      params: WebhookParams,
      response: { 200: WebhookWithSecretResponse, ...errorResponses(404) },
    },
    handler: (r) => webhooks.rotateSecret(callerOf(r, 'tenant'), r.params.webhookId),
  });
  app.post(`${base}/:webhookId/test`, {
    schema: {
      tags,
      operationId: 'testWebhook',
      summary: 'Send a webhook.test event to this endpoint',
      description:
        'Queues a `webhook.test` event for this endpoint alone and answers 202 with its delivery. 409 `webhook.disabled` when the endpoint is disabled.',
      security: write,
      params: WebhookParams,
      response: { 202: DeliveryResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(202).send({ delivery: await deliveries.test(callerOf(r, 'tenant'), r.params.webhookId) }),
  });
  app.post(`${base}/:webhookId/recover`, {
    schema: {
      tags,
      operationId: 'recoverWebhookDeliveries',
      summary: 'Redeliver every failed delivery since a time',
      description:
        'Redelivers, as new deliveries, every failed delivery to this endpoint since `since`, and answers 202 with them. 409 `webhook.disabled` when the endpoint is disabled.',
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
      operationId: 'listWebhookDeliveries',
      summary: 'List deliveries, newest first',
      description: 'Lists the deliveries to this endpoint, newest first, one page at a time with `cursor`, optionally of one status.',
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
      operationId: 'getWebhookDelivery',
      summary: 'Get a delivery with every attempt',
      description: 'Returns one delivery with every attempt: when, how long, the status code or error, and an excerpt of the response.',
      security: read,
      params: DeliveryParams,
      response: { 200: DeliveryDetail, ...errorResponses(404) },
    },
    handler: (r) => deliveries.get(callerOf(r, 'tenant'), r.params.webhookId, r.params.deliveryId),
  });
  app.post(`${base}/:webhookId/deliveries/:deliveryId/redeliver`, {
    schema: {
      tags,
      operationId: 'redeliverWebhookDelivery',
      summary: 'Redeliver: a new delivery of the same event, freshly signed',
      description:
        'Creates a new delivery of the same event to the same endpoint, signed anew, and answers 202 with it; the original delivery is left as it was.',
      security: write,
      params: DeliveryParams,
      response: { 202: DeliveryResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) =>
      reply.status(202).send({ delivery: await deliveries.redeliver(callerOf(r, 'tenant'), r.params.webhookId, r.params.deliveryId) }),
  });
}

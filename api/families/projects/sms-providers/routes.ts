// An environment's SMS providers: list by rank, save (create or update) per kind, remove, and send a test SMS.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  EnvironmentScopeParams,
  SaveSmsProviderBody,
  SaveSmsProviderResponse,
  SmsProviderParams,
  SmsProviderSuccessResponse,
  SmsProvidersList,
  TestSmsProviderBody,
  TestSmsProviderResponse,
} from './schemas.ts';
import type { SmsProviderService } from '../../../sms-providers/service.ts';
import type { App } from '../../../types.ts';

const tags = ['SMS providers'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/sms-providers';
const read = requires('sms-providers:read');
const write = requires('sms-providers:write');

export function smsProviderRoutes(app: App, service: SmsProviderService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listEnvironmentSmsProviders',
      summary: 'List the SMS providers of an environment, by failover rank',
      description:
        'Lists the SMS providers of an environment, lowest rank first (the order sending tries the active ones); secrets are never returned, only masked hints.',
      security: read,
      params: EnvironmentScopeParams,
      response: { 200: SmsProvidersList, ...errorResponses(404) },
    },
    handler: (r) => service.list(callerOf(r, 'environment')),
  });
  app.put(`${base}/:provider`, {
    schema: {
      tags,
      operationId: 'saveEnvironmentSmsProvider',
      summary: 'Create or update the SMS provider of a kind',
      description:
        'Creates the provider of this kind (201) or updates it (200). 400 naming the field when the config or secrets do not fit the kind ' +
        '(a first save needs every secret), a phone number is not E.164, or `rank` is not an integer ≥ 0.',
      security: write,
      params: SmsProviderParams,
      body: SaveSmsProviderBody,
      response: { 200: SaveSmsProviderResponse, 201: SaveSmsProviderResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => {
      const { created, provider } = await service.save(callerOf(r, 'environment'), r.params.provider, r.body);
      return reply.status(created ? 201 : 200).send({ provider });
    },
  });
  app.delete(`${base}/:provider`, {
    schema: {
      tags,
      operationId: 'deleteEnvironmentSmsProvider',
      summary: 'Remove the SMS provider of a kind',
      description: 'Removes the provider and its sealed credentials from the environment; 404 when the environment has none of this kind.',
      security: write,
      params: SmsProviderParams,
      response: { 200: SmsProviderSuccessResponse, ...errorResponses(404) },
    },
    handler: (r) => service.remove(callerOf(r, 'environment'), r.params.provider),
  });
  app.post(`${base}/:provider/test`, {
    schema: {
      tags,
      operationId: 'testEnvironmentSmsProvider',
      summary: 'Send a test SMS through a provider',
      description:
        "Sends a real test SMS to `recipient` through this provider (active or not) and returns the vendor's message id. 400 when the recipient " +
        "is not E.164 or outside the provider's allowedCountries; 502 with the vendor's error text when the vendor refuses or cannot be reached.",
      security: write,
      params: SmsProviderParams,
      body: TestSmsProviderBody,
      response: { 200: TestSmsProviderResponse, ...errorResponses(404, 502) },
    },
    handler: (r) => service.test(callerOf(r, 'environment'), r.params.provider, r.body.recipient),
  });
}

// An environment's email providers: list, save (create or update), activate, delete and a test send.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  EmailProviderParams,
  EmailProviderResponse,
  EmailProvidersList,
  EmailProviderSuccessResponse,
  EnvironmentScopeParams,
  SaveEmailProviderBody,
  TestEmailProviderBody,
  TestEmailProviderResponse,
} from './schemas.ts';
import type { EmailProviderService } from '../../../email-providers/service.ts';
import type { App } from '../../../types.ts';

const tags = ['Email providers'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/email-providers';
const read = requires('email-providers:read');
const write = requires('email-providers:write');

export function emailProviderRoutes(app: App, providers: EmailProviderService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listEnvironmentEmailProviders',
      summary: 'List the email providers of an environment',
      description: 'Lists the saved email providers, one per kind, with their config and hints of their secrets (never the secrets).',
      security: read,
      params: EnvironmentScopeParams,
      response: { 200: EmailProvidersList, ...errorResponses(404) },
    },
    handler: (r) => providers.list(callerOf(r, 'environment')),
  });
  app.post(`${base}/test`, {
    schema: {
      tags,
      operationId: 'testEnvironmentEmailProvider',
      summary: 'Send a test message through an email provider',
      description:
        'Sends a test message to `recipient` through the saved provider now, over the vendor’s real API, and answers the vendor’s message id. ' +
        '404 `email_provider.not_found` when the kind is not saved; 502 `email_provider.send_failed` with the vendor’s error text when it refuses ' +
        'or cannot be reached. Records `email_provider.tested` either way.',
      security: write,
      params: EnvironmentScopeParams,
      body: TestEmailProviderBody,
      response: { 200: TestEmailProviderResponse, ...errorResponses(404, 502) },
    },
    handler: (r) => providers.test(callerOf(r, 'environment'), r.body),
  });
  app.put(`${base}/:provider`, {
    schema: {
      tags,
      operationId: 'saveEnvironmentEmailProvider',
      summary: 'Create or update the email provider of a kind',
      description:
        'Saves the environment’s provider of this kind: the first save needs the config and every secret of the kind (400 ' +
        '`email_provider.invalid` naming e.g. `body.secrets.apiKey`); an update may leave out the config or secrets to keep them. ' +
        '`active: true` makes it the only active email provider of the environment. Secrets are sealed and only their hints are returned.',
      security: write,
      params: EmailProviderParams,
      body: SaveEmailProviderBody,
      response: { 200: EmailProviderResponse, ...errorResponses(404) },
    },
    handler: (r) => providers.save(callerOf(r, 'environment'), r.params.provider, r.body),
  });
  app.post(`${base}/:provider/activate`, {
    schema: {
      tags,
      operationId: 'activateEnvironmentEmailProvider',
      summary: 'Make an email provider the active one of its environment',
      description: 'Activates the saved provider of this kind and deactivates the one active before, if any: at most one email provider is active.',
      security: write,
      params: EmailProviderParams,
      response: { 200: EmailProviderResponse, ...errorResponses(404) },
    },
    handler: (r) => providers.activate(callerOf(r, 'environment'), r.params.provider),
  });
  app.delete(`${base}/:provider`, {
    schema: {
      tags,
      operationId: 'deleteEnvironmentEmailProvider',
      summary: 'Delete the email provider of a kind',
      description: 'Deletes the provider with its sealed secrets; an active one leaves the environment without an active email provider.',
      security: write,
      params: EmailProviderParams,
      response: { 200: EmailProviderSuccessResponse, ...errorResponses(404) },
    },
    handler: (r) => providers.remove(callerOf(r, 'environment'), r.params.provider),
  });
}

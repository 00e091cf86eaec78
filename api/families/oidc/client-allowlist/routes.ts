import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  AddClientAllowlistEntryBody,
  AllowlistEntryParams,
  EnvironmentClientAllowlistResponse,
  EnvironmentScopeParams,
  ReplaceClientAllowlistBody,
} from './schemas.ts';
import type { ClientAllowlistService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['OIDC clients'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/oidc/client-allowlist';
const read = requires('environment-settings:read');
const write = requires('environment-settings:write');
const response = (...statuses: number[]) => ({ 200: EnvironmentClientAllowlistResponse, ...errorResponses(404, ...statuses) });

export function clientAllowlistRoutes(app: App, allowlist: ClientAllowlistService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'getEnvironmentClientAllowlist',
      summary: 'The clients that may sign the environment’s users in',
      description: 'Lists the entries of the client allowlist, oldest first. An empty list lets every OIDC client of the environment sign users in.',
      security: read,
      params: EnvironmentScopeParams,
      response: response(),
    },
    handler: (r) => allowlist.get(callerOf(r, 'environment')),
  });
  app.put(base, {
    schema: {
      tags,
      operationId: 'replaceEnvironmentClientAllowlist',
      summary: 'Replace the client allowlist',
      description:
        'Replaces the list with `clientIds` (each an OIDC client of this environment: 400 naming `body.clientIds.N` otherwise); an empty list lets every client sign users in. Entries kept keep their id and date.',
      security: write,
      params: EnvironmentScopeParams,
      body: ReplaceClientAllowlistBody,
      response: response(),
    },
    handler: (r) => allowlist.replace(callerOf(r, 'environment'), r.body.clientIds),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'addEnvironmentClientAllowlistEntry',
      summary: 'Add a client to the allowlist',
      description: 'Adds one OIDC client of this environment to the list (400 naming `body.clientId` otherwise); adding a listed client changes nothing.',
      security: write,
      params: EnvironmentScopeParams,
      body: AddClientAllowlistEntryBody,
      response: response(),
    },
    handler: (r) => allowlist.add(callerOf(r, 'environment'), r.body.clientId),
  });
  app.delete(`${base}/:clientId`, {
    schema: {
      tags,
      operationId: 'removeEnvironmentClientAllowlistEntry',
      summary: 'Remove a client from the allowlist',
      description: 'Removes the client’s entry (also the entry of a deleted client); 404 `oidc_client_allowlist_entry.not_found` when it is not listed.',
      security: write,
      params: AllowlistEntryParams,
      response: response(),
    },
    handler: (r) => allowlist.remove(callerOf(r, 'environment'), r.params.clientId),
  });
}

import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, SuccessIdResponse } from '../../../common/schemas.ts';
import { CreateEntryBody, EntriesList, EntriesQuery, EntryParams, EntryResponse, EnvironmentParams, UpdateEntryBody } from './schemas.ts';
import type { EntryService } from './entries-service.ts';
import type { App } from '../../../types.ts';

export const tags = ['MCP Trust Store'];
export const TRUST_STORE_BASE = '/v1/tenants/:tenantId/environments/:environmentId/mcp/trust-store';
export const read = requires('mcp-trust-store:read');
export const write = requires('mcp-trust-store:write');
const base = TRUST_STORE_BASE;

export function entryRoutes(app: App, entries: EntryService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listTrustStoreEntries',
      summary: 'List the trust-store entries of an environment',
      description:
        'Lists the agents, MCP servers and workloads of the environment, oldest first, one page at a time; filter by `kind`, `status` or exact `subject`.',
      security: read,
      params: EnvironmentParams,
      querystring: EntriesQuery,
      response: { 200: EntriesList, ...errorResponses(404) },
    },
    handler: (r) => entries.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createTrustStoreEntry',
      summary: 'Register an agent, MCP server or workload',
      description:
        'Registers an entry (status `pending`). `subject` is a SPIFFE ID, an MCP server http(s) URL (mcp_server) or a client id, unique in the environment (409 `trust_store.subject_taken`). ' +
        '`toolManifestHash` pins the manifest. 400 naming `body.ownerId` when it is not a directory user of the environment.',
      security: write,
      params: EnvironmentParams,
      body: CreateEntryBody,
      response: { 201: EntryResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send({ entry: await entries.create(callerOf(r, 'environment'), r.body) }),
  });
  app.get(`${base}/:entryId`, {
    schema: {
      tags,
      operationId: 'getTrustStoreEntry',
      summary: 'Get a trust-store entry with its keys',
      description: 'Returns the entry with every key it has (active, retiring, retired, revoked).',
      security: read,
      params: EntryParams,
      response: { 200: EntryResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ entry: await entries.find(callerOf(r, 'environment'), r.params.entryId) }),
  });
  app.patch(`${base}/:entryId`, {
    schema: {
      tags,
      operationId: 'updateTrustStoreEntry',
      summary: 'Change a trust-store entry (tools, manifest pin, status…)',
      description:
        'Changes the given fields. `toolManifestHash` pins a manifest (null unpins); `status` moves between pending, verified (only an entry verified before) and suspended. ' +
        '409 `trust_store.revoked` on a revoked entry, `trust_store.not_verified` for `verified` on an entry never verified.',
      security: write,
      params: EntryParams,
      body: UpdateEntryBody,
      response: { 200: EntryResponse, ...errorResponses(404, 409) },
    },
    handler: async (r) => ({ entry: await entries.update(callerOf(r, 'environment'), r.params.entryId, r.body) }),
  });
  app.delete(`${base}/:entryId`, {
    schema: {
      tags,
      operationId: 'deleteTrustStoreEntry',
      summary: 'Delete a trust-store entry',
      description: 'Deletes the entry with its keys; runtime resolution answers 404 for its subject from the next request. A revoked entry may be deleted.',
      security: write,
      params: EntryParams,
      response: { 200: SuccessIdResponse, ...errorResponses(404) },
    },
    handler: (r) => entries.remove(callerOf(r, 'environment'), r.params.entryId),
  });
  app.post(`${base}/:entryId/revoke`, {
    schema: {
      tags,
      operationId: 'revokeTrustStoreEntry',
      summary: 'Revoke a trust-store entry, for good',
      description:
        'Revokes the entry: resolution reports it revoked without keys, and any later change or verification is 409 `trust_store.revoked`. Revoking again returns it unchanged.',
      security: write,
      params: EntryParams,
      response: { 200: EntryResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ entry: await entries.revoke(callerOf(r, 'environment'), r.params.entryId) }),
  });
}

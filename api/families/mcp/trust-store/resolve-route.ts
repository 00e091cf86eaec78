// GET /v1/mcp/trust-store/resolve: what a runtime (an MCP gateway, an agent host) asks about a subject, with an
// environment API secret of purpose `mcp`. Served from the in-memory trust store of the environment (a Map look-up
// and a pre-serialized answer), revalidated by ETag: `Cache-Control: private, max-age=0, must-revalidate` lets a
// client keep the answer but ask each time, and a 304 costs nothing to serve.
import { z } from 'zod';
import { ApiError } from '../../../errors.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { environmentSecretOf, requiresEnvironmentSecret } from '../../../plugins/environment-secret.ts';
import { matchesEtag, type TrustStoreSnapshot } from '../../../access/trust-stores.ts';
import type { ModelCache } from '../../../access/models.ts';
import type { App } from '../../../types.ts';
import { ResolveQuery, Resolved } from './verify-schemas.ts';
import { tags } from './entries-routes.ts';

const CACHE_CONTROL = 'private, max-age=0, must-revalidate';
const notFound = () => new ApiError(404, 'trust_store.not_found', 'No trust-store entry has this subject in the environment of the API secret.');

export function resolveRoute(app: App, trustStores: ModelCache<TrustStoreSnapshot>) {
  const lookup = async (environmentId: string, subject: string) => {
    const hit = (await trustStores.get(environmentId)).get(subject);
    if (hit?.until == null || hit.until > Date.now()) return hit;
    // A retiring key in the answer has passed its retiresAt: rebuild the environment's answers without it.
    trustStores.evict(environmentId);
    return (await trustStores.get(environmentId)).get(subject);
  };

  app.get('/v1/mcp/trust-store/resolve', {
    config: { environmentSecret: 'mcp' },
    // The answer is serialized once per change (api/access/trust-stores.ts), not per request.
    serializerCompiler: () => (data) => (typeof data === 'string' ? data : JSON.stringify(data)),
    schema: {
      tags,
      operationId: 'resolveTrustStoreSubject',
      summary: 'Resolve a subject at runtime: status, keys (JWKS), allowed tools, pinned manifest',
      description:
        'Authenticated by an environment API secret with the purpose `mcp` (adenv_…), which selects the environment. Answers the entry of `subject` with the JWK Set of its active and retiring keys, ' +
        'its allowed tools and pinned manifest hash; 404 for a subject the environment does not hold. Sends a strong `ETag` (304 for a matching `If-None-Match`) and ' +
        '`Cache-Control: private, max-age=0, must-revalidate`: keep the answer, revalidate it on each use.',
      security: requiresEnvironmentSecret,
      querystring: ResolveQuery,
      response: { 200: Resolved, 304: z.null().describe('Not Modified: the answer matching If-None-Match is current'), ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      const hit = await lookup(environmentSecretOf(request).environmentId, request.query.subject);
      if (!hit) throw notFound();
      reply.header('etag', hit.etag).header('cache-control', CACHE_CONTROL);
      if (matchesEtag(request.headers['if-none-match'], hit.etag)) return reply.code(304).send(undefined as never);
      return reply.type('application/json; charset=utf-8').send(hit.body as never);
    },
  });
}

import { callerOf } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { EntryParams } from './schemas.ts';
import { ChallengeResponse, VerifyBody, VerifyResponse } from './verify-schemas.ts';
import { tags, TRUST_STORE_BASE, write } from './entries-routes.ts';
import type { VerifyService } from './verify-service.ts';
import type { App } from '../../../types.ts';

const base = `${TRUST_STORE_BASE}/:entryId/verify`;

export function verifyRoutes(app: App, verification: VerifyService) {
  app.post(`${base}/challenge`, {
    schema: {
      tags,
      operationId: 'challengeTrustStoreEntry',
      summary: 'Get a nonce for a proof of possession',
      description: 'Issues a nonce (good once, for 5 minutes; stored hashed) and the `audience` to sign into the proof JWT that POST …/verify checks.',
      security: write,
      params: EntryParams,
      response: { 201: ChallengeResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send({ challenge: await verification.challenge(callerOf(r, 'environment'), r.params.entryId) }),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'verifyTrustStoreEntry',
      summary: 'Verify a trust-store entry (proof of possession, MCP tool manifest)',
      description:
        'With keys: checks `proof` (a JWT over a challenge nonce signed by an active or retiring key; a failure is a 400 `trust_store.proof_invalid` or `trust_store.nonce_invalid` naming it). ' +
        'For an mcp_server named by an http(s) URL: reads its tools/list with the MCP SDK through the SSRF guard and compares the manifest hash with the pin. ' +
        'When every check passes the entry becomes `verified`; otherwise `verification.failure` says why and nothing changes. 409 for a revoked or suspended entry, or one with nothing to verify.',
      security: write,
      params: EntryParams,
      body: VerifyBody,
      response: { 200: VerifyResponse, ...errorResponses(404, 409) },
    },
    // The body may be left out for an entry without keys: it is then `{}`.
    preValidation: (request, _reply, done) => {
      request.body ??= {};
      done();
    },
    handler: (r) => verification.verify(callerOf(r, 'environment'), r.params.entryId, r.body.proof),
  });
}

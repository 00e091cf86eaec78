// The HTTP-01 answers (RFC 8555 §8.3): the CA fetches http://<vanity host>/.well-known/acme-challenge/<token> and
// expects the key authorization the process stored. Public (the CA has no token), plain text, hidden from OpenAPI
// (the CA's protocol, not the service's API).
import { z } from 'zod';
import type { DatabasePool } from 'slonik';
import { createAcmeQueries } from '../../../../db/vanity-domains/acme.ts';
import type { App } from '../../../types.ts';

const Params = z.strictObject({ token: z.string().regex(/^[A-Za-z0-9_-]{1,256}$/) });

export function acmeChallengeRoutes(app: App, pool: DatabasePool) {
  app.get('/.well-known/acme-challenge/:token', {
    config: { public: true },
    schema: { hide: true, params: Params },
    handler: async (r, reply) => {
      const keyAuthorization = await createAcmeQueries(pool).keyAuthorization(r.params.token);
      if (keyAuthorization === null) return reply.code(404).type('text/plain').send('no such challenge');
      return reply.type('text/plain').send(keyAuthorization);
    },
  });
}

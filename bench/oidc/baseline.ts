// The baselines of bench:oidc, measured in the same run as the service: (a) a bare Fastify token route that checks a
// client secret (HTTP Basic, timing-safe) and signs the same claims with jose (ES256), answering as a token endpoint
// does; (b) argon2id verifies per second alone, at the service's cost (@node-rs/argon2 defaults: m=19456 KiB, t=2,
// p=1), as many in flight as the flows have.
import { timingSafeEqual } from 'node:crypto';
import formbody from '@fastify/formbody';
import { hash, verify } from '@node-rs/argon2';
import Fastify from 'fastify';
import { generateKeyPair, SignJWT, type JWTPayload } from 'jose';

export const baseUrl = (app: { server: { address(): unknown } }) => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

/** `claims` without the per-token ones (iat, exp, jti), which each answer sets afresh. */
export async function startBareTokenRoute(client: { id: string; secret: string }, claims: JWTPayload, expiresIn = 3600) {
  const { privateKey } = await generateKeyPair('ES256');
  const expected = Buffer.from(`Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`);
  const app = Fastify({ logger: false });
  await app.register(formbody);
  app.post('/token', async (request, reply) => {
    const auth = Buffer.from(request.headers.authorization ?? '');
    const body = request.body as Record<string, string>;
    if (auth.length !== expected.length || !timingSafeEqual(auth, expected) || body.grant_type !== 'client_credentials') {
      return reply.code(401).send({ error: 'invalid_client' });
    }
    const accessToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'bench' })
      .setIssuedAt()
      .setExpirationTime(`${expiresIn}s`)
      .setJti(crypto.randomUUID())
      .sign(privateKey);
    reply.header('cache-control', 'no-store');
    return { access_token: accessToken, expires_in: expiresIn, token_type: 'Bearer', scope: body.scope };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

/** argon2id verifies per second over `seconds`, `inFlight` at a time (libuv's thread pool does the work, as in the service). */
export async function argon2VerifiesPerSecond(inFlight: number, seconds: number) {
  const password = 'correct horse battery staple';
  const phc = await hash(password);
  await Promise.all(Array.from({ length: inFlight }, () => verify(phc, password))); // warm-up
  let done = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        if (!(await verify(phc, password))) throw new Error('argon2 verify failed');
        done++;
      }
    }),
  );
  return { perSecond: Math.round(done / ((performance.now() - started) / 1000)), phc };
}

// What bounds bench:oidc (a) (node bench/oidc/ablation.ts, ONLY=bare,memory,mounted,app): client-credentials JWTs/s of
// (1) the bare jose route, (2) oidc-provider alone, in memory, mounted in bare Fastify (the provider's own path, every
// request through its pipeline), (3) the service's own Provider behind the service's mount in bare Fastify (no service
// hooks; repeated requests answered from the grant, api/oidc/client-credentials-replay.ts), (4) the whole service, one
// after the other in one process.
import Fastify from 'fastify';
import Provider from 'oidc-provider';
import { generateKeyPair, exportJWK } from 'jose';
import { startBenchDatabase } from '../database.ts';
import { basic, RESOURCE, startOidcBenchService } from './setup.ts';
import { startLoadWorker } from '../load-worker.ts';
import { baseUrl, startBareTokenRoute } from './baseline.ts';
import { createMount } from '../../api/families/oidc/provider/mount.ts';
import { providerRoutes } from '../../api/families/oidc/provider/routes.ts';

const cleanups: (() => Promise<unknown>)[] = [];
const loader = startLoadWorker();
cleanups.push(loader.close);
const FORM = 'application/x-www-form-urlencoded';
const SECONDS = Number(process.env.SECONDS ?? 4);
const only = (process.env.ONLY ?? 'bare,memory,mounted,app').split(',');
try {
  const databaseUrl = await startBenchDatabase(cleanups);
  const { service, issuer, client } = await startOidcBenchService(databaseUrl);
  cleanups.push(() => service.close());
  const auth = { authorization: basic(client) };
  const body = `grant_type=client_credentials&resource=${encodeURIComponent(RESOURCE)}`;
  const load = async (url: string, b = body) => {
    await loader.run({ url, method: 'POST', headers: { 'content-type': FORM, ...auth }, body: b, connections: 50, duration: 1 });
    const r = await loader.run({ url, method: 'POST', headers: { 'content-type': FORM, ...auth }, body: b, connections: 50, duration: SECONDS });
    return `${Math.round(r.requests.average)}/s p99 ${r.latency.p99} non2xx ${r.non2xx} errors ${r.errors}`;
  };
  const results: Record<string, string> = {};

  if (only.includes('bare')) {
    const bare = await startBareTokenRoute(client, { iss: issuer, client_id: client.id, sub: client.id, scope: '', aud: RESOURCE }, 3600);
    cleanups.push(() => bare.close());
    results.bare = await load(`${baseUrl(bare)}/token`, 'grant_type=client_credentials');
  }

  if (only.includes('memory')) {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'k', alg: 'ES256', use: 'sig' };
    const app = Fastify();
    const provider = new Provider(`http://127.0.0.1/oidc`, {
      clients: [
        {
          client_id: client.id,
          client_secret: client.secret,
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
          id_token_signed_response_alg: 'ES256',
        } as never,
      ],
      jwks: { keys: [jwk] as never },
      features: {
        clientCredentials: { enabled: true },
        introspection: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined,
          useGrantedResource: () => true,
          getResourceServerInfo: async () => ({
            scope: '',
            audience: RESOURCE,
            accessTokenTTL: 3600,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          }),
        },
      },
    });
    const cb = provider.callback();
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_r, _p, done) => done(null, undefined));
    app.all('/oidc/*', (request, reply) => {
      const req = request.raw as typeof request.raw & { originalUrl?: string };
      req.originalUrl = req.url;
      req.url = req.url!.slice(5);
      reply.hijack();
      return cb(req, reply.raw);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => app.close());
    results.memory = await load(`${baseUrl(app)}/oidc/token`);
    results.memoryOpaque = await load(`${baseUrl(app)}/oidc/token`, 'grant_type=client_credentials');
  }

  if (only.includes('mounted')) {
    const app = Fastify();
    const { environmentId } = service.credentials;
    // the same Provider the service built
    const mount = createMount(service.app.oidc, service.config.publicBaseUrl);
    providerRoutes(app as never, mount);
    await app.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => app.close());
    results.mounted = await load(`${baseUrl(app)}/v1/oidc/${environmentId}/token`);
  }
  if (only.includes('app')) results.app = await load(`${issuer}/token`);
  console.log(results);
} finally {
  for (const c of cleanups.reverse()) await c().catch(() => {});
}

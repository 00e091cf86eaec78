// buildApp(deps): the whole HTTP API, used by the server and by the tests.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DatabasePool } from 'slonik';
import type { Config } from '../lib/config.ts';
import { CREDENTIALS_CHANNEL, FGA_CHANNEL, MODELS_CHANNEL, OIDC_CHANNEL, VANITY_CHANNEL, listen } from '../db/shared/notifications.ts';
import { createModelQueries } from '../db/access/model/queries.ts';
import { compileModel } from '../lib/authz/compile.ts';
import fp from 'fastify-plugin';
import { authPlugin } from './plugins/auth.ts';
import { environmentSecretPlugin } from './plugins/environment-secret.ts';
import { errorsPlugin, frameworkErrors } from './plugins/errors.ts';
import { openApiPlugin } from './plugins/openapi.ts';
import { rateLimitPlugin } from './plugins/rate-limit.ts';
import { requestTextPlugin } from './plugins/request-text.ts';
import { impersonationAuditPlugin } from './plugins/impersonation-audit.ts';
import { securityHeadersPlugin } from './plugins/security-headers.ts';
import { scopePlugin } from './plugins/scope.ts';
import { createAuthenticator, type Authenticator } from './access/principals.ts';
import { createEnvironmentSecretAuthenticator } from './access/environment-secrets.ts';
import { createModelCache } from './access/models.ts';
import { createFgaService } from './fga/service.ts';
import { compileTrustStore } from './access/trust-stores.ts';
import { createTrustStoreResolveQueries } from '../db/mcp/trust-store/resolve.ts';
import { FAMILIES } from './families/index.ts';
import { createOidcProviders } from './oidc/providers.ts';
import { createVanityStore, type VanityStore } from './vanity/store.ts';
import type { OidcProviders } from './oidc/types.ts';
import type { Family, FamilyDeps } from './families/family.ts';
import { createReadiness, type Readiness } from './health/readiness.ts';
import { createEntitlementsCache } from './billing/entitlements-cache.ts';
import { createMetrics, type Metrics } from './metrics/registry.ts';
import { addRequestSpans } from './telemetry.ts';
import { tracingEnabled } from '../lib/telemetry.ts';
import { latestMigration } from '../db/migrate.ts';
import type { EvaluationTimings } from './protections/pipeline.ts';
import type { SigningKeys } from './access/signing-keys.ts';
import type { App } from './types.ts';
import { createInbox, type Inbox } from '../lib/messages/inbox.ts';
import { createLogSender } from '../lib/messages/log-sender.ts';
import type { MessageSender } from '../lib/messages/sender.ts';
import { createMessageSender } from './messages/sender.ts';
import type { PasswordPolicy } from './passwords/policy.ts';
import { createEnvironmentPasswordPolicy } from './passwords/environment-policy.ts';
import { createSharedWindows } from './rate-limits/shared-windows.ts';

export interface AppDeps {
  config: Config;
  pool: DatabasePool;
  /** Connection string of the same database, for the LISTEN connection that evicts cached credentials. */
  databaseUrl: string;
  keys: SigningKeys;
  /** Encrypts secrets at rest (webhook signing secrets, provider credentials). */
  masterKey: Buffer;
  logger?: FastifyServerOptions['logger'];
  /**
   * How messages (sign-up codes, password links) are sent; default: through the environment's providers by the
   * message-send process when one of the channel is active, else the log sender with its in-process inbox.
   */
  sender?: MessageSender;
  /** What every place that sets a password asks (api/passwords/policy.ts); default: the service's fixed rules. */
  passwordPolicy?: PasswordPolicy;
  /** Benchmarks only: registers what a bench measures beside the service's routes (bench:sign-in's static page) before ready. */
  extend?: (app: App) => void;
  /** Benchmarks only: receives the wall time of each sign-in protection evaluation (bench:protections). */
  protectionTimings?: EvaluationTimings;
}

export const REDACTED_PATHS = ['req.headers.authorization', '*.clientSecret', '*.client_secret', '*.fullToken', '*.invitationCode', '*.password', '*.secret'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A POST that changes nothing an instance caches (AuthZEN decisions, the OIDC sign-in forms: no NOTIFY on the
     * listener's channels): it answers without waiting for this instance's notifications.
     */
    readOnly?: boolean;
    /**
     * A change whose handler, once it has committed, drops what this instance caches of it (the FGA tuple write):
     * it answers without waiting for its notifications, which are for the other instances.
     */
    evictsLocally?: boolean;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The bearer-token verifier, for routes that check a token they are given (token introspection). */
    authenticator: Authenticator;
    /** Each environment's OpenID provider (api/oidc/providers.ts), for the sign-in pages and the tests. */
    oidc: OidcProviders;
    /** What `GET /v1/health/ready` reports; the composition root adds its probes and drains it on SIGTERM. */
    readiness: Readiness;
    /** The Prometheus metrics of this app (`GET /metrics`, or METRICS_PORT). */
    metrics: Metrics;
    /** The message sender and the default sender's in-process inbox (lib/messages), for the tests. */
    messages: { sender: MessageSender; inbox: Inbox };
    /** The certificates of active vanity domains (api/vanity/store.ts), for the HTTPS listener. */
    vanity: VanityStore;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

// Every schema is a zod schema: given these, Fastify never loads its JSON Schema compilers (ajv, fast-json-stringify),
// about 3 MB of an idle process's RSS. Fastify's types expect ajv's compilers; zod's are what setValidatorCompiler takes.
const ZOD_COMPILERS = { buildValidator: () => validatorCompiler, buildSerializer: () => serializerCompiler } as unknown as NonNullable<
  FastifyServerOptions['schemaController']
>['compilersFactory'];

/** TRUST_PROXY for Fastify, which no longer takes a hop count itself: trust the nearest `n` addresses, whoever they are. */
const trustProxy = (value: Config['trustProxy']) => (typeof value === 'number' ? (_address: string, hop: number) => hop < value : value);

/** What every family's routes rely on: a family registered before these fails at ready(). */
export const FAMILY_DEPENDENCIES = ['errors', 'auth', 'impersonation-audit', 'environment-secret', 'request-text', 'security-headers', 'scope', 'openapi'];

/** A family as an encapsulated named plugin (its own parsers and hooks stay inside it). */
export const familyPlugin = (family: Family) =>
  fp<FamilyDeps>(async (scope, familyDeps) => family.register(scope.withTypeProvider<ZodTypeProvider>(), familyDeps), {
    name: `family:${family.name}`,
    fastify: '5.x',
    encapsulate: true,
    dependencies: FAMILY_DEPENDENCIES,
  });

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, pool, keys } = deps;
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: 1024 * 1024,
    // RBAC resource ids are up to 200 characters chosen by the client, URL-encoded in the path (9 per BMP character).
    routerOptions: { maxParamLength: 2000 },
    frameworkErrors,
    // A caller's X-Request-Id is kept when it is reasonable, so its logs and ours line up.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Behind a reverse proxy, the client address comes from X-Forwarded-For (rate limits, audit origin).
    trustProxy: trustProxy(config.trustProxy),
    schemaController: { compilersFactory: ZOD_COMPILERS },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  if (tracingEnabled()) addRequestSpans(app);
  const metrics = createMetrics({ pool });
  app.decorate('metrics', metrics);
  app.addHook('onResponse', (request, reply, done) => {
    metrics.http.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const issuer = config.publicBaseUrl;
  const audience = `${config.publicBaseUrl}/v1`;
  const authenticator = createAuthenticator({ pool, keys, issuer, audience, onError: (e) => app.log.warn({ err: e }, 'credential bookkeeping failed') });
  const environmentSecrets = createEnvironmentSecretAuthenticator({ pool, onError: (e) => app.log.warn({ err: e }, 'secret bookkeeping failed') });
  const models = createModelCache({
    load: async (id) => compileModel(id, await createModelQueries(pool).loadModel(id)),
    counted: (hit) => metrics.decisions.cache('access_model', hit),
  });
  const trustStores = createModelCache({ load: async (id) => compileTrustStore(await createTrustStoreResolveQueries(pool).loadEnvironment(id)) });
  const fga = createFgaService({ pool, ...config.fga, metrics: metrics.decisions });
  const entitlements = createEntitlementsCache(pool);
  const oidc = createOidcProviders({
    pool,
    masterKey: deps.masterKey,
    publicBaseUrl: config.publicBaseUrl,
    allowPrivateNetworkTargets: config.allowPrivateNetworkTargets,
    max: config.oidcProviderCacheSize,
    backChannelLogoutScheduleMs: config.backChannelLogout.scheduleMs,
    trustStores,
    onError: (e, environmentId) => app.log.error({ err: e, environmentId }, 'OpenID provider error'),
  });
  app.decorate('oidc', oidc);
  const readiness = createReadiness({ pool, expectedHead: await latestMigration() });
  app.decorate('readiness', readiness);
  metrics.watchReadiness(readiness);
  const vanity = createVanityStore({ pool, masterKey: deps.masterKey });
  app.decorate('vanity', vanity);
  const inbox = createInbox();
  const sender =
    deps.sender ??
    createMessageSender({
      pool,
      masterKey: deps.masterKey,
      fallback: createLogSender({ log: app.log, inbox }),
      retryScheduleMs: config.messages.retryScheduleMs,
    });
  app.decorate('messages', { sender, inbox });
  const listener = await listen(
    deps.databaseUrl,
    {
      [CREDENTIALS_CHANNEL]: (id) => {
        authenticator.evict(id);
        environmentSecrets.evict(id);
      },
      [MODELS_CHANNEL]: (environmentId) => {
        models.evict(environmentId);
        trustStores.evict(environmentId);
        entitlements.evict(environmentId);
      },
      [OIDC_CHANNEL]: (environmentId) => oidc.evict(environmentId),
      [FGA_CHANNEL]: (environmentId) => fga.evict(environmentId),
      [VANITY_CHANNEL]: (hostname) => vanity.evict(hostname),
    },
    () => {
      authenticator.clear();
      environmentSecrets.clear();
      models.clear();
      trustStores.clear();
      entitlements.clear();
      oidc.clear();
      fga.clear();
      vanity.clear();
    },
  );
  app.addHook('onClose', () => listener.close());
  // A change answers only once this instance has handled the credential notifications of its commit, so the
  // caller's next request never meets a cached principal the change removed, disabled or narrowed.
  app.addHook('onSend', (request, reply, payload, done) => {
    const { readOnly, evictsLocally } = request.routeOptions.config;
    if (SAFE_METHODS.has(request.method) || reply.statusCode >= 400 || readOnly || evictsLocally) return done(null, payload);
    listener.sync().then((synced) => {
      if (!synced) {
        authenticator.clear();
        environmentSecrets.clear();
        models.clear();
        trustStores.clear();
        entitlements.clear();
        oidc.clear();
        fga.clear();
        vanity.clear();
      }
      done(null, payload);
    }, done);
  });

  // Every rate limit counts across the instances of the database; what this instance counted is stored before the pool closes.
  const rateWindows = createSharedWindows({ pool, syncIntervalMs: config.rateLimit.syncIntervalMs, log: app.log });
  app.addHook('onClose', () => rateWindows.close());

  // Named plugins (api/plugins/*): each declares the plugins it needs, so a wrong order fails at ready().
  await app.register(errorsPlugin);
  await app.register(authPlugin, { authenticator });
  await app.register(impersonationAuditPlugin, { pool });
  await app.register(environmentSecretPlugin, { authenticator: environmentSecrets, rateLimit: config.rateLimit, windows: rateWindows });
  await app.register(requestTextPlugin);
  await app.register(securityHeadersPlugin);
  await app.register(scopePlugin, { pool });
  await app.register(openApiPlugin, { publicBaseUrl: config.publicBaseUrl, tokenUrl: `${config.publicBaseUrl}/v1/oauth/token` });
  if (config.rateLimit.enabled) await app.register(rateLimitPlugin, { ...config.rateLimit, windows: rateWindows });

  const passwordPolicy = deps.passwordPolicy ?? createEnvironmentPasswordPolicy(pool);
  const familyDeps = {
    config,
    pool,
    keys,
    masterKey: deps.masterKey,
    issuer,
    audience,
    models,
    trustStores,
    fga,
    entitlements,
    oidc,
    vanity,
    sender,
    passwordPolicy,
    rateWindows,
    protectionTimings: deps.protectionTimings,
    readiness,
    metrics,
  };
  for (const family of FAMILIES) {
    await app.register(familyPlugin(family), familyDeps);
  }

  deps.extend?.(app);
  await app.ready();
  return app;
}

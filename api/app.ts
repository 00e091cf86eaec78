// buildApp(deps): the whole HTTP API, used by the server and by the tests.
import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DatabasePool } from 'slonik';
import type { Config } from '../db/config.ts';
import { CREDENTIALS_CHANNEL, listen } from '../db/queries/notifications.ts';
import { registerAuth } from './plugins/auth.ts';
import { registerErrorHandling } from './plugins/errors.ts';
import { registerOpenApi } from './plugins/openapi.ts';
import { registerRateLimit } from './plugins/rate-limit.ts';
import { auditLogRoutes } from './routes/audit-logs.ts';
import { environmentSettingRoutes } from './routes/environment-settings.ts';
import { environmentRoutes } from './routes/environments.ts';
import { eventRoutes } from './routes/events.ts';
import { metaRoutes } from './routes/meta.ts';
import { notificationChannelRoutes } from './routes/notification-channels.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { organizationKeyRoutes } from './routes/organization-keys.ts';
import { organizationFeatureRoutes } from './routes/organizations.ts';
import { personalAccessTokenRoutes } from './routes/personal-access-tokens.ts';
import { projectRoutes } from './routes/projects.ts';
import { serviceAccountRoutes } from './routes/service-accounts.ts';
import { signingKeyRoutes } from './routes/signing-keys.ts';
import { tenantSeatRoutes } from './routes/tenant-seats.ts';
import { tenantDomainRoutes } from './routes/tenant-domains.ts';
import { tenantRoutes } from './routes/tenants.ts';
import { userinfoRoutes } from './routes/userinfo.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { createOAuthTokenService } from './services/oauth-tokens.ts';
import { createOrganizationKeyService } from './services/organization-keys.ts';
import { createPersonalAccessTokenService } from './services/personal-access-tokens.ts';
import { createAuthenticator } from './services/principals.ts';
import { createServiceAccountService } from './services/service-accounts.ts';
import { createTenantSeatService } from './services/tenant-seats.ts';
import type { SigningKeys } from './services/signing-keys.ts';
import { createDeliveryService } from './services/deliveries.ts';
import { createConnectionService } from './services/environment-connections.ts';
import { createEnvironmentSettingsService } from './services/environment-settings.ts';
import { createEnvironmentService } from './services/environments.ts';
import { createProjectService } from './services/projects.ts';
import { createNotificationChannelService } from './services/notification-channels.ts';
import { createTenantDomainService } from './services/tenant-domains.ts';
import { createTenantService } from './services/tenants.ts';
import { createWebhookService } from './services/webhooks.ts';
import type { App } from './types.ts';

export interface AppDeps {
  config: Config;
  pool: DatabasePool;
  /** Connection string of the same database, for the LISTEN connection that evicts cached credentials. */
  databaseUrl: string;
  keys: SigningKeys;
  /** Encrypts secrets at rest (webhook signing secrets, provider credentials). */
  masterKey: Buffer;
  logger?: FastifyServerOptions['logger'];
}

export const REDACTED_PATHS = ['req.headers.authorization', '*.clientSecret', '*.client_secret', '*.fullToken', '*.invitationCode', '*.password', '*.secret'];

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, pool, keys } = deps;
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: 1024 * 1024,
    // A caller's X-Request-Id is kept when it is reasonable, so its logs and ours line up.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    trustProxy: false,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  const issuer = config.publicBaseUrl;
  const audience = `${config.publicBaseUrl}/v1`;
  const authenticator = createAuthenticator({ pool, keys, issuer, audience, onError: (e) => app.log.warn({ err: e }, 'credential bookkeeping failed') });
  const listener = await listen(deps.databaseUrl, CREDENTIALS_CHANNEL, (id) => authenticator.evict(id), () => authenticator.clear());
  app.addHook('onClose', () => listener.close());

  registerErrorHandling(app);
  registerAuth(app, authenticator);
  await registerOpenApi(app, config.publicBaseUrl, `${config.publicBaseUrl}/v1/oauth/token`);
  if (config.rateLimit.enabled) await registerRateLimit(app, config.rateLimit);

  metaRoutes(app, { pool, keys });
  // Form bodies are accepted by the token endpoint only (RFC 6749); everything else speaks JSON.
  await app.register(async (oauth) => {
    await oauth.register(formbody);
    oauthRoutes(oauth.withTypeProvider<ZodTypeProvider>(), createOAuthTokenService({ pool, keys, issuer, audience, ttlSeconds: config.accessTokenTtlSeconds }));
  });
  userinfoRoutes(app, pool);
  tenantRoutes(app, createTenantService(pool));
  tenantDomainRoutes(app, createTenantDomainService({
    pool, dnsServers: config.dnsServers, verification: { intervalsMs: config.domains.verificationIntervalsMs, giveUpAfterMs: config.domains.verificationGiveUpMs },
  }));
  serviceAccountRoutes(app, createServiceAccountService(pool));
  personalAccessTokenRoutes(app, createPersonalAccessTokenService(pool));
  organizationKeyRoutes(app, createOrganizationKeyService(pool));
  tenantSeatRoutes(app, createTenantSeatService(pool));
  projectRoutes(app, createProjectService(pool));
  environmentRoutes(app, createEnvironmentService(pool));
  environmentSettingRoutes(
    app,
    createConnectionService({ pool, masterKey: deps.masterKey, allowPrivateNetworkTargets: config.allowPrivateNetworkTargets }),
    createEnvironmentSettingsService({ pool, keys, publicBaseUrl: config.publicBaseUrl, allowPrivateNetworkTargets: config.allowPrivateNetworkTargets }),
  );
  signingKeyRoutes(app, keys);
  eventRoutes(app, { pool });
  auditLogRoutes(app, { pool });
  const webhooks = createWebhookService({
    pool, masterKey: deps.masterKey, allowPrivateNetworkTargets: config.allowPrivateNetworkTargets, secretOverlapMs: config.webhooks.secretOverlapMs,
  });
  webhookRoutes(app, webhooks, createDeliveryService(pool, webhooks));
  notificationChannelRoutes(app, createNotificationChannelService({
    pool, masterKey: deps.masterKey, allowPrivateNetworkTargets: config.allowPrivateNetworkTargets, timeoutMs: config.webhooks.timeoutMs, baseUrls: config.providers,
  }));
  // Organizations, members, invitations, tenant links; evicting at once lets a new member use the organization on their next request.
  organizationFeatureRoutes(app, { pool, evict: (id) => authenticator.evict(id) });

  await app.ready();
  return app;
}

// The service's configuration, parsed once from the environment at start.
import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { formatConfigDuration } from './durations.ts';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' }).transform((v) => v === 'true' || v === '1' || v === 'yes');

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** `250ms`, `5s`, `30m`, `2h`, `5d`, or a bare number of ms. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  return m ? Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!) : undefined;
}
const duration = z.string().transform((v, ctx) => {
  const ms = parseDuration(v);
  if (ms === undefined) ctx.addIssue({ code: 'custom', message: 'must be a duration such as 500ms, 5s, 30m, 2h or 5d' });
  return ms ?? 0;
});
const schedule = z.string().transform((v, ctx) => {
  const parts = v.split(',').map(parseDuration);
  if (parts.length === 0 || parts.some((p) => p === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of durations such as 0,5s,5m,2h' });
  }
  return parts.map((p) => p ?? 0);
});
/** `ip` or `ip:port` (`[ipv6]:port`), comma-separated: the servers node:dns's Resolver.setServers takes. */
const dnsServers = z.string().transform((v, ctx) => {
  const servers = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const valid = (s: string) => {
    const m = /^(?:\[([^\]]+)\]|(\d+\.\d+\.\d+\.\d+)):(\d{1,5})$/.exec(s);
    return m ? isIP(m[1] ?? m[2] ?? '') !== 0 && Number(m[3]) > 0 && Number(m[3]) <= 65535 : isIP(s) !== 0;
  };
  if (servers.some((s) => !valid(s))) ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of ip or ip:port ([ipv6]:port)' });
  return servers;
});

const PROXY_KEYWORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);
/** An address or CIDR range (`10.0.0.0/8`, `fd00::/8`), or one of proxy-addr's names for a range. */
function isProxyAddress(text: string): boolean {
  if (PROXY_KEYWORDS.has(text)) return true;
  const [ip = '', prefix, extra] = text.split('/');
  const family = isIP(ip);
  if (family === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}
/** Fastify's `trustProxy`: `true`/`false`, a number of proxy hops, or the proxies' addresses and CIDR ranges. */
const trustProxy = z.string().transform((v, ctx): boolean | number | string[] => {
  const text = v.trim().toLowerCase();
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^\d+$/.test(text)) return Number(text);
  const proxies = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (proxies.length === 0 || !proxies.every(isProxyAddress)) {
    ctx.addIssue({ code: 'custom', message: 'must be true, false, a number of proxy hops, or a comma-separated list of proxy IP addresses or CIDR ranges' });
  }
  return proxies;
});

/** The path of a file that exists (a certificate or key, read when the service connects). */
const filePath = z.string().refine((p) => fs.existsSync(p) && fs.statSync(p).isFile(), 'must be the path of an existing file');

const port = z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(0, 'must be 0..65535').max(65535, 'must be 0..65535');
const positiveInt = z.coerce.number({ error: 'must be a number' }).int('must be an integer').positive('must be positive');

export const configSchema = z
  .object({
    PORT: port.default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    SHUTDOWN_DRAIN_DELAY: duration.prefault('0s'),
    METRICS_PORT: port.optional(),
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    OTEL_SERVICE_NAME: z.string().min(1).optional(),
    WORKER_METRICS_PORT: port.optional(),
    DATA_DIR: z.string().min(1).default('./.data'),
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
    DATABASE_POOL_SIZE: positiveInt.default(10),
    PG_BIN_DIR: z.string().min(1).optional(),
    MASTER_KEY: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$|^[A-Za-z0-9+/]{43}=$/, 'must be 32 bytes as 64 hex characters or base64')
      .optional(),
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    PROCESS_ENGINE: z.enum(['embedded', 'temporal']).optional(),
    TEMPORAL_ADDRESS: z
      .string()
      .regex(/^[^\s:]+:\d+$/, 'must be host:port')
      .optional(),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    WORKFLOW_BUNDLE: z.string().min(1).optional(),
    TEMPORAL_METRICS_ADDRESS: z
      .string()
      .regex(/^[^\s:]+:\d+$/, 'must be host:port')
      .optional(),
    WORKER_SHUTDOWN_GRACE: duration.prefault('30s'),
    TEMPORAL_TLS_CERT: filePath.optional(),
    TEMPORAL_TLS_KEY: filePath.optional(),
    TEMPORAL_TLS_CA: filePath.optional(),
    TEMPORAL_API_KEY: z.string().min(1).optional(),
    ALLOW_PRIVATE_NETWORK_TARGETS: bool.default(false),
    ACCESS_TOKEN_TTL_SECONDS: positiveInt.max(86_400, 'must be at most 86400').default(900),
    OIDC_PROVIDER_CACHE_SIZE: positiveInt.default(100),
    RATE_LIMIT_ENABLED: bool.default(true),
    RATE_LIMIT_MAX: positiveInt.default(600),
    RATE_LIMIT_WINDOW_MS: positiveInt.default(60_000),
    // Routes authenticated by an environment credential count per credential and per minute, not per address.
    RATE_LIMIT_API_SECRET_MAX: positiveInt.default(1_200_000),
    RATE_LIMIT_PROVISIONING_TOKEN_MAX: positiveInt.default(6000),
    RATE_LIMIT_AUTH_FAILURE_MAX: positiveInt.default(60),
    // How often an instance adds its counts to the shared windows (api/rate-limits/shared-windows.ts) while it has any.
    RATE_LIMIT_SYNC_INTERVAL_MS: positiveInt.max(1000, 'must be at most 1000').default(50),
    TRUST_PROXY: trustProxy.prefault('false'),
    WEBHOOK_RETRY_SCHEDULE: schedule.prefault(['0', '5s', '5m', '30m', '2h', '5h', '10h', '10h'].join(',')),
    // Capped below the 2-minute activity timeout of the Temporal binding, so an attempt is never cut and resent.
    WEBHOOK_TIMEOUT_MS: positiveInt.max(60_000, 'must be at most 60000').default(15_000),
    WEBHOOK_DISABLE_AFTER: duration.prefault('5d'),
    MESSAGE_RETRY_SCHEDULE: schedule.refine((ms) => ms.length <= 20, 'must list at most 20 delays').prefault(['0', '10s', '1m'].join(',')),
    WEBHOOK_SECRET_OVERLAP: duration.prefault('24h'),
    BACK_CHANNEL_LOGOUT_SCHEDULE: schedule
      .refine((ms) => ms.length <= 20, 'must list at most 20 delays')
      .prefault(['0', '10s', '1m', '5m', '30m', '2h'].join(',')),
    PAGERDUTY_EVENTS_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://events.pagerduty.com'),
    DATADOG_API_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    DISPATCH_POLL_MS: positiveInt.default(1000),
    DELIVERY_BATCH_SIZE: positiveInt.max(1000, 'must be at most 1000').optional(),
    WEBHOOK_MAX_ENDPOINTS_PER_TENANT: positiveInt.default(50),
    WEBHOOK_MAX_PENDING_PER_ENDPOINT: positiveInt.default(1000),
    WEBHOOK_MAX_PENDING_PER_TENANT: positiveInt.default(10_000),
    OIDC_CLEANUP_INTERVAL_SECONDS: positiveInt.default(300),
    OIDC_CLEANUP_ROUNDS_PER_RUN: positiveInt.max(200, 'must be at most 200').default(24),
    RETENTION_INTERVAL: duration.refine((ms) => ms > 0, 'must be a positive duration such as 1h').prefault('1h'),
    RETENTION_ROUNDS_PER_RUN: positiveInt.max(200, 'must be at most 200').default(24),
    RETENTION_MONTHS_AHEAD: positiveInt.max(24, 'must be at most 24').default(2),
    EVENTS_RETENTION: duration.refine((ms) => ms > 0, 'must be a positive duration such as 400d').prefault('400d'),
    AUDIT_LOG_RETENTION: duration.refine((ms) => ms > 0, 'must be a positive duration such as 400d').prefault('400d'),
    DELIVERIES_RETENTION: duration.refine((ms) => ms > 0, 'must be a positive duration such as 30d').prefault('30d'),
    PROCESS_HISTORY_RETENTION: duration.refine((ms) => ms > 0, 'must be a positive duration such as 7d').prefault('7d'),
    PROCESS_SWEEP_INTERVAL: duration.refine((ms) => ms > 0, 'must be a positive duration such as 5m').prefault('5m'),
    DNS_SERVERS: dnsServers.optional(),
    DOMAIN_VERIFICATION_INTERVALS: schedule
      .refine((ms) => ms.every((m) => m > 0), 'must be positive durations such as 1m,5m,1h')
      .prefault(['1m', '5m', '15m', '1h', '6h'].join(',')),
    DOMAIN_VERIFICATION_GIVE_UP: duration.refine((ms) => ms > 0, 'must be a positive duration such as 7d').prefault('7d'),
    HTTPS_PORT: port.optional(),
    VANITY_CNAME_TARGET: z
      .string()
      .regex(/^[a-z0-9.-]+$/i, 'must be a host name such as auth.example.net')
      .optional(),
    VANITY_ACME_DIRECTORY_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://acme-v02.api.letsencrypt.org/directory'),
    VANITY_ACME_CA_FILE: filePath.optional(),
    VANITY_DNS_INTERVAL: duration.refine((ms) => ms > 0, 'must be a positive duration such as 1m').prefault('1m'),
    VANITY_DNS_GIVE_UP: duration.refine((ms) => ms > 0, 'must be a positive duration such as 7d').prefault('7d'),
    VANITY_RENEW_BEFORE: duration.refine((ms) => ms > 0, 'must be a positive duration such as 30d').prefault('30d'),
    BILLING_SYNC_INTERVAL: duration.refine((ms) => ms > 0 && ms <= 604_800_000, 'must be a positive duration of at most 7d such as 1h').prefault('1h'),
    API_SECRET_ROTATION_GRACE: duration.refine((ms) => ms <= 2_592_000_000, 'must be at most 30d').prefault('24h'),
    TRUST_STORE_KEY_ROTATION_GRACE: duration.refine((ms) => ms <= 2_592_000_000, 'must be at most 30d').prefault('24h'),
    MCP_VERIFY_TIMEOUT_MS: positiveInt.max(60_000, 'must be at most 60000').default(10_000),
    AUTHZEN_DECISION_LOG_FULL_RATE: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(0, 'must be 0 or more').default(1000),
    AUTHZEN_DECISION_LOG_SAMPLE_RATE: z.coerce.number({ error: 'must be a number' }).gt(0, 'must be in (0, 1]').max(1, 'must be in (0, 1]').default(0.1),
    AUTHZEN_DECISION_LOG_BUFFER_MAX: positiveInt.default(10_000),
    FGA_MODEL_CACHE_SIZE: positiveInt.default(1000),
    FGA_TUPLE_CACHE_SIZE: positiveInt.default(10_000),
    FGA_TUPLE_CACHE_ENVIRONMENTS: positiveInt.default(100),
    AUTHZEN_DECISION_LOG_RETENTION: duration.refine((ms) => ms > 0, 'must be a positive duration such as 30d').prefault('30d'),
    MCP_EVENTS_RATE_LIMIT: positiveInt.default(5000),
    BOOTSTRAP_CLIENT_ID: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{8,128}$/, 'must be 8-128 characters of A-Z a-z 0-9 _ . -')
      .optional(),
    BOOTSTRAP_CLIENT_SECRET: z
      .string()
      .regex(/^adsa_[A-Za-z0-9]{20,}$/, 'must start with adsa_ followed by at least 20 letters or digits')
      .optional(),
    // HTML's email rule, which admits a host without a dot (the default's `localhost`).
    BOOTSTRAP_ADMIN_EMAIL: z.email({ pattern: z.regexes.html5Email, error: 'must be an email address' }).default('admin@localhost'),
  })
  .transform((env) => {
    const dataDir = path.resolve(env.DATA_DIR);
    const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://${env.HOST}:${env.PORT}`).replace(/\/$/, '');
    return {
      port: env.PORT,
      host: env.HOST,
      dataDir,
      databaseUrl: env.DATABASE_URL,
      databasePoolSize: env.DATABASE_POOL_SIZE,
      /** Where db:backup and db:restore take pg_dump and pg_restore from (scripts/pg-tools.ts). */
      pgBinDir: env.PG_BIN_DIR,
      masterKey: env.MASTER_KEY,
      publicBaseUrl,
      logLevel: env.LOG_LEVEL,
      processEngine: env.PROCESS_ENGINE ?? (env.TEMPORAL_ADDRESS ? 'temporal' : 'embedded'),
      temporalAddress: env.TEMPORAL_ADDRESS,
      temporalNamespace: env.TEMPORAL_NAMESPACE,
      temporalMetricsAddress: env.TEMPORAL_METRICS_ADDRESS,
      /** The prebuilt workflow bundle the worker loads (default dist/workflows-bundle.js, written by npm run build:workflows). */
      workflowBundle: env.WORKFLOW_BUNDLE,
      /** How long the Temporal worker lets running activities finish on SIGTERM before cancelling them (shutdownGraceTime). */
      workerShutdownGraceMs: env.WORKER_SHUTDOWN_GRACE,
      /** mTLS to the Temporal server (file paths: client certificate and key, server CA), and a Temporal Cloud API key. */
      temporalTls: { cert: env.TEMPORAL_TLS_CERT, key: env.TEMPORAL_TLS_KEY, ca: env.TEMPORAL_TLS_CA },
      temporalApiKey: env.TEMPORAL_API_KEY,
      allowPrivateNetworkTargets: env.ALLOW_PRIVATE_NETWORK_TARGETS,
      accessTokenTtlSeconds: env.ACCESS_TOKEN_TTL_SECONDS,
      /** How many environments' OpenID providers an instance keeps built (least recently built out first). */
      oidcProviderCacheSize: env.OIDC_PROVIDER_CACHE_SIZE,
      rateLimit: {
        enabled: env.RATE_LIMIT_ENABLED,
        max: env.RATE_LIMIT_MAX,
        windowMs: env.RATE_LIMIT_WINDOW_MS,
        /** Requests a minute per environment API secret (adenv_: AuthZEN, trust-store runtime) unless it sets rateLimitPerMinute. */
        apiSecretMax: env.RATE_LIMIT_API_SECRET_MAX,
        /** Requests a minute per provisioning token (adscim_, adhris_) unless it sets rateLimitPerMinute. */
        provisioningTokenMax: env.RATE_LIMIT_PROVISIONING_TOKEN_MAX,
        /** Failed authentications a minute per client address on the routes authenticated by a credential. */
        authFailureMax: env.RATE_LIMIT_AUTH_FAILURE_MAX,
        /** How often the counts of this instance are added to those of the others (rate_limit_windows). */
        syncIntervalMs: env.RATE_LIMIT_SYNC_INTERVAL_MS,
      },
      trustProxy: env.TRUST_PROXY,
      webhooks: {
        scheduleMs: env.WEBHOOK_RETRY_SCHEDULE,
        timeoutMs: env.WEBHOOK_TIMEOUT_MS,
        disableAfterMs: env.WEBHOOK_DISABLE_AFTER,
        secretOverlapMs: env.WEBHOOK_SECRET_OVERLAP,
        dispatchPollMs: env.DISPATCH_POLL_MS,
        /** Unset: as many as one attempt of a batch sends within its activity timeout (worker/dispatcher.ts). */
        batchSize: env.DELIVERY_BATCH_SIZE,
        /**
         * Bounded fan-out: endpoints a tenant may have (409 beyond), and deliveries that may wait for a retry to one endpoint
         * or to a tenant's endpoints together; beyond either, the dispatcher disables the endpoint with the largest backlog
         * (reason `backlog`, with an event), and enabling it again redelivers what was waiting.
         */
        limits: {
          endpointsPerTenant: env.WEBHOOK_MAX_ENDPOINTS_PER_TENANT,
          pendingPerEndpoint: env.WEBHOOK_MAX_PENDING_PER_ENDPOINT,
          pendingPerTenant: env.WEBHOOK_MAX_PENDING_PER_TENANT,
        },
      },
      /** Messages sent through providers: the delays before each attempt at one provider (then the next provider). */
      messages: { retryScheduleMs: env.MESSAGE_RETRY_SCHEDULE },
      /** Back-channel logout of the clients of revoked sessions: the delays before each attempt (then it gives up). */
      backChannelLogout: { scheduleMs: env.BACK_CHANNEL_LOGOUT_SCHEDULE },
      processSweepIntervalMs: env.PROCESS_SWEEP_INTERVAL,
      /** On SIGTERM: how long the instance answers not-ready while still serving, before it closes its listener. */
      shutdownDrainDelayMs: env.SHUTDOWN_DRAIN_DELAY,
      /** A listener of its own serving GET /metrics without a token; off unless METRICS_PORT is set. */
      /** OpenTelemetry traces over OTLP/HTTP (lib/telemetry.ts); off unless the endpoint is set. */
      telemetry: { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME },
      metricsListener: env.METRICS_PORT === undefined ? undefined : { host: env.METRICS_HOST, port: env.METRICS_PORT },
      /** The Temporal worker's listener serving its own GET /metrics; off unless WORKER_METRICS_PORT is set. */
      workerMetricsListener: env.WORKER_METRICS_PORT === undefined ? undefined : { host: env.METRICS_HOST, port: env.WORKER_METRICS_PORT },
      /** The deployment's OIDC clean-up process: the pause between two rounds, and the rounds of one run (then it continues as new). */
      oidcCleanup: { intervalMs: env.OIDC_CLEANUP_INTERVAL_SECONDS * 1000, rounds: env.OIDC_CLEANUP_ROUNDS_PER_RUN },
      /** The deployment's retention process: monthly partitions created ahead, expired ones dropped (docs/operations.md). */
      retention: {
        intervalMs: env.RETENTION_INTERVAL,
        rounds: env.RETENTION_ROUNDS_PER_RUN,
        monthsAhead: env.RETENTION_MONTHS_AHEAD,
        retentionMs: {
          events: env.EVENTS_RETENTION,
          auditLogs: env.AUDIT_LOG_RETENTION,
          decisions: env.AUTHZEN_DECISION_LOG_RETENTION,
          deliveries: env.DELIVERIES_RETENTION,
        },
        processHistoryMs: env.PROCESS_HISTORY_RETENTION,
      },
      dnsServers: env.DNS_SERVERS ?? [],
      /** How long a rotated-out environment API secret keeps working when the rotation does not say. */
      apiSecretRotationGraceMs: env.API_SECRET_ROTATION_GRACE,
      /** Trust store: how long a rotated-out key keeps verifying when the rotation does not say; the deadline of a tools/list read. */
      trustStore: { keyRotationGraceMs: env.TRUST_STORE_KEY_ROTATION_GRACE, verifyTimeoutMs: env.MCP_VERIFY_TIMEOUT_MS },
      domains: { verificationIntervalsMs: env.DOMAIN_VERIFICATION_INTERVALS, verificationGiveUpMs: env.DOMAIN_VERIFICATION_GIVE_UP },
      /** Vanity domains: the HTTPS listener (off unless HTTPS_PORT), the CNAME target, the ACME CA, and the process's durations. */
      vanity: {
        httpsPort: env.HTTPS_PORT,
        cnameTarget: (env.VANITY_CNAME_TARGET ?? new URL(publicBaseUrl).hostname).toLowerCase(),
        acme: { directoryUrl: env.VANITY_ACME_DIRECTORY_URL, caFile: env.VANITY_ACME_CA_FILE },
        timings: { dnsIntervalMs: env.VANITY_DNS_INTERVAL, dnsGiveUpMs: env.VANITY_DNS_GIVE_UP, renewBeforeMs: env.VANITY_RENEW_BEFORE },
      },
      /** Billing: the pause between two Stripe syncs of an environment, unless `POST …/billing/sync` names another. */
      billing: { syncIntervalMs: env.BILLING_SYNC_INTERVAL },
      providers: { pagerduty: env.PAGERDUTY_EVENTS_URL.replace(/\/$/, ''), datadog: env.DATADOG_API_URL?.replace(/\/$/, '') ?? null },
      fga: {
        /** Compiled authorization models an instance keeps (least recently used out first). */
        modelCacheSize: env.FGA_MODEL_CACHE_SIZE,
        /** Tuple look-ups an instance keeps per environment (least recently used out first; dropped on any change). */
        tupleCacheSize: env.FGA_TUPLE_CACHE_SIZE,
        /** Environments whose tuple look-ups an instance keeps. */
        tupleCacheEnvironments: env.FGA_TUPLE_CACHE_ENVIRONMENTS,
      },
      /** The AuthZEN decision log: decisions per second logged in full, the share kept beyond, the buffer's cap, how long rows are kept. */
      decisionLog: {
        fullRate: env.AUTHZEN_DECISION_LOG_FULL_RATE,
        sampleRate: env.AUTHZEN_DECISION_LOG_SAMPLE_RATE,
        bufferMax: env.AUTHZEN_DECISION_LOG_BUFFER_MAX,
        retentionMs: env.AUTHZEN_DECISION_LOG_RETENTION,
      },
      /** MCP runtime events accepted per second and environment, per instance (POST /v1/mcp/events). */
      mcpEventsRateLimit: env.MCP_EVENTS_RATE_LIMIT,
      bootstrap: {
        clientId: env.BOOTSTRAP_CLIENT_ID,
        clientSecret: env.BOOTSTRAP_CLIENT_SECRET,
        adminEmail: env.BOOTSTRAP_ADMIN_EMAIL,
      },
    };
  });

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; an invalid value throws a ConfigError whose message is one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset", as in most .env tooling.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(present);
  if (parsed.success) {
    if (parsed.data.processEngine === 'temporal' && !parsed.data.temporalAddress) {
      throw new ConfigError('Invalid configuration: TEMPORAL_ADDRESS is required when PROCESS_ENGINE=temporal');
    }
    // A delivery's month must outlive its retries (docs/operations.md, "Retention and partitions").
    const retryMs = parsed.data.webhooks.scheduleMs.reduce((total, ms) => total + ms, 0);
    const keptMs = parsed.data.retention.retentionMs.deliveries;
    if (keptMs <= retryMs) {
      throw new ConfigError(
        `Invalid configuration: DELIVERIES_RETENTION (${formatConfigDuration(keptMs)}) must be longer than the whole WEBHOOK_RETRY_SCHEDULE ` +
          `(${formatConfigDuration(retryMs)}): deliveries would expire while they are still retried`,
      );
    }
    const { cert, key } = parsed.data.temporalTls;
    if (Boolean(cert) !== Boolean(key)) {
      throw new ConfigError('Invalid configuration: TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (the client certificate and its key)');
    }
    return parsed.data;
  }
  const issue = parsed.error.issues[0];
  const name = String(issue?.path[0] ?? 'environment');
  const shown = /KEY|SECRET|PASSWORD/.test(name) ? '' : ` (got ${JSON.stringify(env[name])})`;
  throw new ConfigError(`Invalid configuration: ${name} ${issue?.message ?? 'is invalid'}${shown}`);
}

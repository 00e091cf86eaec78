// What each configuration variable means, for the generated reference (docs/configuration.md, .env.example).
// Keyed by the variables of the configuration schema: a variable added there without its entry here fails tsc, and
// test/docs/configuration.test.ts checks that each documented default is the schema's own.
import type { z } from 'zod';
import type { configSchema } from './config.ts';

export type ConfigVariable = keyof z.input<typeof configSchema>;

export const CONFIG_SECTIONS = [
  'Server',
  'Database',
  'Secrets and tokens',
  'Processes and Temporal',
  'Webhooks and notifications',
  'Rate limits',
  'Domains',
  'Billing',
  'Access decisions',
  'MCP',
  'Bootstrap',
] as const;

export interface VariableReference {
  section: (typeof CONFIG_SECTIONS)[number];
  /** The default as a user would write it (it must parse to the schema's default), or null when unset by default. */
  default: string | null;
  /** What leaving it unset means, where that is more than "off" (a computed or generated value). */
  unset?: string;
  /** An example value for .env.example, for a variable without a default. */
  example?: string;
  meaning: string;
}

export const CONFIG_REFERENCE = {
  PORT: { section: 'Server', default: '8080', meaning: 'listening port' },
  HOST: { section: 'Server', default: '127.0.0.1', meaning: 'listening address' },
  METRICS_PORT: {
    section: 'Server',
    default: null,
    unset: 'no metrics listener: `GET /metrics` on `PORT` only, with a token holding `metrics:read`',
    example: '9464',
    meaning: 'a second listener serving `GET /metrics` (Prometheus text format) without a token, for a scraper on a private network',
  },
  METRICS_HOST: {
    section: 'Server',
    default: '127.0.0.1',
    meaning: 'the address of the METRICS_PORT listener; keep it off public interfaces (it needs no token)',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    section: 'Server',
    default: null,
    unset: 'no tracing: the OpenTelemetry SDK is not even loaded',
    example: 'http://localhost:4318',
    meaning:
      'the OTLP/HTTP receiver (an OpenTelemetry Collector, Jaeger, Tempo) traces are sent to as JSON, at `<endpoint>/v1/traces`: ' +
      'request, query, process, activity and outbound HTTP spans (docs/operations.md, Traces)',
  },
  OTEL_SERVICE_NAME: {
    section: 'Server',
    default: null,
    unset: '`iam-api` for `npm start`, `iam-worker` for `npm run worker`',
    meaning: "the traces' `service.name`",
  },
  SHUTDOWN_DRAIN_DELAY: {
    section: 'Server',
    default: '0s',
    meaning:
      'on SIGTERM, how long `/v1/health/ready` answers 503 while requests are still served, before the listener closes: set it ' +
      "above the load balancer's probe interval (e.g. `10s` behind Kubernetes) so no request reaches a closed instance",
  },
  DATA_DIR: { section: 'Server', default: './.data', meaning: 'embedded Postgres data, `master.key`, `bootstrap.json`' },
  PUBLIC_BASE_URL: {
    section: 'Server',
    default: null,
    unset: '`http://HOST:PORT`',
    example: 'https://iam.example.com',
    meaning: 'the URL clients reach the service at: issuer of access tokens, servers of the OpenAPI document, SCIM locations',
  },
  LOG_LEVEL: { section: 'Server', default: 'info', meaning: 'pino level (`fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`); secrets are redacted' },
  TRUST_PROXY: {
    section: 'Server',
    default: 'false',
    meaning:
      'which reverse proxies may set `X-Forwarded-For` (the client address of rate limits and audit logs): `true` (any peer: only when the service is reachable through the proxy alone), a number of proxy hops to trust, or a comma list of proxy IPs and CIDR ranges (`10.0.0.0/8,fd00::/8`; also `loopback`, `linklocal`, `uniquelocal`)',
  },
  ALLOW_PRIVATE_NETWORK_TARGETS: {
    section: 'Server',
    default: 'false',
    meaning:
      'allow outbound calls (webhooks, notification channels, metadata URLs, MCP servers) to private, loopback and link-local addresses: for development and tests',
  },
  DATABASE_URL: {
    section: 'Database',
    default: null,
    unset: 'an embedded Postgres in `DATA_DIR/pg` on a free port',
    example: 'postgres://user:password@host:5432/iam',
    meaning: 'an external Postgres',
  },
  DATABASE_POOL_SIZE: { section: 'Database', default: '10', meaning: 'connections in the pool' },
  PG_BIN_DIR: {
    section: 'Database',
    default: null,
    unset: "`.pg-tools/bin`, else `PATH`; when neither has a client as new as the server, Debian's is installed into `.pg-tools/`",
    example: '/usr/lib/postgresql/18/bin',
    meaning:
      'the directory `npm run db:backup` and `db:restore` take `pg_dump` and `pg_restore` from (only there when set): a PostgreSQL client at least as new as the server',
  },
  MASTER_KEY: {
    section: 'Secrets and tokens',
    default: null,
    unset: 'generated into `DATA_DIR/master.key`',
    example: '<64 hex characters>',
    meaning: '32 bytes (64 hex characters or base64) encrypting secrets at rest (AES-256-GCM)',
  },
  ACCESS_TOKEN_TTL_SECONDS: { section: 'Secrets and tokens', default: '900', meaning: 'lifetime of access tokens (at most 86400)' },
  OIDC_PROVIDER_CACHE_SIZE: {
    section: 'Secrets and tokens',
    default: '100',
    meaning: "how many environments' OpenID providers an instance keeps built in memory (each is rebuilt on its next use after a change)",
  },
  API_SECRET_ROTATION_GRACE: {
    section: 'Secrets and tokens',
    default: '24h',
    meaning: 'how long a rotated-out environment API secret or provisioning token keeps working when the rotation does not say (at most `30d`)',
  },
  TRUST_STORE_KEY_ROTATION_GRACE: {
    section: 'Secrets and tokens',
    default: '24h',
    meaning: 'how long the previously active keys of a trust-store entry keep verifying (`retiring`) after a rotation that does not say (at most `30d`)',
  },
  PROCESS_ENGINE: {
    section: 'Processes and Temporal',
    default: null,
    unset: '`temporal` when `TEMPORAL_ADDRESS` is set, else `embedded`',
    example: 'embedded',
    meaning: 'the durable process engine: `embedded` (DBOS on the service’s Postgres) or `temporal`',
  },
  TEMPORAL_ADDRESS: { section: 'Processes and Temporal', default: null, example: 'temporal:7233', meaning: '`host:port` of the Temporal frontend' },
  TEMPORAL_NAMESPACE: { section: 'Processes and Temporal', default: 'default', meaning: 'Temporal namespace' },
  TEMPORAL_METRICS_ADDRESS: {
    section: 'Processes and Temporal',
    default: null,
    example: '0.0.0.0:9464',
    meaning: '`host:port` where the Temporal worker serves Prometheus metrics at `/metrics` (worker only)',
  },
  WORKER_METRICS_PORT: {
    section: 'Processes and Temporal',
    default: null,
    unset: "the worker serves no metrics of its own (the Temporal SDK's stay on TEMPORAL_METRICS_ADDRESS)",
    example: '9465',
    meaning:
      'a listener of the Temporal worker (`npm run worker`) serving `GET /metrics` without a token: process starts, ends and delivery ' +
      'outcomes of the processes it runs, Node event-loop lag and heap; on METRICS_HOST',
  },
  WORKFLOW_BUNDLE: {
    section: 'Processes and Temporal',
    default: null,
    unset: '`dist/workflows-bundle.js` (written by `npm run build:workflows`)',
    example: '/srv/iam/workflows-bundle.js',
    meaning: 'the prebuilt workflow bundle the Temporal worker loads (worker only)',
  },
  TEMPORAL_TLS_CERT: {
    section: 'Processes and Temporal',
    default: null,
    example: '/path/client.pem',
    meaning: 'mTLS to the Temporal server: the client certificate (PEM; with `TEMPORAL_TLS_KEY`)',
  },
  TEMPORAL_TLS_KEY: {
    section: 'Processes and Temporal',
    default: null,
    example: '/path/client.key',
    meaning: 'mTLS to the Temporal server: the client certificate’s key (PEM; with `TEMPORAL_TLS_CERT`)',
  },
  TEMPORAL_TLS_CA: {
    section: 'Processes and Temporal',
    default: null,
    unset: 'the system’s CAs',
    example: '/path/ca.pem',
    meaning: 'the CA certificate that signed the Temporal server’s certificate',
  },
  TEMPORAL_API_KEY: { section: 'Processes and Temporal', default: null, example: '<Temporal Cloud API key>', meaning: 'Temporal Cloud API key (implies TLS)' },
  WORKER_SHUTDOWN_GRACE: {
    section: 'Processes and Temporal',
    default: '30s',
    meaning: 'Temporal worker: on SIGTERM, how long running activities may finish before they are cancelled',
  },
  PROCESS_SWEEP_INTERVAL: {
    section: 'Processes and Temporal',
    default: '5m',
    meaning: 'how often the sweeper restarts the process of any pending row (invitation, domain, delivery, grant, key…) whose process failed or is missing',
  },
  OIDC_CLEANUP_INTERVAL_SECONDS: {
    section: 'Processes and Temporal',
    default: '300',
    meaning:
      "seconds between two rounds of the OIDC clean-up process (expired provider records, old password links and directory sessions, signing keys' retirement)",
  },
  OIDC_CLEANUP_ROUNDS_PER_RUN: {
    section: 'Processes and Temporal',
    default: '24',
    meaning: 'rounds one run of the OIDC clean-up process makes before it starts its next run and ends, which keeps its workflow history short (at most 200)',
  },
  RETENTION_INTERVAL: {
    section: 'Processes and Temporal',
    default: '1h',
    meaning: 'how often the retention process creates monthly partitions ahead and drops expired ones (docs/operations.md, "Retention and partitions")',
  },
  RETENTION_ROUNDS_PER_RUN: {
    section: 'Processes and Temporal',
    default: '24',
    meaning: 'rounds one run of the retention process makes before it starts its next run and ends, which keeps its workflow history short (at most 200)',
  },
  RETENTION_MONTHS_AHEAD: {
    section: 'Processes and Temporal',
    default: '2',
    meaning: 'monthly partitions of events, audit entries, decision logs and deliveries kept created ahead of the current month (at most 24)',
  },
  EVENTS_RETENTION: {
    section: 'Processes and Temporal',
    default: '400d',
    meaning: 'events are kept at least this long: a month of events is dropped whole once it ended longer ago than this',
  },
  AUDIT_LOG_RETENTION: {
    section: 'Processes and Temporal',
    default: '400d',
    meaning: 'audit log entries are kept at least this long: a month of entries is dropped whole once it ended longer ago than this',
  },
  DELIVERIES_RETENTION: {
    section: 'Processes and Temporal',
    default: '30d',
    meaning:
      'deliveries (webhook endpoints, notification channels, forwarding add-ons) and their attempts are kept at least this long: a month of them is dropped whole once it ended longer ago than this and none of it is still pending; must be longer than the whole `WEBHOOK_RETRY_SCHEDULE`',
  },
  PROCESS_HISTORY_RETENTION: {
    section: 'Processes and Temporal',
    default: '7d',
    meaning:
      'embedded engine: the records of processes that finished longer ago than this are deleted by the retention process (on Temporal, the namespace retention period does this)',
  },
  WEBHOOK_RETRY_SCHEDULE: {
    section: 'Webhooks and notifications',
    default: '0,5s,5m,30m,2h,5h,10h,10h',
    meaning: 'delays before each delivery attempt (`ms`, `s`, `m`, `h`, `d`)',
  },
  MESSAGE_RETRY_SCHEDULE: {
    section: 'Webhooks and notifications',
    default: '0,10s,1m',
    meaning:
      'delays before each attempt to send a message (codes, links, invitations) through one provider (`ms`, `s`, `m`, `h`); a transient failure waits for the next, a refusal or the last failure moves to the next provider',
  },
  BACK_CHANNEL_LOGOUT_SCHEDULE: {
    section: 'Webhooks and notifications',
    default: '0,10s,1m,5m,30m,2h',
    meaning:
      'delays before each attempt to post a logout token to a client of a revoked session (`ms`, `s`, `m`, `h`); no answer, 408, 429 or a 5xx waits for the next, a refusal or the last failure gives up (`session.back_channel_logout_failed`)',
  },
  WEBHOOK_TIMEOUT_MS: { section: 'Webhooks and notifications', default: '15000', meaning: 'timeout of one delivery attempt (at most 60000)' },
  WEBHOOK_DISABLE_AFTER: { section: 'Webhooks and notifications', default: '5d', meaning: 'disable an endpoint whose every delivery failed this long' },
  WEBHOOK_SECRET_OVERLAP: { section: 'Webhooks and notifications', default: '24h', meaning: 'how long a rotated-out signing secret keeps signing' },
  WEBHOOK_MAX_ENDPOINTS_PER_TENANT: {
    section: 'Webhooks and notifications',
    default: '50',
    meaning: 'webhook endpoints a tenant may have; one more is 409 `webhook.limit_reached`',
  },
  WEBHOOK_MAX_PENDING_PER_ENDPOINT: {
    section: 'Webhooks and notifications',
    default: '1000',
    meaning: 'deliveries that may wait for a retry to one endpoint; beyond it the endpoint is disabled (`backlog`) until re-enabled',
  },
  WEBHOOK_MAX_PENDING_PER_TENANT: {
    section: 'Webhooks and notifications',
    default: '10000',
    meaning: 'deliveries that may wait for a retry to all the endpoints of a tenant; beyond it the endpoints with the largest backlogs are disabled',
  },
  DISPATCH_POLL_MS: { section: 'Webhooks and notifications', default: '1000', meaning: 'the dispatcher’s safety poll (it is woken by NOTIFY at commit)' },
  DELIVERY_BATCH_SIZE: {
    section: 'Webhooks and notifications',
    default: null,
    unset: 'as many as one attempt sends in 2 minutes (512 with the default timeout)',
    example: '512',
    meaning: 'deliveries per first-attempt batch process (at most 1000)',
  },
  PAGERDUTY_EVENTS_URL: { section: 'Webhooks and notifications', default: 'https://events.pagerduty.com', meaning: 'PagerDuty Events API base URL' },
  DATADOG_API_URL: {
    section: 'Webhooks and notifications',
    default: null,
    unset: '`https://api.<site>` of the channel',
    example: 'https://api.datadoghq.eu',
    meaning: 'Datadog API base URL override',
  },
  RATE_LIMIT_ENABLED: { section: 'Rate limits', default: 'true', meaning: 'rate limiting of the API' },
  RATE_LIMIT_MAX: {
    section: 'Rate limits',
    default: '600',
    meaning: 'requests per window per principal of the management API (per client address before authentication)',
  },
  RATE_LIMIT_WINDOW_MS: { section: 'Rate limits', default: '60000', meaning: 'the rate limit window' },
  RATE_LIMIT_API_SECRET_MAX: {
    section: 'Rate limits',
    default: '1200000',
    meaning: 'requests a minute per environment API secret (`adenv_…`: AuthZEN, trust-store runtime, MCP events), unless the secret sets `rateLimitPerMinute`',
  },
  RATE_LIMIT_PROVISIONING_TOKEN_MAX: {
    section: 'Rate limits',
    default: '6000',
    meaning: 'requests a minute per provisioning token (SCIM, HRIS), unless the token sets `rateLimitPerMinute`',
  },
  RATE_LIMIT_AUTH_FAILURE_MAX: {
    section: 'Rate limits',
    default: '60',
    meaning:
      'failed authentications a minute per client address on the routes of API secrets, provisioning tokens and Slack; beyond it only credentials the instance already verified get through',
  },
  RATE_LIMIT_SYNC_INTERVAL_MS: {
    section: 'Rate limits',
    default: '50',
    meaning:
      'how often (ms, at most 1000) an instance adds the requests it counted to the shared counts of every instance, while it has any; a key near its limit waits for the next sync instead',
  },
  DNS_SERVERS: {
    section: 'Domains',
    default: null,
    unset: 'the system’s resolvers',
    example: '1.1.1.1,[2606:4700:4700::1111]:53',
    meaning: 'comma list of `ip` or `ip:port` (`[ipv6]:port`) asked for domain verification TXT records',
  },
  DOMAIN_VERIFICATION_INTERVALS: {
    section: 'Domains',
    default: '1m,5m,15m,1h,6h',
    meaning: 'delays between TXT checks of a new tenant domain; the last repeats',
  },
  DOMAIN_VERIFICATION_GIVE_UP: {
    section: 'Domains',
    default: '7d',
    meaning: 'stop checking (event `tenant.domain.verification_failed`; the domain stays unverified and `POST …/verify` can still verify it)',
  },
  HTTPS_PORT: {
    section: 'Domains',
    default: null,
    unset: 'no HTTPS listener',
    example: '8443',
    meaning:
      'port of the HTTPS listener (on HOST) that terminates TLS for active vanity domains, picking each certificate by SNI; it serves the same API and OpenID providers',
  },
  VANITY_CNAME_TARGET: {
    section: 'Domains',
    default: null,
    unset: 'the host of PUBLIC_BASE_URL',
    example: 'auth.example.net',
    meaning: 'the host a vanity domain’s CNAME record must point to',
  },
  VANITY_ACME_DIRECTORY_URL: {
    section: 'Domains',
    default: 'https://acme-v02.api.letsencrypt.org/directory',
    meaning: 'the ACME (RFC 8555) directory vanity domain certificates are obtained from (Let’s Encrypt; its staging directory to try)',
  },
  VANITY_ACME_CA_FILE: {
    section: 'Domains',
    default: null,
    unset: 'the system’s trusted roots',
    example: '/etc/iam/acme-ca.pem',
    meaning: 'PEM file of CA certificates trusted, beside the system’s, for the ACME directory’s own HTTPS (a private CA, Pebble in tests)',
  },
  VANITY_DNS_INTERVAL: { section: 'Domains', default: '1m', meaning: 'pause between two checks of a new vanity domain’s CNAME and TXT records' },
  VANITY_DNS_GIVE_UP: {
    section: 'Domains',
    default: '7d',
    meaning: 'a vanity domain whose records are still missing this long after registration (or a re-check) fails (`vanity_domain.failed`)',
  },
  VANITY_RENEW_BEFORE: { section: 'Domains', default: '30d', meaning: 'renew a vanity domain’s certificate this long before it expires' },
  BILLING_SYNC_INTERVAL: {
    section: 'Billing',
    default: '1h',
    meaning:
      'the pause between two Stripe syncs of an environment with an active `stripe` add-on (push catalog, pull subscriptions); `POST …/billing/sync` syncs at once',
  },
  AUTHZEN_DECISION_LOG_FULL_RATE: {
    section: 'Access decisions',
    default: '1000',
    meaning: 'AuthZEN decisions per second (per instance) written to the decision log in full',
  },
  AUTHZEN_DECISION_LOG_SAMPLE_RATE: {
    section: 'Access decisions',
    default: '0.1',
    meaning: 'share of the decisions beyond that rate written to the log, in (0, 1]; `1` logs every decision',
  },
  AUTHZEN_DECISION_LOG_BUFFER_MAX: {
    section: 'Access decisions',
    default: '10000',
    meaning: 'decisions waiting in memory for the next write (every 500 ms or 500 rows); beyond it they are dropped, with a warning counting them',
  },
  AUTHZEN_DECISION_LOG_RETENTION: {
    section: 'Access decisions',
    default: '30d',
    meaning: 'decision log rows older than this are deleted (checked at most once an hour); whole months past it are dropped by the retention process',
  },
  FGA_MODEL_CACHE_SIZE: {
    section: 'Access decisions',
    default: '1000',
    meaning: 'compiled FGA authorization models an instance keeps in memory (models never change; least recently used out first)',
  },
  FGA_TUPLE_CACHE_SIZE: {
    section: 'Access decisions',
    default: '10000',
    meaning:
      'FGA tuple look-ups an instance caches per environment (least recently used out first); a change to the store drops them on every instance, and `consistency: HIGHER_CONSISTENCY` bypasses them',
  },
  FGA_TUPLE_CACHE_ENVIRONMENTS: {
    section: 'Access decisions',
    default: '100',
    meaning: 'environments whose FGA tuple look-ups an instance caches (least recently used out first)',
  },
  MCP_VERIFY_TIMEOUT_MS: {
    section: 'MCP',
    default: '10000',
    meaning: 'deadline of one MCP server verification (connect, initialize, every page of `tools/list`; at most 60000)',
  },
  MCP_EVENTS_RATE_LIMIT: {
    section: 'MCP',
    default: '5000',
    meaning: 'MCP runtime events (`POST /v1/mcp/events`) accepted per second and environment, per instance; beyond it 429 with `Retry-After`',
  },
  BOOTSTRAP_CLIENT_ID: {
    section: 'Bootstrap',
    default: null,
    unset: '`bootstrap-admin`',
    example: 'bootstrap-admin',
    meaning: 'client id of the bootstrap service account',
  },
  BOOTSTRAP_CLIENT_SECRET: {
    section: 'Bootstrap',
    default: null,
    unset: 'generated',
    example: 'adsa_…',
    meaning: 'preset secret (`adsa_…`) of the bootstrap service account',
  },
  BOOTSTRAP_ADMIN_EMAIL: { section: 'Bootstrap', default: 'admin@localhost', meaning: 'email (and user name) of the operator user' },
} satisfies Record<ConfigVariable, VariableReference>;

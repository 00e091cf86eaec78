// The service's configuration, parsed once from the environment at start.
// It lives in db/ because db/ is the one leaf layer that api/, activities/, worker/ and scripts/ may all import.
import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const port = z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(0, 'must be 0..65535').max(65535, 'must be 0..65535');
const positiveInt = z.coerce.number({ error: 'must be a number' }).int('must be an integer').positive('must be positive');

export const configSchema = z
  .object({
    PORT: port.default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATA_DIR: z.string().min(1).default('./.data'),
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
    DATABASE_POOL_SIZE: positiveInt.default(10),
    MASTER_KEY: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$|^[A-Za-z0-9+/]{43}=$/, 'must be 32 bytes as 64 hex characters or base64')
      .optional(),
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    PROCESS_ENGINE: z.enum(['embedded', 'temporal']).optional(),
    TEMPORAL_ADDRESS: z.string().regex(/^[^\s:]+:\d+$/, 'must be host:port').optional(),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    ALLOW_PRIVATE_NETWORK_TARGETS: bool.default(false),
    ACCESS_TOKEN_TTL_SECONDS: positiveInt.max(86_400, 'must be at most 86400').default(900),
    RATE_LIMIT_ENABLED: bool.default(true),
    RATE_LIMIT_MAX: positiveInt.default(600),
    RATE_LIMIT_WINDOW_MS: positiveInt.default(60_000),
    BOOTSTRAP_CLIENT_ID: z.string().regex(/^[A-Za-z0-9_.-]{8,128}$/, 'must be 8-128 characters of A-Z a-z 0-9 _ . -').optional(),
    BOOTSTRAP_CLIENT_SECRET: z.string().regex(/^adsa_[A-Za-z0-9]{20,}$/, 'must start with adsa_ followed by at least 20 letters or digits').optional(),
    BOOTSTRAP_ADMIN_EMAIL: z.email({ error: 'must be an email address' }).default('admin@localhost'),
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
      masterKey: env.MASTER_KEY,
      publicBaseUrl,
      logLevel: env.LOG_LEVEL,
      processEngine: env.PROCESS_ENGINE ?? (env.TEMPORAL_ADDRESS ? 'temporal' : 'embedded'),
      temporalAddress: env.TEMPORAL_ADDRESS,
      temporalNamespace: env.TEMPORAL_NAMESPACE,
      allowPrivateNetworkTargets: env.ALLOW_PRIVATE_NETWORK_TARGETS,
      accessTokenTtlSeconds: env.ACCESS_TOKEN_TTL_SECONDS,
      rateLimit: { enabled: env.RATE_LIMIT_ENABLED, max: env.RATE_LIMIT_MAX, windowMs: env.RATE_LIMIT_WINDOW_MS },
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
    return parsed.data;
  }
  const issue = parsed.error.issues[0];
  const name = String(issue?.path[0] ?? 'environment');
  const shown = /KEY|SECRET|PASSWORD/.test(name) ? '' : ` (got ${JSON.stringify(env[name])})`;
  throw new ConfigError(`Invalid configuration: ${name} ${issue?.message ?? 'is invalid'}${shown}`);
}

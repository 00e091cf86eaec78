// The environment's session config (SPEC: a free-form object). These keys shape the OpenID provider; any other key
// is kept as given and ignored. Lifetimes are in seconds.
import { z } from 'zod';

const seconds = (max: number) => z.number().int().min(60).max(max);
const DAY = 86_400;

export const SessionConfig = z.looseObject({
  /** A session ends this long after sign-in, whatever the activity. */
  absoluteLifetimeSeconds: seconds(400 * DAY).optional(),
  /** A session ends after this long without use (a sign-in or a token refresh through it). */
  idleLifetimeSeconds: seconds(400 * DAY).optional(),
  /** Whether the login page offers "remember me"; without it (or unticked) the session cookie ends with the browser. */
  rememberMe: z.boolean().optional(),
  accessTokenLifetimeSeconds: seconds(DAY).optional(),
  idTokenLifetimeSeconds: seconds(DAY).optional(),
  refreshTokenLifetimeSeconds: seconds(400 * DAY).optional(),
  /** How long "remember this device" spares a user the second factor on that browser; null: devices are never remembered. */
  rememberDeviceSeconds: seconds(400 * DAY)
    .nullable()
    .optional(),
});
export type SessionConfig = z.infer<typeof SessionConfig>;

/** What applies when a key is absent. */
export const SESSION_DEFAULTS = {
  absoluteLifetimeSeconds: 14 * DAY,
  idleLifetimeSeconds: 3 * DAY,
  rememberMe: true,
  accessTokenLifetimeSeconds: 3600,
  idTokenLifetimeSeconds: 3600,
  refreshTokenLifetimeSeconds: 30 * DAY,
  rememberDeviceSeconds: null,
} as const;

/** The stored config with the defaults filled in. */
export function effectiveSessionConfig(stored: unknown): Required<Pick<SessionConfig, keyof typeof SESSION_DEFAULTS>> {
  const parsed = SessionConfig.safeParse(stored ?? {});
  const given = parsed.success ? parsed.data : {};
  return {
    absoluteLifetimeSeconds: given.absoluteLifetimeSeconds ?? SESSION_DEFAULTS.absoluteLifetimeSeconds,
    idleLifetimeSeconds: given.idleLifetimeSeconds ?? SESSION_DEFAULTS.idleLifetimeSeconds,
    rememberMe: given.rememberMe ?? SESSION_DEFAULTS.rememberMe,
    accessTokenLifetimeSeconds: given.accessTokenLifetimeSeconds ?? SESSION_DEFAULTS.accessTokenLifetimeSeconds,
    idTokenLifetimeSeconds: given.idTokenLifetimeSeconds ?? SESSION_DEFAULTS.idTokenLifetimeSeconds,
    refreshTokenLifetimeSeconds: given.refreshTokenLifetimeSeconds ?? SESSION_DEFAULTS.refreshTokenLifetimeSeconds,
    rememberDeviceSeconds: given.rememberDeviceSeconds ?? SESSION_DEFAULTS.rememberDeviceSeconds,
  };
}

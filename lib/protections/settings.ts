// The settings of an environment's sign-in protection policies (issue 19, SPEC "Environment settings"): one schema per
// policy with the defaults a key left out takes on a save. A policy never saved is off (`null` in the API and in the
// Provider snapshot); the sign-in pages read the saved settings from the snapshot (db/oidc/provider/snapshot.ts).
import { z } from 'zod';

export const DOMAIN_LIST_MAX = 1000;

const bool = (description: string) => z.boolean().describe(description);

export const BreachedPasswordSettings = z.strictObject({
  enabled: bool('Whether new passwords are checked against the shipped list of common and breached passwords.').default(false),
  checkOnSignup: bool('Check the password chosen at sign-up.').default(true),
  checkOnChange: bool('Check a password set by a reset, a change or the directory API.').default(true),
  mode: z
    .enum(['warn', 'block'])
    .describe('`block` refuses the password naming the reason; `warn` lets it through with a notice and a `protection.warned` event.')
    .default('block'),
});

export const BruteForceSettings = z.strictObject({
  enabled: bool('Whether failed passwords are counted per user and per IP address and lock further attempts out.').default(false),
  maxFailures: z.number().int().min(1).max(100).describe('Failures (per user, or per IP address) that lock further attempts out.').default(5),
  lockoutMinutes: z.number().int().min(1).max(1440).describe('How long a lockout lasts, unless an operator unlocks the user first.').default(15),
  progressiveDelay: bool('Each failure before the lockout delays the next attempt a little longer (1 s, 2 s, 4 s … at most 30 s).').default(false),
});

export const BotDetectionSettings = z.strictObject({
  enabled: bool('Whether sign-in, sign-up and password-reset requests are scored for automation.').default(false),
  sensitivity: z.enum(['low', 'medium', 'high']).describe('How few signals make a request look automated.').default('medium'),
  challengeMode: z
    .enum(['silent', 'step_up', 'block'])
    .describe('`silent`: record only; `step_up`: ask for the bot-challenge add-on’s challenge; `block`: refuse.')
    .default('step_up'),
});

export const RateLimitSettings = z.strictObject({
  enabled: bool('Whether attempts are counted per window (shared by every instance, in Postgres).').default(false),
  windowSeconds: z.number().int().min(1).max(86_400).describe('The length of the counting window.').default(60),
  maxAttempts: z.number().int().min(1).max(100_000).describe('Attempts allowed per window and key.').default(10),
  scope: z.enum(['ip', 'ip_user', 'user']).describe('What is counted: per IP address, per IP address and identifier, or per identifier.').default('ip'),
  applySignIn: bool('Count sign-in attempts.').default(true),
  applySignUp: bool('Count sign-up attempts.').default(true),
  applyPasswordReset: bool('Count password-reset requests.').default(true),
  action: z.enum(['challenge', 'deny']).describe('Over the limit: `challenge` asks for the bot challenge, `deny` refuses (429).').default('deny'),
});

export const DeviceRiskSettings = z.strictObject({
  challengeUnrecognized: bool('A sign-in from a device this user has not signed in from asks for a second factor or an emailed code.').default(false),
  impossibleTravel: z
    .enum(['off', 'normal', 'strict'])
    .describe('Compare the IP geolocation of two sign-ins of a user: above the speed threshold (`normal` 1000 km/h, `strict` 500 km/h) asks for a step-up.')
    .default('off'),
});

export const RestrictionsSettings = z.strictObject({
  signupMode: z
    .enum(['open', 'invite_only', 'closed'])
    .describe('`open`: anyone the lists let through may sign up; `invite_only`: only addresses with a pending invitation; `closed`: nobody.')
    .default('open'),
  allowlistEnabled: bool('Only email addresses at the allow-listed domains may sign up (and sign in, with `applyToSignins`).').default(false),
  allowlistDomains: z.string().max(100_000).nullable().describe('Domains, separated by commas, spaces or new lines.').default(null),
  blocklistEnabled: bool('Email addresses at the block-listed domains (and their subdomains) may not sign up.').default(false),
  blocklistDomains: z.string().max(100_000).nullable().describe('Domains, separated by commas, spaces or new lines.').default(null),
  applyToSignins: bool('Apply the lists, sub-address and disposable-domain rules to sign-ins as well.').default(false),
  blockEmailSubaddresses: bool('Refuse addresses with a `+tag` sub-address.').default(false),
  blockDisposableEmails: bool('Refuse addresses at disposable-mail domains (the `disposable-email-domains-js` list).').default(false),
});

export const PROTECTION_SETTINGS = {
  breached_password: BreachedPasswordSettings,
  brute_force: BruteForceSettings,
  bot_detection: BotDetectionSettings,
  rate_limit: RateLimitSettings,
  device_risk: DeviceRiskSettings,
  restrictions: RestrictionsSettings,
} as const;

export type ProtectionKind = keyof typeof PROTECTION_SETTINGS;
export const PROTECTION_KINDS = Object.keys(PROTECTION_SETTINGS) as ProtectionKind[];
export type ProtectionSettings<K extends ProtectionKind> = z.output<(typeof PROTECTION_SETTINGS)[K]>;

/** The saved settings of each policy an environment has saved (absent: never saved, off). */
export type Protections = { [K in ProtectionKind]?: ProtectionSettings<K> };

/** The domains of a list setting: lowercase, without a leading `@` or dot, de-duplicated, in order. */
export const domainsOf = (list: string | null | undefined): string[] =>
  list
    ? [
        ...new Set(
          list
            .split(/[\s,;]+/)
            .map((d) =>
              d
                .trim()
                .toLowerCase()
                .replace(/^[@.]+/, ''),
            )
            .filter((d) => d !== ''),
        ),
      ]
    : [];

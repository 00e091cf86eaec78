// The six protection policies as the API names them: path segment, response key, OpenAPI names, and the event a save records.
import type { ProtectionKind } from '../../../../lib/protections/settings.ts';
import type { EventType } from '../../../../db/event-catalog.ts';

export interface PolicyRoute {
  kind: ProtectionKind;
  /** After `…/environments/{environmentId}/settings/`. */
  segment: string;
  /** The SPEC's name of the shape (and of its response, plus `Response`). */
  shape: string;
  /** The response's key: `policy`, or `restrictions` for the restrictions. */
  key: 'policy' | 'restrictions';
  title: string;
}

/** The event each policy's save records. */
export const EVENT_OF = {
  breached_password: 'breached_password_policy.updated',
  brute_force: 'brute_force_policy.updated',
  bot_detection: 'bot_detection_policy.updated',
  rate_limit: 'rate_limit_policy.updated',
  device_risk: 'device_risk_policy.updated',
  restrictions: 'environment_restrictions.updated',
} as const satisfies Record<ProtectionKind, EventType>;

export const POLICY_ROUTES: PolicyRoute[] = [
  {
    kind: 'breached_password',
    segment: 'breached-password-policy',
    shape: 'BreachedPasswordPolicy',
    key: 'policy',
    title: 'breached password policy',
  },
  {
    kind: 'brute_force',
    segment: 'brute-force-policy',
    shape: 'BruteForcePolicy',
    key: 'policy',
    title: 'brute force policy',
  },
  {
    kind: 'bot_detection',
    segment: 'bot-detection-policy',
    shape: 'BotDetectionPolicy',
    key: 'policy',
    title: 'bot detection policy',
  },
  { kind: 'rate_limit', segment: 'rate-limit-policy', shape: 'RateLimitPolicy', key: 'policy', title: 'rate limit policy' },
  {
    kind: 'device_risk',
    segment: 'device-risk-policy',
    shape: 'DeviceRiskPolicy',
    key: 'policy',
    title: 'device risk policy',
  },
  {
    kind: 'restrictions',
    segment: 'restrictions',
    shape: 'EnvironmentRestrictions',
    key: 'restrictions',
    title: 'sign-up restrictions',
  },
];

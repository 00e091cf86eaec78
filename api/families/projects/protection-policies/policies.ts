// The six protection policies as the API names them: path segment, response key, OpenAPI names and event type.
import type { ProtectionKind } from '../../../../lib/protections/settings.ts';

export interface PolicyRoute {
  kind: ProtectionKind;
  /** After `…/environments/{environmentId}/settings/`. */
  segment: string;
  /** The SPEC's name of the shape (and of its response, plus `Response`). */
  shape: string;
  /** The response's key: `policy`, or `restrictions` for the restrictions. */
  key: 'policy' | 'restrictions';
  title: string;
  event: `${string}.updated`;
}

export const POLICY_ROUTES: PolicyRoute[] = [
  {
    kind: 'breached_password',
    segment: 'breached-password-policy',
    shape: 'BreachedPasswordPolicy',
    key: 'policy',
    title: 'breached password policy',
    event: 'breached_password_policy.updated',
  },
  {
    kind: 'brute_force',
    segment: 'brute-force-policy',
    shape: 'BruteForcePolicy',
    key: 'policy',
    title: 'brute force policy',
    event: 'brute_force_policy.updated',
  },
  {
    kind: 'bot_detection',
    segment: 'bot-detection-policy',
    shape: 'BotDetectionPolicy',
    key: 'policy',
    title: 'bot detection policy',
    event: 'bot_detection_policy.updated',
  },
  { kind: 'rate_limit', segment: 'rate-limit-policy', shape: 'RateLimitPolicy', key: 'policy', title: 'rate limit policy', event: 'rate_limit_policy.updated' },
  {
    kind: 'device_risk',
    segment: 'device-risk-policy',
    shape: 'DeviceRiskPolicy',
    key: 'policy',
    title: 'device risk policy',
    event: 'device_risk_policy.updated',
  },
  {
    kind: 'restrictions',
    segment: 'restrictions',
    shape: 'EnvironmentRestrictions',
    key: 'restrictions',
    title: 'sign-up restrictions',
    event: 'environment_restrictions.updated',
  },
];

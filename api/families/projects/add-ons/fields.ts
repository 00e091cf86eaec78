// An add-on's config and secrets checked against its kind's schemas, every wrong field named (`body.secrets.secretKey`).
import { BotChallengeConfig, BotChallengeSecrets } from '../../../../lib/challenge/kinds.ts';
import { AnalyticsConfig, AnalyticsSecrets, SegmentConfig, SegmentSecrets } from '../../../../lib/forwarding/kinds.ts';
import { StripeConfig, StripeSecrets } from '../../../../lib/billing/stripe-kind.ts';
import type { AddOnKind } from '../../../../db/add-ons/rows.ts';
import { ApiError, type ErrorDetail } from '../../../errors.ts';
import { issueDetails } from '../../../common/issue-details.ts';

type Fields = Record<string, unknown>;

// Per kind; the analytics and payments kinds of a later issue add their own schemas here.
const SCHEMAS = {
  turnstile: { config: BotChallengeConfig, secrets: BotChallengeSecrets },
  hcaptcha: { config: BotChallengeConfig, secrets: BotChallengeSecrets },
  recaptcha: { config: BotChallengeConfig, secrets: BotChallengeSecrets },
  segment: { config: SegmentConfig, secrets: SegmentSecrets },
  analytics: { config: AnalyticsConfig, secrets: AnalyticsSecrets },
  stripe: { config: StripeConfig, secrets: StripeSecrets },
} satisfies Record<AddOnKind, unknown>;

export const invalidAddOn = (details: ErrorDetail[]) =>
  new ApiError(400, 'add_on.invalid', `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, { details });

/** The kind's parsed config and secrets; a 400 `add_on.invalid` naming every wrong field otherwise. */
export function parseAddOnFields(kind: AddOnKind, config: Fields, secrets: Fields) {
  const c = SCHEMAS[kind].config.safeParse(config);
  const s = SCHEMAS[kind].secrets.safeParse(secrets);
  const details = [...issueDetails('body.config', config, c.error), ...issueDetails('body.secrets', secrets, s.error)];
  if (details.length) throw invalidAddOn(details);
  return { config: c.data as Fields, secrets: s.data as Fields };
}

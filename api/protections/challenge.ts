// The bot challenge the rate limit (`action: challenge`) and bot detection (`step_up`) ask for: the environment's
// active bot-challenge add-on (Turnstile, hCaptcha or reCAPTCHA). A token the widget posted is verified once per
// attempt with the vendor's siteverify (tokens are single-use), so both policies share the answer.
import type { DatabasePool } from 'slonik';
import { decrypt } from '../../lib/crypto.ts';
import { BOT_CHALLENGE_VENDORS, type BotChallengeKind, type BotChallengeWidget } from '../../lib/challenge/kinds.ts';
import { siteverify, type SiteverifyPolicy } from '../../lib/challenge/siteverify.ts';
import { createAddOnQueries } from '../../db/add-ons/queries.ts';
import type { Attempt } from './pipeline.ts';

export type ChallengeState =
  /** No active bot-challenge add-on: the challenge cannot be shown (the policy denies instead). */
  | { state: 'unavailable' }
  /** The posted token passed siteverify: this attempt goes on. */
  | { state: 'passed'; widget: BotChallengeWidget }
  /** No token posted, or one the vendor refused (its error codes) or could not check. */
  | { state: 'required'; widget: BotChallengeWidget; failed: null | { errorCodes: string[]; error: string | null } };

export function createBotChallenge(deps: { pool: DatabasePool; masterKey: Buffer; outbound: SiteverifyPolicy }) {
  const checked = new WeakMap<Attempt, Promise<ChallengeState>>();

  async function check(attempt: Attempt): Promise<ChallengeState> {
    const addOn = await createAddOnQueries(deps.pool, attempt.environmentId).findActiveSealed('bot_challenge');
    if (!addOn?.secretsEncrypted) return { state: 'unavailable' };
    const kind = addOn.kind as BotChallengeKind;
    const widget = { kind, siteKey: String(addOn.config.siteKey) };
    const token = attempt.fields[BOT_CHALLENGE_VENDORS[kind].responseField];
    if (!token) return { state: 'required', widget, failed: null };
    const { secretKey } = JSON.parse(decrypt(deps.masterKey, addOn.secretsEncrypted)) as { secretKey: string };
    const baseUrl = typeof addOn.config.baseUrl === 'string' ? addOn.config.baseUrl : undefined;
    const answer = await siteverify(kind, baseUrl, { secret: secretKey, response: token.slice(0, 4096), remoteIp: attempt.origin.ip ?? null }, deps.outbound);
    if (answer.reached && answer.success) return { state: 'passed', widget };
    const failed = answer.reached ? { errorCodes: answer.errorCodes, error: null } : { errorCodes: [], error: answer.error };
    return { state: 'required', widget, failed };
  }

  return {
    /** Whether the attempt may go on through the challenge, or must show it (memoized per attempt). */
    check(attempt: Attempt): Promise<ChallengeState> {
      let state = checked.get(attempt);
      if (!state) checked.set(attempt, (state = check(attempt)));
      return state;
    },
  };
}

export type BotChallenge = ReturnType<typeof createBotChallenge>;

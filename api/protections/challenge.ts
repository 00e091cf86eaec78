// The bot challenge the rate limit (`action: challenge`) and bot detection (`step_up`) ask for: the environment's
// active bot-challenge add-on (Turnstile, hCaptcha or reCAPTCHA), known from the Provider snapshot (no query to show
// it). A token the widget posted is verified once per attempt with the vendor's siteverify (tokens are single-use),
// so both policies share the answer; only then is the add-on's sealed secret read.
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
    const widget = attempt.botChallenge;
    if (!widget) return { state: 'unavailable' };
    const token = attempt.fields[BOT_CHALLENGE_VENDORS[widget.kind].responseField];
    if (!token) return { state: 'required', widget, failed: null };
    const addOn = await createAddOnQueries(deps.pool, attempt.environmentId).findActiveSealed('bot_challenge');
    // Changed since the Provider was built (a rebuild is on its way): the token is of the old widget.
    if (addOn?.kind !== widget.kind || !addOn.secretsEncrypted) return { state: 'required', widget, failed: { errorCodes: [], error: 'add-on changed' } };
    const kind = addOn.kind as BotChallengeKind;
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

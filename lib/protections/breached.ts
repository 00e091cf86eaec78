// The breached-password check, offline: zxcvbn-ts (`@zxcvbn-ts/core`) with the common-password list of
// `@zxcvbn-ts/language-common` (`passwords-common`: the top of the breached-password corpora, about 49,000 entries,
// and the diceware words) and the English words and names of `@zxcvbn-ts/language-en`. A password is refused when it
// is on the list as a whole (also spelled in l33t or reversed: `P@ssw0rd`) or when zxcvbn scores it below 2
// ("too guessable": under 10^6 guesses). No network call.
//
// Cost: the dictionaries are loaded once, on the first check (0.2–1 s, about 25 MB of heap), not at start-up, so an
// instance where no environment uses the policy pays nothing. One check is 1–2 ms of CPU (about 4 ms for 32 random
// symbols), far below the argon2id hash that follows it. zxcvbn's time grows with the square of the length and with
// each dictionary, so only the first 32 characters are scored (a longer password is at least as strong as its first
// 32 characters), the English lists are merged into one dictionary, and l33t substitutions are capped at 10.
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/** Characters scored; a longer password is scored on its prefix (conservative: more characters only add guesses). */
export const BREACHED_CHECK_MAX_LENGTH = 32;
/** zxcvbn's score (0–4) a password must reach: 2 is "somewhat guessable", at least 10^6 guesses. */
export const BREACHED_MIN_SCORE = 2;

/** Why a password is refused: on the common/breached list, or too guessable. */
export type BreachedMatch = 'listed' | 'guessable';

const ENGLISH = ['commonWords-en', 'firstnames-en', 'lastnames-en', 'wikipedia-en'] as const;

/** The lists merged into one, by rank (the first words of each list first), without repeats. */
const interleave = (lists: readonly (readonly string[])[]) => {
  const out: string[] = [];
  const seen = new Set<string>();
  const longest = Math.max(...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++)
    for (const list of lists) {
      const word = list[i];
      if (word !== undefined && !seen.has(word)) {
        seen.add(word);
        out.push(word);
      }
    }
  return out;
};

let estimator: Promise<ZxcvbnFactory> | undefined;

const load = async () => {
  const [{ ZxcvbnFactory }, common, en] = await Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-en'),
  ]);
  return new ZxcvbnFactory({
    dictionary: { ...common.dictionary, english: interleave(ENGLISH.map((k) => en.dictionary[k])) },
    graphs: common.adjacencyGraphs,
    translations: en.translations,
    l33tMaxSubstitutions: 10,
    maxLength: BREACHED_CHECK_MAX_LENGTH,
  });
};

/** The zxcvbn estimator, built once. */
export const breachedEstimator = () => (estimator ??= load());

/**
 * Whether `password` is on the common/breached list or too guessable; `userInputs` (the user's name and email) count
 * as words an attacker knows. Null when it may be used.
 */
export async function breachedMatch(password: string, userInputs: readonly string[] = []): Promise<BreachedMatch | null> {
  const zxcvbn = await breachedEstimator();
  const scored = password.slice(0, BREACHED_CHECK_MAX_LENGTH);
  const result = zxcvbn.check(scored, userInputs.filter((i) => i !== '').slice(0, 10));
  const whole = scored.length === password.length;
  const listed = result.sequence.some(
    (m) => m.pattern === 'dictionary' && String(m.dictionaryName).startsWith('passwords') && m.i === 0 && m.j === scored.length - 1,
  );
  if (whole && listed) return 'listed';
  return result.score < BREACHED_MIN_SCORE ? 'guessable' : null;
}

// Bot detection's signals, each computed in linear time from one request (and, for the cadence, the last few posts
// of its IP address on this instance), weighed into a score compared with the sensitivity's threshold.
import type { StampReading } from './form-stamp.ts';

export type BotSignal =
  | 'automation_user_agent'
  | 'missing_user_agent'
  | 'missing_accept_language'
  | 'missing_accept'
  | 'missing_form_stamp'
  | 'invalid_form_stamp'
  | 'fast_form'
  | 'rapid_posts'
  | 'regular_interval';

export const SIGNAL_WEIGHTS: Record<BotSignal, number> = {
  automation_user_agent: 3,
  missing_user_agent: 3,
  missing_accept_language: 1,
  missing_accept: 1,
  missing_form_stamp: 1,
  invalid_form_stamp: 2,
  fast_form: 2,
  rapid_posts: 2,
  regular_interval: 2,
};

/** The score from which a request counts as automated. */
export const THRESHOLDS = { low: 4, medium: 3, high: 2 } as const;
export type Sensitivity = keyof typeof THRESHOLDS;

/** Headless browsers, automation drivers and HTTP libraries (one alternation: one linear scan of the header). */
const AUTOMATION =
  /headless|phantomjs|puppeteer|playwright|selenium|webdriver|slimerjs|curl\/|wget\/|httpie|python-requests|python-urllib|python-httpx|aiohttp|scrapy|go-http-client|okhttp|apache-httpclient|java\/|libwww-perl|node-fetch|axios\/|undici|postmanruntime|insomnia|^node$/i;
/** A person needs longer than this to fill a sign-in form. */
export const FAST_FORM_MS = 1500;
/** Posts of one IP address within a second that no person makes. */
export const RAPID_POSTS = 3;
/** Intervals (of the last REGULAR_POSTS - 1) that vary by less than this look scripted. */
export const REGULAR_JITTER_MS = 50;
export const REGULAR_POSTS = 5;
/** … within this span (a script's loop, not a person coming back now and then). */
export const REGULAR_SPAN_MS = 60_000;

export interface BotRequest {
  userAgent: string | undefined;
  acceptLanguage: string | undefined;
  accept: string | undefined;
  stamp: StampReading;
  /** Post times of the same IP address, oldest first, this one last (at most REGULAR_POSTS). */
  posts: readonly number[];
}

export function botSignals(r: BotRequest): BotSignal[] {
  const signals: BotSignal[] = [];
  const ua = r.userAgent?.trim() ?? '';
  if (ua === '') signals.push('missing_user_agent');
  else if (AUTOMATION.test(ua)) signals.push('automation_user_agent');
  if (!r.acceptLanguage?.trim() || r.acceptLanguage.trim() === '*') signals.push('missing_accept_language');
  // A browser's form navigation always asks for HTML; a script sends nothing or `*/*`.
  if (!r.accept?.includes('text/html')) signals.push('missing_accept');
  if (r.stamp.kind === 'missing') signals.push('missing_form_stamp');
  else if (r.stamp.kind === 'invalid') signals.push('invalid_form_stamp');
  else if (r.stamp.ageMs < FAST_FORM_MS) signals.push('fast_form');
  const n = r.posts.length;
  if (n >= RAPID_POSTS && r.posts[n - 1]! - r.posts[n - RAPID_POSTS]! < 1000) signals.push('rapid_posts');
  else if (n >= REGULAR_POSTS && r.posts[n - 1]! - r.posts[0]! < REGULAR_SPAN_MS) {
    let min = Infinity;
    let max = -Infinity;
    for (let i = 1; i < n; i++) {
      const gap = r.posts[i]! - r.posts[i - 1]!;
      min = Math.min(min, gap);
      max = Math.max(max, gap);
    }
    if (max - min < REGULAR_JITTER_MS) signals.push('regular_interval');
  }
  return signals;
}

export const scoreOf = (signals: readonly BotSignal[]) => signals.reduce((sum, s) => sum + SIGNAL_WEIGHTS[s], 0);

/**
 * The last posts of each key (environment and IP address) on this instance: a bounded map, the least recently seen
 * key dropped first. Per instance on purpose: it costs no statement, and the shared count is the rate limit's.
 */
export function createCadence(maxKeys = 10_000) {
  const seen = new Map<string, number[]>();
  return {
    /** Records a post at `now` and answers the key's recent posts, this one last. */
    post(key: string, now: number): readonly number[] {
      const posts = seen.get(key) ?? [];
      seen.delete(key);
      posts.push(now);
      if (posts.length > REGULAR_POSTS) posts.shift();
      seen.set(key, posts);
      if (seen.size > maxKeys) seen.delete(seen.keys().next().value!);
      return posts;
    },
  };
}

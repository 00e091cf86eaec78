// Bot detection's signals (lib/protections/bot-signals.ts) and the form stamp (lib/protections/form-stamp.ts), pure:
// each signal from one request, the cadence of an IP address's posts, and the score against each sensitivity.
import { describe, expect, it } from 'vitest';
import { botSignals, createCadence, scoreOf, THRESHOLDS, type BotRequest } from '../../lib/protections/bot-signals.ts';
import { createFormStamps } from '../../lib/protections/form-stamp.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const browser: BotRequest = {
  userAgent: CHROME,
  acceptLanguage: 'de-CH,de;q=0.9',
  accept: 'text/html,application/xhtml+xml,*/*;q=0.8',
  stamp: { kind: 'valid', ageMs: 9000 },
  posts: [1000],
};

describe('bot signals', () => {
  it('finds none in a browser’s request, and each automation user agent', () => {
    expect(botSignals(browser)).toEqual([]);
    for (const ua of [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
      'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1',
      'curl/8.5.0',
      'python-requests/2.32.3',
      'Go-http-client/1.1',
      'node',
      'okhttp/4.12.0',
    ])
      expect(botSignals({ ...browser, userAgent: ua }), ua).toEqual(['automation_user_agent']);
    expect(botSignals({ ...browser, userAgent: ' ' })).toEqual(['missing_user_agent']);
  });

  it('finds missing browser headers, a missing, forged or too fresh form stamp', () => {
    expect(botSignals({ ...browser, acceptLanguage: undefined, accept: '*/*' })).toEqual(['missing_accept_language', 'missing_accept']);
    expect(botSignals({ ...browser, acceptLanguage: '*' })).toEqual(['missing_accept_language']);
    expect(botSignals({ ...browser, stamp: { kind: 'missing' } })).toEqual(['missing_form_stamp']);
    expect(botSignals({ ...browser, stamp: { kind: 'invalid' } })).toEqual(['invalid_form_stamp']);
    expect(botSignals({ ...browser, stamp: { kind: 'valid', ageMs: 400 } })).toEqual(['fast_form']);
  });

  it('finds rapid posts (3 within a second) and a too regular interval (5 posts, gaps within 50 ms, within a minute)', () => {
    expect(botSignals({ ...browser, posts: [0, 400, 900] })).toEqual(['rapid_posts']);
    expect(botSignals({ ...browser, posts: [0, 600, 1200] })).toEqual([]);
    expect(botSignals({ ...browser, posts: [0, 2000, 4010, 6000, 8020] })).toEqual(['regular_interval']);
    expect(botSignals({ ...browser, posts: [0, 2000, 4500, 6000, 8020] })).toEqual([]);
    expect(botSignals({ ...browser, posts: [0, 20_000, 40_000, 60_000, 80_000] })).toEqual([]);

    const cadence = createCadence(2);
    expect(cadence.post('a', 1)).toEqual([1]);
    for (const at of [2, 3, 4, 5, 6]) cadence.post('a', at);
    expect(cadence.post('a', 7)).toEqual([3, 4, 5, 6, 7]);
    cadence.post('b', 1);
    cadence.post('c', 1); // the least recently seen key (a) goes
    expect(cadence.post('a', 8)).toEqual([8]);
  });

  it('scores against the sensitivity: low 4, medium 3, high 2', () => {
    expect(THRESHOLDS).toEqual({ low: 4, medium: 3, high: 2 });
    expect(scoreOf(['automation_user_agent'])).toBe(3);
    expect(scoreOf(['automation_user_agent', 'missing_accept_language'])).toBe(4);
    expect(scoreOf(['missing_form_stamp', 'missing_accept'])).toBe(2);
  });
});

describe('form stamp', () => {
  it('reads the age of its own stamp, and refuses one forged or of another environment', () => {
    const stamps = createFormStamps(Buffer.alloc(32, 7));
    const stamp = stamps.of('env-1', 1_700_000_000_000);
    expect(stamps.read('env-1', stamp, 1_700_000_002_500)).toEqual({ kind: 'valid', ageMs: 2500 });
    expect(stamps.read('env-2', stamp)).toEqual({ kind: 'invalid' });
    expect(stamps.read('env-1', stamp.replace(/^\d+/, '1600000000000'))).toEqual({ kind: 'invalid' });
    expect(stamps.read('env-1', 'x')).toEqual({ kind: 'invalid' });
    expect(stamps.read('env-1', undefined)).toEqual({ kind: 'missing' });
    expect(createFormStamps(Buffer.alloc(32, 8)).read('env-1', stamp)).toEqual({ kind: 'invalid' });
  });
});

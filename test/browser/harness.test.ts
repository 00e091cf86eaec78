// The browser harness's choice of Chromium: installed when missing, and a run without one fails (always under CI;
// elsewhere unless SKIP_BROWSER_TESTS=1 explicitly skips the browser suites).
import { describe, expect, it } from 'vitest';
import { resolveChromium } from '../setup/chromium.ts';

const never = () => false;

describe('the Chromium of the browser tests', () => {
  it('uses CHROMIUM or /usr/bin/chromium when present, without installing', () => {
    const installs: string[] = [];
    expect(
      resolveChromium(
        { CHROMIUM: '/opt/chrome' },
        (p) => p === '/opt/chrome',
        () => installs.push('apt'),
      ),
    ).toBe('/opt/chrome');
    expect(
      resolveChromium(
        {},
        (p) => p === '/usr/bin/chromium',
        () => installs.push('apt'),
      ),
    ).toBe('/usr/bin/chromium');
    expect(installs).toEqual([]);
  });

  it('installs it when missing and uses it once installed', () => {
    let installed = false;
    expect(
      resolveChromium(
        {},
        () => installed,
        () => (installed = true),
      ),
    ).toBe('/usr/bin/chromium');
  });

  it('fails the run when it stays missing: under CI even with SKIP_BROWSER_TESTS=1, elsewhere unless it is set', () => {
    expect(() => resolveChromium({ CI: 'true', SKIP_BROWSER_TESTS: '1' }, never, () => {})).toThrow(/Chromium is missing/);
    expect(() => resolveChromium({}, never, () => {})).toThrow(/Chromium is missing/);
    expect(() => resolveChromium({ SKIP_BROWSER_TESTS: 'true' }, never, () => {})).toThrow(/Chromium is missing/);
    expect(resolveChromium({ SKIP_BROWSER_TESTS: '1' }, never, () => {})).toBeNull();
  });
});

// The browser of the browser tests (test/browser/): Debian's Chromium, driven by playwright-core. Where it is missing,
// the setup installs it with apt-get as the project's own setup step. If it is still missing the run fails, under CI
// always, elsewhere unless SKIP_BROWSER_TESTS=1 says so explicitly (then the browser suites skip with one line).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Chromium executable, or null when SKIP_BROWSER_TESTS=1 and none could be found or installed. */
    chromium: string | null;
  }
}

export const chromiumPath = () => process.env.CHROMIUM ?? '/usr/bin/chromium';

function install() {
  try {
    console.log('Chromium: not found, installing the Debian package (apt-get install -y chromium)');
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (error) {
    console.log(`Chromium: apt-get install failed: ${(error as Error).message}`);
  }
}

export default function setup(project: TestProject) {
  const path = chromiumPath();
  if (!existsSync(path)) install();
  if (existsSync(path)) {
    project.provide('chromium', path);
    return;
  }
  if (process.env.CI !== 'true' && process.env.SKIP_BROWSER_TESTS === '1') {
    console.log(`Chromium: not found at ${path}; SKIP_BROWSER_TESTS=1, the browser tests are skipped`);
    project.provide('chromium', null);
    return;
  }
  throw new Error(`Chromium is missing at ${path} and could not be installed (set CHROMIUM, or SKIP_BROWSER_TESTS=1 outside CI to skip the browser tests)`);
}

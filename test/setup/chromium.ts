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

function aptInstall() {
  try {
    console.log('Chromium: not found, installing the Debian package (apt-get install -y chromium)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
  } catch (error) {
    console.log(`Chromium: apt-get install failed: ${(error as Error).message}`);
  }
}

/**
 * The Chromium to use: `CHROMIUM` or /usr/bin/chromium, installed when missing; null (skip) only outside CI with
 * SKIP_BROWSER_TESTS=1; otherwise a missing browser throws, failing the run.
 */
export function resolveChromium(env: NodeJS.ProcessEnv, exists: (path: string) => boolean = existsSync, install: () => void = aptInstall) {
  const path = env.CHROMIUM ?? '/usr/bin/chromium';
  if (!exists(path)) install();
  if (exists(path)) return path;
  if (env.CI !== 'true' && env.SKIP_BROWSER_TESTS === '1') {
    console.log(`Chromium: not found at ${path}; SKIP_BROWSER_TESTS=1, the browser tests are skipped`);
    return null;
  }
  throw new Error(`Chromium is missing at ${path} and could not be installed (set CHROMIUM, or SKIP_BROWSER_TESTS=1 outside CI to skip the browser tests)`);
}

export default function setup(project: TestProject) {
  project.provide('chromium', resolveChromium(process.env));
}

// Pebble, Let's Encrypt's ACME test server (Debian package `pebble`), for the vanity domain tests
// (test/helpers/pebble.ts starts one per suite). Where it is missing, the setup installs it with apt-get as the
// project's own setup step; still missing, the vanity process suite skips with one line, and under CI=true the run fails.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Pebble executable, or null outside CI when none could be found or installed. */
    pebble: string | null;
  }
}

function aptInstall() {
  try {
    console.log('Pebble: not found, installing the Debian package (apt-get install -y pebble)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'pebble'], { stdio: 'inherit', env });
  } catch (error) {
    console.log(`Pebble: apt-get install failed: ${(error as Error).message}`);
  }
}

/** `PEBBLE` or /usr/bin/pebble, installed when missing; null (skip) outside CI, a thrown error under CI=true. */
export function resolvePebble(env: NodeJS.ProcessEnv, exists: (path: string) => boolean = existsSync, install: () => void = aptInstall) {
  const path = env.PEBBLE ?? '/usr/bin/pebble';
  if (!exists(path)) install();
  if (exists(path)) return path;
  if (env.CI === 'true') throw new Error(`Pebble is missing at ${path} and could not be installed (apt-get install pebble, or set PEBBLE)`);
  console.log(`Pebble: not found at ${path}; the vanity domain process suite is skipped`);
  return null;
}

export default function setup(project: TestProject) {
  project.provide('pebble', resolvePebble(process.env));
}

// The Prometheus of test/deploy/prometheus.test.ts: Debian's `prometheus` package (prometheus and promtool). Where it is
// missing, the setup installs it with apt-get; under CI a Prometheus still missing fails the run, elsewhere its
// suite skips with one line.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The prometheus and promtool executables, or null outside CI when they are missing. */
    prometheus: { prometheus: string; promtool: string } | null;
  }
}

function aptInstall() {
  try {
    console.log('Prometheus: not found, installing the Debian package (apt-get install -y prometheus)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'prometheus'], { stdio: 'inherit', env });
  } catch (error) {
    console.log(`Prometheus: apt-get install failed: ${(error as Error).message}`);
  }
}

export function resolvePrometheus(env: NodeJS.ProcessEnv, exists: (path: string) => boolean = existsSync, install: () => void = aptInstall) {
  const found = { prometheus: env.PROMETHEUS ?? '/usr/bin/prometheus', promtool: env.PROMTOOL ?? '/usr/bin/promtool' };
  const present = () => exists(found.prometheus) && exists(found.promtool);
  if (!present()) install();
  if (present()) return found;
  if (env.CI !== 'true') {
    console.log(`Prometheus: not found at ${found.prometheus}; the Prometheus suite is skipped (under CI=true this fails the run)`);
    return null;
  }
  throw new Error(`Prometheus is missing at ${found.prometheus} and could not be installed (apt-get install -y prometheus)`);
}

export default function setup(project: TestProject) {
  project.provide('prometheus', resolvePrometheus(process.env));
}

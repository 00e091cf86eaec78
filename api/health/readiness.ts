// Whether this instance should be sent traffic (`GET /v1/health/ready`): its database answers with the schema this
// code expects, and the probes the composition root adds (the dispatcher it runs, the Temporal server it uses) pass.
// A drain (SIGTERM) turns it false first, so a load balancer stops sending requests before the listener closes.
import type { DatabasePool } from 'slonik';
import { appliedMigrationHead } from '../../db/shared/schema-head.ts';

/** A named check: resolves when healthy, rejects with the reason otherwise. */
export interface ReadinessProbe {
  name: string;
  check(): Promise<void>;
}

export interface CheckResult {
  ok: boolean;
  /** Why not, when not ok. */
  reason?: string;
}

export interface ReadinessReport {
  ok: boolean;
  draining: boolean;
  checks: Record<string, CheckResult>;
}

export interface Readiness {
  add(probe: ReadinessProbe): void;
  /** From now on not ready: the instance is stopping. */
  drain(): void;
  report(): Promise<ReadinessReport>;
}

/** A probe that has not answered within this is a failure: a hung dependency must not hang the load balancer's probe. */
const PROBE_TIMEOUT_MS = 2_000;

function withTimeout(probe: ReadinessProbe, timeoutMs: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([probe.check(), timeout])
    .then(
      () => ({ ok: true }),
      (error: unknown) => ({ ok: false, reason: error instanceof Error ? error.message : String(error) }),
    )
    .finally(() => clearTimeout(timer));
}

/** `expectedHead`: the newest migration of this code (db/migrate.ts latestMigration). */
export function createReadiness(deps: { pool: DatabasePool; expectedHead: number; timeoutMs?: number }): Readiness {
  const timeoutMs = deps.timeoutMs ?? PROBE_TIMEOUT_MS;
  let draining = false;
  const probes: ReadinessProbe[] = [
    {
      name: 'database',
      check: async () => {
        const head = await appliedMigrationHead(deps.pool);
        // A newer schema is fine (another instance of a newer release migrated first); an older one is not.
        if (head < deps.expectedHead) throw new Error(`migrations at ${head}, this release needs ${deps.expectedHead}`);
      },
    },
  ];
  return {
    add: (probe) => void probes.push(probe),
    drain: () => void (draining = true),
    report: async () => {
      const results = await Promise.all(probes.map((p) => withTimeout(p, timeoutMs)));
      const checks = Object.fromEntries(probes.map((p, i) => [p.name, results[i]!]));
      return { ok: !draining && results.every((r) => r.ok), draining, checks };
    },
  };
}

// The sign-in protections of the hosted pages: the policies' hooks in the order they are asked (./pipeline.ts).
import type { DatabasePool } from 'slonik';
import type { Config } from '../../lib/config.ts';
import { createProtectionPipeline, type EvaluationTimings, type ProtectionHook } from './pipeline.ts';
import { createBruteForce } from './brute-force.ts';
import { createRestrictionsHook } from './restrictions.ts';
import { createBotChallenge } from './challenge.ts';
import { rateLimitHook } from './rate-limit.ts';
import { botDetectionHook } from './bot-detection.ts';
import { deviceRiskHook } from './device-risk.ts';
import { createKnownDevices } from './known-devices.ts';

export interface ProtectionDeps {
  pool: DatabasePool;
  config: Config;
  masterKey: Buffer;
  timings?: EvaluationTimings | undefined;
}

export function createProtections(deps: ProtectionDeps) {
  const challenge = createBotChallenge({
    ...deps,
    outbound: { allowPrivate: deps.config.allowPrivateNetworkTargets, timeoutMs: deps.config.webhooks.timeoutMs },
  });
  // Asked all at once at each point (./pipeline.ts); the order says whose refusal wins when several refuse: a
  // lockout's page first.
  const hooks: ProtectionHook[] = [
    createBruteForce(deps.pool),
    rateLimitHook({ ...deps, challenge }),
    botDetectionHook({ ...deps, challenge }),
    createRestrictionsHook(deps.pool),
    deviceRiskHook(createKnownDevices({ pool: deps.pool, masterKey: deps.masterKey, publicBaseUrl: deps.config.publicBaseUrl })),
  ];
  return createProtectionPipeline(hooks, { db: deps.pool, timings: deps.timings });
}

export type { Attempt, ProtectionPipeline, Refusal, StepUpVerdict, Verdict } from './pipeline.ts';

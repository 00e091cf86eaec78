// The sign-in protections of the hosted pages: the policies' hooks in the order they are asked (./pipeline.ts).
import type { DatabasePool } from 'slonik';
import type { Config } from '../../lib/config.ts';
import { createProtectionPipeline, type EvaluationTimings, type ProtectionHook } from './pipeline.ts';
import { createBotChallenge } from './challenge.ts';
import { rateLimitHook } from './rate-limit.ts';
import { botDetectionHook } from './bot-detection.ts';

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
  const hooks: ProtectionHook[] = [rateLimitHook({ ...deps, challenge }), botDetectionHook({ ...deps, challenge })];
  return createProtectionPipeline(hooks, deps.timings);
}

export type { Attempt, ProtectionPipeline, Refusal, Verdict } from './pipeline.ts';

// The embedded shape of the processes (`npm start`): DBOS in this process, and the event dispatcher.
import type { DatabasePool } from 'slonik';
import { createActivities } from '../activities/index.ts';
import { createOidcCleanupSingletonQueries } from '../db/oidc/cleanup/singleton.ts';
import { createRetentionQueries } from '../db/processes/retention.ts';
import type { Config } from '../lib/config.ts';
import type { LookupFn } from '../lib/outbound/ssrf-guard.ts';
import type { Activities } from '../workflows/activities.ts';
import type { ProcessMetrics } from '../lib/metrics/processes.ts';
import { deliveryBatchSize, startDispatcher, type Dispatcher } from './dispatcher.ts';
import { pruneFinishedWorkflows, startEmbeddedEngine, type EmbeddedEngine } from './embedded-engine.ts';
import { startSweeper, type Sweeper } from './sweeper.ts';

export interface EmbeddedProcesses {
  engine: EmbeddedEngine;
  dispatcher: Dispatcher;
  sweeper: Sweeper;
  stop(): Promise<void>;
}

export async function startEmbeddedProcesses(deps: {
  config: Config;
  pool: DatabasePool;
  databaseUrl: string;
  masterKey: Buffer;
  onError: (error: unknown) => void;
  lookup?: LookupFn;
  /** Tests only: wraps the activities (to make one fail as a bug would). */
  wrapActivities?: (activities: Activities) => Activities;
  /** Where process starts, ends and delivery outcomes are counted (lib/metrics/processes.ts). */
  metrics?: ProcessMetrics;
}): Promise<EmbeddedProcesses> {
  const { config } = deps;
  const activities = createActivities({
    pool: deps.pool,
    masterKey: deps.masterKey,
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivate: config.allowPrivateNetworkTargets,
    disableAfterMs: config.webhooks.disableAfterMs,
    baseUrls: config.providers,
    dnsServers: config.dnsServers,
    oidcCleanup: config.oidcCleanup,
    retention: config.retention,
    finishedProcesses: { prune: pruneFinishedWorkflows },
    vanityAcme: config.vanity.acme,
    metrics: deps.metrics,
    lookup: deps.lookup,
  });
  const engine = await startEmbeddedEngine({
    databaseUrl: deps.databaseUrl,
    activities: deps.wrapActivities ? deps.wrapActivities(activities) : activities,
    metrics: deps.metrics,
  });
  // The deployment's singleton processes start at boot (a no-op while they run).
  await createOidcCleanupSingletonQueries(deps.pool).enqueueStart(config.oidcCleanup);
  await createRetentionQueries(deps.pool).enqueueStart(config.retention);
  const dispatcher = await startDispatcher({
    pool: deps.pool,
    databaseUrl: deps.databaseUrl,
    gateway: engine.gateway,
    scheduleMs: config.webhooks.scheduleMs,
    pollMs: config.webhooks.dispatchPollMs,
    batchSize: config.webhooks.batchSize ?? deliveryBatchSize(config.webhooks.timeoutMs),
    limits: config.webhooks.limits,
    metrics: deps.metrics,
    onError: deps.onError,
  });
  const sweeper = startSweeper({
    pool: deps.pool,
    gateway: engine.gateway,
    scheduleMs: config.webhooks.scheduleMs,
    domains: config.domains,
    vanity: config.vanity.timings,
    oidcCleanup: config.oidcCleanup,
    retention: config.retention,
    intervalMs: config.processSweepIntervalMs,
    onError: deps.onError,
  });
  return {
    engine,
    dispatcher,
    sweeper,
    stop: async () => {
      await sweeper.stop();
      await dispatcher.stop();
      await engine.stop();
    },
  };
}

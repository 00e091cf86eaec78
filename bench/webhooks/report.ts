// Prints the webhook benchmark's figures, a table for people and a RESULT line (JSON) for tools.
import os from 'node:os';
import type { BaselineRun } from './baseline.ts';
import type { EngineRun } from './engine.ts';
import type { LatencyRun } from './latency.ts';
import { round, type CpuUsage, type Summary } from './util.ts';

export const TARGETS = { ratio: 0.25, p50Ms: 100, p99Ms: 500 };

export interface Figures {
  settings: { events: number; batch: number; concurrency: number; rate: number; seconds: number; poolSize: number; dispatchPollMs: number };
  sequential: BaselineRun;
  concurrent: BaselineRun;
  backlog: EngineRun;
  live: EngineRun;
  latency: LatencyRun;
  /** The same backlog and latency runs on a local Temporal dev server; null when no Temporal CLI was found. */
  temporal: { address: string; backlog: EngineRun; latency: LatencyRun } | null;
}

const pad = (s: unknown, n: number) => String(s ?? '-').padStart(n);
/** CPU ms (this process and Postgres) per request or delivery. */
const cpuEach = (r: { delivered: number } & CpuUsage) => ((r.nodeCpuS + r.postgresCpuS) * 1000) / r.delivered;
const range = (a: number | null, b: number | null) => (a == null ? '-' : `${a}..${b}`);

function row(name: string, r: { delivered: number; elapsedMs: number; rate: number; sockets: number } & CpuUsage) {
  console.log(
    `${name.padEnd(62)}${pad(r.delivered, 9)}${pad(r.elapsedMs, 7)}${pad(r.rate, 9)}${pad(r.sockets, 8)}${pad(r.nodeCpuS.toFixed(2), 11)}` +
      `${pad(r.postgresCpuS.toFixed(2), 9)}${pad(cpuEach(r).toFixed(3), 12)}${pad(r.otherCpu.toFixed(2), 10)}`,
  );
}

function stage(name: string, s: Summary) {
  console.log(`${name.padEnd(62)}${pad(s.p50, 8)}${pad(s.p99, 8)}${pad(s.max, 8)}`);
}

export function report(x: Figures) {
  const { settings: s, sequential, concurrent, backlog, live, latency: lat } = x;
  const ratio = round(backlog.rate / sequential.rate, 3);
  const ratioConcurrent = round(backlog.rate / concurrent.rate, 3);
  const ok = { ratio: ratio >= TARGETS.ratio, p50: lat.p50 <= TARGETS.p50Ms, p99: lat.p99 <= TARGETS.p99Ms };
  const quiet = Math.max(sequential.otherCpu, concurrent.otherCpu, backlog.otherCpu, live.otherCpu, lat.otherCpu) <= 0.1;

  console.log(
    `\nWebhook deliveries: ${s.events} events (transactions of ${s.batch}), ${os.cpus().length} CPUs, pg pool ${s.poolSize}, ` +
      `dispatch poll ${s.dispatchPollMs} ms`,
  );
  console.log(
    `${''.padEnd(62)}${pad('requests', 9)}${pad('ms', 7)}${pad('per s', 9)}${pad('sockets', 8)}${pad('node CPU s', 11)}` +
      `${pad('pg CPU s', 9)}${pad('CPU ms each', 12)}${pad('other CPU', 10)}`,
  );
  row('baseline: bare loop (undici, sequential, 1 request at a time)', sequential);
  row(`baseline: undici, ${s.concurrency} concurrent workers`, concurrent);
  row('engine, backlog (processes started -> last receipt)', backlog);
  row('engine, live (first commit -> last receipt; = commit rate)', live);
  if (x.temporal) row('Temporal, backlog (worker started -> last receipt)', x.temporal.backlog);
  if (!quiet) console.log('WARNING: other processes used CPU during the runs (cores, "other CPU"); the figures are unreliable.');
  const dup = (r: EngineRun, name: string) => (r.duplicates ? `; ${r.duplicates} duplicate deliveries (${name})` : '');
  console.log(
    `ratio engine backlog / bare sequential loop: ${ratio.toFixed(3)} (target >= ${TARGETS.ratio}, judged against the bare sequential loop) ` +
      `${ok.ratio ? 'OK' : 'BELOW TARGET'}${dup(backlog, 'backlog')}${dup(live, 'live')}`,
  );
  console.log(`ratio engine backlog / ${s.concurrency}-worker loop: ${ratioConcurrent.toFixed(3)} (for information, no target)`);
  console.log(
    `the live row is bounded by the benchmark's commit rate, not by delivery: one connection committed ${live.commit.rate} events/s ` +
      `while the processes ran (${backlog.commit.rate}/s with them stopped), and the last receipt came ` +
      `${live.timeline.lastReceiptMs - live.timeline.commitsDoneMs!} ms after the last commit`,
  );

  const b = backlog.timeline;
  console.log(
    `backlog: ${backlog.events} events committed beforehand with the processes stopped (${backlog.commit.ms} ms); ms after the processes were started: ` +
      `running ${b.processesStartedMs}, deliveries written ${range(b.firstDispatchedMs, b.lastDispatchedMs)}, ` +
      `${b.batches} batch processes started ${range(b.firstBatchStartedMs, b.lastBatchStartedMs)}, attempts ${range(b.firstAttemptMs, b.lastAttemptMs)}, ` +
      `last receipt ${b.lastReceiptMs}, last settled ${b.lastSettledMs}`,
  );
  const l = live.timeline;
  console.log(
    `live: ms after the first commit began: commits done ${l.commitsDoneMs}, deliveries written ${range(l.firstDispatchedMs, l.lastDispatchedMs)}, ` +
      `${l.batches} batch processes started ${range(l.firstBatchStartedMs, l.lastBatchStartedMs)}, attempts ${range(l.firstAttemptMs, l.lastAttemptMs)}, ` +
      `last receipt ${l.lastReceiptMs}, last settled ${l.lastSettledMs}`,
  );

  console.log(
    `\nLatency: ${lat.events} events at ${s.rate}/s for ${s.seconds} s, each its own transaction (${lat.batches} batches); ms after the commit returned`,
  );
  console.log(`${''.padEnd(62)}${pad('p50', 8)}${pad('p99', 8)}${pad('max', 8)}`);
  stage('  delivery row written (dispatcher tx began)', lat.stages.dispatched);
  stage('  batch process started (delivery-batch DBOS workflow created)', lat.stages.batchStarted);
  stage('  first attempt begun', lat.stages.attemptStarted);
  stage('commit -> receiver arrival', lat.stages.received);
  console.log(
    `p50 ${lat.p50} ms (target <= ${TARGETS.p50Ms}) ${ok.p50 ? 'OK' : 'ABOVE TARGET'}, p99 ${lat.p99} ms (target <= ${TARGETS.p99Ms}) ` +
      `${ok.p99 ? 'OK' : 'ABOVE TARGET'}; delivered ${lat.delivered}/${lat.events}; CPU node ${lat.nodeCpuS} s, pg ${lat.postgresCpuS} s, other ${lat.otherCpu} cores\n`,
  );

  if (x.temporal) {
    const t = x.temporal;
    console.log(
      `Temporal (local dev server at ${t.address}, worker and dispatcher in this process): backlog ${t.backlog.rate} deliveries/s ` +
        `(${round(t.backlog.rate / backlog.rate, 2)}x the embedded engine); commit -> receiver arrival p50 ${t.latency.p50} ms, p99 ${t.latency.p99} ms, ` +
        `max ${t.latency.max} ms; delivered ${t.latency.delivered}/${t.latency.events}${t.backlog.duplicates ? `; ${t.backlog.duplicates} duplicate deliveries` : ''}\n`,
    );
  } else console.log('Temporal: skipped (no Temporal CLI)\n');

  const withoutIds = ({ ids: _ids, ...r }: EngineRun) => r;
  console.log(
    `RESULT ${JSON.stringify({
      bench: 'webhooks',
      cpus: os.cpus().length,
      ...s,
      baselines: { sequential, concurrent },
      engine: { backlog: withoutIds(backlog), live: withoutIds(live) },
      ratio,
      ratioJudgedAgainst: 'sequential',
      ratioConcurrent,
      latency: lat,
      temporal: x.temporal && { address: x.temporal.address, backlog: withoutIds(x.temporal.backlog), latency: x.temporal.latency },
      targets: TARGETS,
      ok: ok.ratio && ok.p50 && ok.p99,
      quiet,
    })}`,
  );
}

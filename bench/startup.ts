// Start-up time and idle memory of the `npm start` shape: package.json's start command (`node <flags> api/server.ts`)
// with an embedded Postgres in a fresh DATA_DIR (cold start, includes initdb), then again on the same DATA_DIR (warm
// start). Idle RSS is the node process's alone: Postgres runs as separate processes, reported apart.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../db/embedded.ts';
import { pids, processTree, readProc, rssKb } from './proc.ts';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const TARGETS = { coldStartMs: 20_000, warmStartMs: 5_000, idleRssMb: 150 };
/**
 * `npm start` taken apart, so the benchmark runs what operators run: its leading `NAME=value` environment
 * assignments and the arguments after `node` (V8 flags included).
 */
const START_WORDS = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
const START_ENV = Object.fromEntries(START_WORDS.slice(0, START_WORDS.indexOf('node')).map((word) => word.split(/=(.*)/s).slice(0, 2)));
const START_ARGS = START_WORDS.slice(START_WORDS.indexOf('node') + 1);
const IDLE_MS = 3_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spawns the server and resolves once GET /v1/health answers 200, with the time that took. */
async function start(dataDir: string) {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, ...START_ENV, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  const t0 = performance.now();
  const child = spawn(process.execPath, START_ARGS, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  let gone = false;
  void exited.then(() => (gone = true));
  while (!gone && performance.now() - t0 < 60_000) {
    const healthy = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (healthy) return { pid: child.pid as number, ms: Math.round(performance.now() - t0), stop: () => (child.kill('SIGINT'), exited) };
    await sleep(20);
  }
  child.kill('SIGINT'); // stops its Postgres too, when it got that far
  await Promise.race([exited, sleep(10_000)]);
  child.kill('SIGKILL');
  throw new Error(`server did not become healthy (exit ${await exited}):\n${output}`);
}

/** Processes still running Postgres on this data directory (the postmaster's command line names it). */
const postgresOn = (dataDir: string) => pids().filter((pid) => readProc(pid, 'cmdline').includes(dataDir));

const mb = (kib: number) => Math.round(kib / 102.4) / 10;

const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-bench-start-'));
try {
  await fs.chmod(tmp, 0o711); // the postgres OS user must traverse it
  const dataDir = path.join(tmp, 'data'); // does not exist yet, as on a first `npm start`

  const cold = await start(dataDir);
  const coldExit = await cold.stop();
  if (coldExit !== 0) throw new Error(`cold-started server exited with ${coldExit} on SIGINT`);

  const warm = await start(dataDir);
  await sleep(IDLE_MS);
  const tree = processTree(warm.pid);
  const nodeRss = mb(rssKb(warm.pid));
  const treeRss = mb(tree.reduce((sum, pid) => sum + rssKb(pid), 0));
  const warmExit = await warm.stop();
  await sleep(200);
  const leftover = postgresOn(dataDir);
  if (warmExit !== 0) throw new Error(`server exited with ${warmExit} on SIGINT`);
  if (leftover.length) throw new Error(`Postgres processes left running on ${dataDir}: ${leftover.join(', ')}`);

  const line = (label: string, value: string, note: string) => console.log(`${label.padEnd(40)}${value.padStart(9)}   ${note}`);
  const check = (value: number, target: number, unit: string) => `target <= ${target} ${unit}  ${value <= target ? 'met' : 'MISSED'}`;
  console.log(`\n${START_WORDS.join(' ')} with embedded Postgres (LOG_LEVEL=warn)`);
  line('cold start (fresh DATA_DIR, initdb)', `${cold.ms} ms`, check(cold.ms, TARGETS.coldStartMs, 'ms'));
  line('warm start (same DATA_DIR)', `${warm.ms} ms`, check(warm.ms, TARGETS.warmStartMs, 'ms'));
  line(`idle RSS, node process (after ${IDLE_MS / 1000} s)`, `${nodeRss} MB`, check(nodeRss, TARGETS.idleRssMb, 'MB'));
  line(`idle RSS, node + ${tree.length - 1} Postgres processes`, `${treeRss} MB`, 'for information (VmRSS summed: shared memory counted in each)');
  console.log(`shutdown on SIGINT: exit code ${warmExit}, no Postgres process left on the data directory\n`);
  const ok = cold.ms <= TARGETS.coldStartMs && warm.ms <= TARGETS.warmStartMs && nodeRss <= TARGETS.idleRssMb;
  console.log(
    `RESULT ${JSON.stringify({ bench: 'startup', coldStartMs: cold.ms, warmStartMs: warm.ms, idleRssMb: nodeRss, treeRssMb: treeRss, treeProcesses: tree.length, exitCode: warmExit, targets: TARGETS, ok })}`,
  );
} finally {
  // After a failure, a Postgres of ours may still run on the directory: ask it for a fast shutdown.
  for (const pid of postgresOn(tmp)) process.kill(pid, 'SIGINT');
  while (postgresOn(tmp).length) await sleep(100);
  await fs.rm(tmp, { recursive: true, force: true });
}

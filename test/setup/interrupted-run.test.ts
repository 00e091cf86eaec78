// An interrupted test run stops what its setup started: a run of its own (fixtures/interrupted-run, the project's
// global setups) is started in a process group of its own with a TMPDIR of its own, interrupted once its Postgres
// and Temporal server are up, and must leave no process of the run and nothing in its TMPDIR.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'vitest';
import { isRunning } from './run-cleanup.ts';

const root = path.resolve(import.meta.dirname, '../..');
const fixture = path.join(import.meta.dirname, 'fixtures/interrupted-run');
const vitestBin = path.join(root, 'node_modules/vitest/vitest.mjs');

/** Every process below `pid` (through parent ids), with its command line. */
function descendants(pid: number): { pid: number; cmd: string }[] {
  const parents = new Map<number, number[]>();
  const cmds = new Map<number, string>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
      cmds.set(Number(entry), fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      // ended meanwhile
    }
  }
  const found: { pid: number; cmd: string }[] = [];
  const walk = (p: number) => {
    for (const child of parents.get(p) ?? []) {
      found.push({ pid: child, cmd: cmds.get(child) ?? '' });
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** Processes anywhere whose command line names `text` (Postgres runs with `-D <its data dir>`). */
function processesNaming(text: string): string[] {
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid)
    .flatMap((e) => {
      try {
        const cmd = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').replaceAll('\0', ' ');
        return cmd.includes(text) && isRunning(Number(e)) ? [`${e} ${cmd}`] : [];
      } catch {
        return [];
      }
    });
}

interface Case {
  how: string;
  interrupt(run: ChildProcess, dir: string): void;
}

const cases: Case[] = [
  // A Ctrl-C in a terminal reaches the whole foreground process group (the run's Postgres has a group of its own).
  { how: 'Ctrl-C (SIGINT to its process group)', interrupt: (run) => process.kill(-run.pid!, 'SIGINT') },
  { how: 'SIGTERM to the vitest process', interrupt: (run) => process.kill(run.pid!, 'SIGTERM') },
  { how: 'SIGHUP to the vitest process (its terminal closed)', interrupt: (run) => process.kill(run.pid!, 'SIGHUP') },
  {
    how: 'two SIGTERMs in a row (as `timeout` and npm each pass one on)',
    interrupt: (run) => {
      process.kill(run.pid!, 'SIGTERM');
      process.kill(run.pid!, 'SIGTERM');
    },
  },
  { how: 'a closed stdout pipe (EPIPE)', interrupt: (run) => run.stdout!.destroy() },
  { how: 'an uncaught exception in the vitest process', interrupt: (_run, dir) => fs.writeFileSync(path.join(dir, 'crash'), '') },
];

describe('an interrupted test run', () => {
  it.concurrent.for(cases)(
    'stops its Postgres and Temporal server and removes its folders after $how',
    { timeout: 240_000 },
    async ({ interrupt }, { expect }) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-interrupted-run-'));
      fs.chmodSync(dir, 0o711); // run as root, the run's Postgres (the postgres OS user) must traverse it
      const tmp = path.join(dir, 'tmp');
      fs.mkdirSync(tmp, { mode: 0o711 });
      const ready = path.join(dir, 'ready');
      const run = spawn(process.execPath, [vitestBin, 'run', '--config', path.join(fixture, 'vitest.config.ts')], {
        cwd: root,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TMPDIR: tmp, INTERRUPTED_RUN_READY: ready, INTERRUPTED_RUN_CRASH: path.join(dir, 'crash'), CI: 'true' },
      });
      let output = '';
      run.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      run.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      const exited = once(run, 'exit');
      try {
        await expect.poll(() => fs.existsSync(ready) || run.exitCode !== null, { timeout: 150_000, interval: 200 }).toBe(true);
        expect(fs.existsSync(ready), output).toBe(true);
        const started = descendants(run.pid!);
        expect(
          started.filter((p) => / -D .*\/data/.test(p.cmd) && p.cmd.includes(tmp)),
          'the run has its Postgres',
        ).not.toHaveLength(0);
        expect(
          started.filter((p) => p.cmd.includes('server start-dev')),
          'the run has its Temporal server',
        ).toHaveLength(1);

        interrupt(run, dir);
        await exited;
        await expect.poll(() => started.filter((p) => isRunning(p.pid)).map((p) => `${p.pid} ${p.cmd}`), { timeout: 20_000, interval: 100 }).toEqual([]);
        expect(processesNaming(tmp)).toEqual([]);
        expect(fs.readdirSync(tmp)).toEqual([]);
      } finally {
        if (run.exitCode === null && run.signalCode === null) process.kill(-run.pid!, 'SIGKILL');
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

// What the benchmarks read from /proc (Linux): process trees, resident memory, CPU time.
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_S = 100; // USER_HZ on Linux

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // the process has gone
  }
}

export const readProc = (pid: number, file: string) => read(`/proc/${pid}/${file}`);

export const pids = () =>
  readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number);

/** Fields of /proc/<pid>/stat after the command name, numbered as in proc(5) from field 3 on. */
const statFields = (pid: number) => {
  const stat = readProc(pid, 'stat');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
};

/** VmRSS of a process, in kB. */
export const rssKb = (pid: number) => Number(/^VmRSS:\s+(\d+)/m.exec(readProc(pid, 'status'))?.[1] ?? 0);

/** The process and all its descendants. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of pids()) {
    const ppid = Number(statFields(pid)[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}

/** CPU seconds used so far by a process and its descendants, the exited ones included (their parents' cutime, cstime). */
export const treeCpuSeconds = (root: number) =>
  processTree(root)
    .map(statFields)
    .reduce((sum, f) => sum + [11, 12, 13, 14].reduce((t, i) => t + Number(f[i] ?? 0), 0), 0) / CLOCK_TICKS_PER_S;

/** CPU seconds the whole machine has spent busy (all but idle and iowait). */
export function machineBusySeconds(): number {
  const [, ...ticks] = (read('/proc/stat').split('\n')[0] ?? '').trim().split(/\s+/).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks;
  return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_S;
}

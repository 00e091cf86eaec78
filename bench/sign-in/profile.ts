// Where the sign-in page's time goes (node bench/sign-in/profile.ts): the SQL statements of one GET /auth and one
// interaction page, then a CPU profile of the service's process during PROFILE_SECONDS (default 4) of the page load at USERS
// (default 50) users, summarised by package and by function (/tmp/sign-in-page.cpuprofile keeps the whole profile).
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import pg from 'pg';
import { startBenchDatabase } from '../database.ts';
import { startOidcBenchService } from '../oidc/setup.ts';
import { startPageWorker } from './page-worker.ts';
import { authorizeUrl } from './pages.ts';

let statements: string[] = [];
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const q = args[0] as string | { text: string };
  statements.push((typeof q === 'string' ? q : (q?.text ?? '?')).replace(/\s+/g, ' ').slice(0, 140));
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

const worker = startPageWorker();
const cleanups: (() => Promise<unknown>)[] = [worker.close];
try {
  const { service, issuer, client } = await startOidcBenchService(await startBenchDatabase(cleanups));
  cleanups.push(() => service.close());
  const authorize = authorizeUrl(issuer, client.id);
  const onePage = async () => {
    const started = await fetch(authorize, { redirect: 'manual' });
    const cookie = started.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const page = await fetch(new URL(started.headers.get('location') ?? '', authorize), { headers: { cookie } });
    if (page.status !== 200) throw new Error(`sign-in page: ${page.status}`);
    await new Promise((r) => setTimeout(r, 100));
  };
  await onePage(); // the first one also makes the environment's signing keys and builds its provider
  statements = [];
  await onePage();
  console.log(`SQL of one GET /auth + sign-in page (${statements.length}):\n  ${statements.join('\n  ')}`);

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await worker.run({ kind: 'sign-in', authorizeUrl: authorize, users: 50, duration: 1 });
  await session.post('Profiler.start');
  const r = await worker.run({
    kind: 'sign-in',
    authorizeUrl: authorize,
    users: Number(process.env.USERS ?? 50),
    duration: Number(process.env.PROFILE_SECONDS ?? 4),
  });
  const { profile } = await session.post('Profiler.stop');
  console.log(`${r.pagesPerSecond} pages/s, page p50 ${r.page.p50} p95 ${r.page.p95} ms, /auth p50 ${r.authorize?.p50} p95 ${r.authorize?.p95} ms`);
  fs.writeFileSync('/tmp/sign-in-page.cpuprofile', JSON.stringify(profile));
  const counts = new Map<number, number>();
  for (const s of profile.samples!) counts.set(s, (counts.get(s) ?? 0) + 1);
  const byFn = new Map<string, number>();
  const byPkg = new Map<string, number>();
  for (const n of profile.nodes) {
    const c = counts.get(n.id) ?? 0;
    const file = n.callFrame.url.replace(/.*node_modules\//, 'nm/').replace(/.*r2-bench\//, '');
    const fn = `${n.callFrame.functionName || '(anon)'} ${file}:${n.callFrame.lineNumber}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + c);
    const parts = file.split('/');
    const pkg = file.startsWith('nm/') ? parts.slice(0, file.startsWith('nm/@') ? 3 : 2).join('/') : file || n.callFrame.functionName;
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + c);
  }
  const total = profile.samples!.length;
  const top = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, c]) => `${((c / total) * 100).toFixed(1).padStart(5)}% ${name}`)
      .join('\n');
  console.log(`by package/file:\n${top(byPkg, 25)}\nby function:\n${top(byFn, 30)}`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
}

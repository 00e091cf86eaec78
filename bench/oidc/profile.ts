// Where bench:oidc's time goes (node bench/oidc/profile.ts): the SQL statements of each HTTP request of one token,
// introspection and authorization-code flow; then, with CPU=tokens|opaque|introspection|flows, the CPU ms per unit
// of each process and thread (the service's main thread, its libuv pool (argon2id), Postgres, the load driver) and
// the server-side time per route; or, with PROFILE=<same>, a CPU profile of the service (/tmp/oidc-perf-<mode>.cpuprofile)
// summarised by file and function. SECONDS, CONN, RATE tune the load; ASYNC_COMMIT=1 sets synchronous_commit off
// (to see what WAL flushes cost, never the service's setting).
import { Session } from 'node:inspector/promises';
import fs from 'node:fs';
import pg from 'pg';
import { startBenchDatabase } from '../database.ts';
import { basic, RESOURCE, startOidcBenchService, PASSWORD, REDIRECT_URI } from './setup.ts';
import { startLoadWorker } from '../load-worker.ts';
import { startFlowWorker } from './flow-worker.ts';
import { authorizationCodeFlow } from './flow.ts';
import { hash } from '@node-rs/argon2';
import { sql } from 'slonik';
import { createUserQueries } from '../../db/identity/users/queries.ts';

let statements: string[] = [];
const origQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const q = args[0] as string | { text: string };
  statements.push((typeof q === 'string' ? q : (q?.text ?? '?')).replace(/\s+/g, ' ').slice(0, 140));
  return (origQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof origQuery;

const cleanups: (() => Promise<unknown>)[] = [];
const loader = startLoadWorker();
const flowWorker = startFlowWorker();
cleanups.push(loader.close, flowWorker.close);
const FORM = 'application/x-www-form-urlencoded';
try {
  const databaseUrl = await startBenchDatabase(cleanups);
  if (process.env.ASYNC_COMMIT) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query('ALTER DATABASE iam_bench SET synchronous_commit = off');
    await c.end();
  }
  const { service, issuer, client } = await startOidcBenchService(databaseUrl);
  cleanups.push(() => service.close());
  const auth = { authorization: basic(client) };
  const { environmentId } = service.credentials;
  const userName = `bench@example.com`;
  const user = await createUserQueries(service.pool).insertVerifiedUser({
    environmentId,
    userName,
    displayName: 'Bench',
    email: userName,
    managementScopes: [],
  });
  await service.pool.query(
    sql.unsafe`INSERT INTO user_passwords (user_id, environment_id, hash) VALUES (${user.id}, ${environmentId}, ${await hash(PASSWORD)})`,
  );
  const target = { issuer, client, redirectUri: REDIRECT_URI, userName, password: PASSWORD };
  // warm
  await authorizationCodeFlow(target);
  const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { ...auth, 'content-type': FORM }, body });
  await post(`${issuer}/token`, `grant_type=client_credentials&resource=${encodeURIComponent(RESOURCE)}`);
  const dump = (label: string) => {
    console.log(`--- ${label}: ${statements.length} statements`);
    for (const s of statements) console.log('   ', s);
    statements = [];
  };
  await new Promise((r) => setTimeout(r, 200));
  statements = [];
  await post(`${issuer}/token`, `grant_type=client_credentials&resource=${encodeURIComponent(RESOURCE)}`);
  await new Promise((r) => setTimeout(r, 100));
  dump('jwt token');
  const opaque = (await (await post(`${issuer}/token`, `grant_type=client_credentials`)).json()) as { access_token: string };
  await new Promise((r) => setTimeout(r, 100));
  dump('opaque token');
  await post(`${issuer}/token/introspection`, `token=${opaque.access_token}`);
  await new Promise((r) => setTimeout(r, 100));
  dump('introspection');
  await authorizationCodeFlow(target, async (method, url, status) => {
    await new Promise((r) => setTimeout(r, 30));
    dump(`${method} ${url.replace(issuer, '').slice(0, 60)} -> ${status}`);
  });
  statements = [];

  const mode = process.env.PROFILE ?? 'none';
  if (process.env.CPU) {
    // CPU seconds per thread group during a load: main thread, libuv/other threads, postgres, children (load/flow workers)
    const { readFileSync, readdirSync } = await import('node:fs');
    const { processTree } = await import('../proc.ts');
    const stat = (path: string) => {
      try {
        const t = readFileSync(path, 'utf8');
        const f = t.slice(t.lastIndexOf(')') + 2).split(' ');
        return { name: t.slice(t.indexOf('(') + 1, t.lastIndexOf(')')), cpu: (Number(f[11]) + Number(f[12])) / 100 };
      } catch {
        return { name: '?', cpu: 0 };
      }
    };
    const snapshot = () => {
      const groups: Record<string, number> = {};
      const add = (k: string, v: number) => (groups[k] = (groups[k] ?? 0) + v);
      for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
        const t = stat(`/proc/${process.pid}/task/${tid}/stat`);
        add(Number(tid) === process.pid ? 'main' : `thread:${t.name}`, t.cpu);
      }
      for (const pid of processTree(process.pid).slice(1)) {
        const t = stat(`/proc/${pid}/stat`);
        add(t.name.startsWith('postgres') ? 'postgres' : `child:${t.name}`, t.cpu);
      }
      return groups;
    };
    const timings = new Map<string, number[]>();
    service.app.server.prependListener('request', (req, res) => {
      const t = performance.now();
      const key = `${req.method} ${
        (req.url ?? '')
          .replace(/\/v1\/oidc\/[^/]+/, '')
          .replace(/\/interaction\/[^/?]+/, '/interaction/:uid')
          .replace(/\/auth\/[^/?]+/, '/auth/:uid')
          .split('?')[0]
      }`;
      res.once('finish', () => {
        const list = timings.get(key) ?? [];
        list.push(performance.now() - t);
        timings.set(key, list);
      });
    });
    const before = snapshot();
    const t0 = performance.now();
    let units = 0;
    if (process.env.CPU === 'flows') units = (await flowWorker.run({ target, inFlight: 8, seconds: Number(process.env.SECONDS ?? 5) })).flows;
    else {
      const opaqueBody = new URLSearchParams({ token: opaque.access_token }).toString();
      const [url, body] =
        process.env.CPU === 'tokens'
          ? [`${issuer}/token`, `grant_type=client_credentials&resource=${encodeURIComponent(RESOURCE)}`]
          : process.env.CPU === 'opaque'
            ? [`${issuer}/token`, 'grant_type=client_credentials']
            : [`${issuer}/token/introspection`, opaqueBody];
      const r = await loader.run({
        url,
        method: 'POST',
        headers: { 'content-type': FORM, ...auth },
        body,
        connections: Number(process.env.CONN ?? 50),
        duration: Number(process.env.SECONDS ?? 5),
        ...(process.env.RATE ? { overallRate: Number(process.env.RATE) } : {}),
      });
      units = r.requests.total ?? 0;
      console.log(`${Math.round(r.requests.average)} req/s p50 ${r.latency.p50} p99 ${r.latency.p99} non2xx ${r.non2xx}`);
    }
    const secs = (performance.now() - t0) / 1000;
    const after = snapshot();
    console.log(`${process.env.CPU}: ${units} in ${secs.toFixed(1)} s = ${(units / secs).toFixed(1)}/s; CPU ms per unit:`);
    let total = 0;
    for (const k of Object.keys(after).sort()) {
      const d = after[k]! - (before[k] ?? 0);
      total += d;
      if (d > 0.01) console.log(`  ${k.padEnd(30)} ${((d / units) * 1000).toFixed(3)} ms  (${(d / secs).toFixed(2)} cores)`);
    }
    console.log(`  total ${((total / units) * 1000).toFixed(3)} ms (${(total / secs).toFixed(2)} cores)`);
    for (const [k, list] of timings) {
      list.sort((a, b) => a - b);
      const avg = list.reduce((a, b) => a + b, 0) / list.length;
      console.log(
        `  ${k.padEnd(36)} n=${list.length} avg ${avg.toFixed(1)} p50 ${list[Math.floor(list.length / 2)]!.toFixed(1)} p99 ${list[Math.floor(list.length * 0.99)]!.toFixed(1)} ms`,
      );
    }
  }
  const seconds = Number(process.env.SECONDS ?? 5);
  if (mode !== 'none') {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const started = performance.now();
    let rate = '';
    if (mode === 'flows') {
      const r = await flowWorker.run({ target, inFlight: 8, seconds });
      rate = `${r.perSecond} flows/s`;
    } else {
      const opaqueBody = new URLSearchParams({ token: opaque.access_token }).toString();
      const [url, body] =
        mode === 'tokens'
          ? [`${issuer}/token`, `grant_type=client_credentials&resource=${encodeURIComponent(RESOURCE)}`]
          : mode === 'opaque'
            ? [`${issuer}/token`, 'grant_type=client_credentials']
            : [`${issuer}/token/introspection`, opaqueBody];
      const r = await loader.run({
        url,
        method: 'POST',
        headers: { 'content-type': FORM, ...auth },
        body,
        connections: Number(process.env.CONN ?? 50),
        duration: seconds,
        ...(process.env.RATE ? { overallRate: Number(process.env.RATE) } : {}),
      });
      rate = `${Math.round(r.requests.average)} req/s p50 ${r.latency.p50} p99 ${r.latency.p99} non2xx ${r.non2xx}`;
    }
    const { profile } = await session.post('Profiler.stop');
    console.log(`${mode}: ${rate} in ${((performance.now() - started) / 1000).toFixed(1)} s; statements ${statements.length}`);
    fs.writeFileSync(`/tmp/oidc-perf-${mode}.cpuprofile`, JSON.stringify(profile));
    // self time by function and by file
    const nodes = profile.nodes;
    const total = profile.samples!.length;
    const counts = new Map<number, number>();
    for (const s of profile.samples!) counts.set(s, (counts.get(s) ?? 0) + 1);
    const byFn = new Map<string, number>();
    const byFile = new Map<string, number>();
    for (const n of nodes) {
      const c = counts.get(n.id) ?? 0;
      const f = n.callFrame;
      const file = f.url.replace(/.*node_modules\//, 'nm/').replace(/.*oidc-perf\//, '');
      const key = `${f.functionName || '(anon)'} ${file}:${f.lineNumber}`;
      byFn.set(key, (byFn.get(key) ?? 0) + c);
      const pkg = file.startsWith('nm/')
        ? file
            .split('/')
            .slice(0, file.startsWith('nm/@') ? 3 : 2)
            .join('/')
        : file || f.functionName;
      byFile.set(pkg, (byFile.get(pkg) ?? 0) + c);
    }
    const top = (m: Map<string, number>, n: number) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, v]) => `${((v / total) * 100).toFixed(1).padStart(5)}% ${k}`)
        .join('\n');
    console.log('by package/file:\n' + top(byFile, 30));
    console.log('by function:\n' + top(byFn, 40));
  }
} finally {
  for (const c of cleanups.reverse()) await c().catch(() => {});
}

// `npm run bench:oidc`: an environment's OpenID provider, each figure beside its baseline measured in the same run.
// (a) client-credentials tokens/s through the service's token endpoint against a bare Fastify route that checks the
// client secret and signs the same claims with jose (ES256); (b) full authorization-code flows/s over HTTP without a
// browser (authorize → login page → POST login → consent → code → token; bench/oidc/flow.ts) against argon2id
// verifies/s alone at the same cost and concurrency; (c) introspection p99 at half its measured max rate, the requests
// evenly spaced (bench/paced-load.ts), beside the bare token route at the same rate.
// autocannon and the flows run in child processes, so the load never shares the event loop it measures.
// BENCH_DURATION (s per load, default 4), BENCH_CONNECTIONS (default 50), BENCH_HALF_CONNECTIONS (default 10),
// BENCH_FLOWS_IN_FLIGHT (default 8) tune it.
import os from 'node:os';
import { argon2VerifiesPerSecond, baseUrl, startBareTokenRoute } from './oidc/baseline.ts';
import { startFlowWorker } from './oidc/flow-worker.ts';
import { runFlows } from './oidc/flows.ts';
import { decodeJwt } from 'jose';
import { basic, RESOURCE, startOidcBenchService } from './oidc/setup.ts';
import { startBenchDatabase } from './database.ts';
import { startLoadWorker } from './load-worker.ts';
import { machineBusySeconds, treeCpuSeconds } from './proc.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const HALF_CONNECTIONS = Number(process.env.BENCH_HALF_CONNECTIONS ?? 10);
const FLOWS_IN_FLIGHT = Number(process.env.BENCH_FLOWS_IN_FLIGHT ?? 8);
const WARMUP = 1;
const TARGETS = { tokens: 0.5, flows: 0.7, introspectionP99: 5 };
const FORM = 'application/x-www-form-urlencoded';

const loader = startLoadWorker();
const flowWorker = startFlowWorker();
const cleanups: (() => Promise<unknown>)[] = [loader.close, flowWorker.close];

/** Cores used over `seconds` since `before` by processes other than this one, its Postgres and the load generator. */
const cpuSince = (before: { ours: number; machine: number; at: number }) => {
  const seconds = (performance.now() - before.at) / 1000;
  const ours = treeCpuSeconds(process.pid) - before.ours;
  const otherCpu = Math.max(0, Math.round(((machineBusySeconds() - before.machine - ours) / seconds) * 100) / 100);
  // Cores used by this process, its Postgres and the load generator: well under 2 means the run was starved.
  return { cpu: Math.round((ours / seconds) * 100) / 100, otherCpu };
};
const mark = () => ({ ours: treeCpuSeconds(process.pid), machine: machineBusySeconds(), at: performance.now() });

/** The maximum rate: autocannon, CONNECTIONS connections, after a warm-up. */
async function load(url: string, headers: Record<string, string>, body: string) {
  const options = { url, method: 'POST' as const, headers: { 'content-type': FORM, ...headers }, body, connections: CONNECTIONS };
  await loader.run({ ...options, duration: WARMUP });
  const before = mark();
  const r = await loader.run({ ...options, duration: DURATION });
  if (r.errors || r.timeouts || r.non2xx) throw new Error(`${url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, ...cpuSince(before) };
}

/** Latencies at a fixed rate, evenly spaced, from HALF_CONNECTIONS connections as a gateway's pool would send them. */
async function paced(url: string, headers: Record<string, string>, body: string, rate: number) {
  const options = { url, method: 'POST' as const, headers: { 'content-type': FORM, ...headers }, body, connections: HALF_CONNECTIONS, rate };
  await loader.paced({ ...options, duration: WARMUP });
  const before = mark();
  const r = await loader.paced({ ...options, duration: DURATION });
  if (r.errors || r.non2xx) throw new Error(`${url}: ${r.errors} errors, ${r.non2xx} non-2xx`);
  return { ...r, ...cpuSince(before) };
}
type Load = Awaited<ReturnType<typeof load>>;
const best = (a: Load, b: Load) => (a.rps >= b.rps ? a : b);

try {
  const databaseUrl = await startBenchDatabase(cleanups);
  const { service, issuer, client } = await startOidcBenchService(databaseUrl);
  cleanups.push(() => service.close());
  const auth = { authorization: basic(client) };
  const grant = 'grant_type=client_credentials';

  // (a) Client-credentials tokens for an API (resource indicator): JWT access tokens (RFC 9068), as relying APIs
  // verify them; the bare route signs the same claims. Tokens without a resource are opaque and stored (introspected
  // by the API): their rate is printed beside, for information. Every request is the same, as a machine client's
  // are: the provider decides the first, and the service answers the rest from that grant
  // (api/oidc/client-credentials-replay.ts; `node bench/oidc/ablation.ts` measures the provider's own path).
  const jwtGrant = `${grant}&resource=${encodeURIComponent(RESOURCE)}`;
  const first = await fetch(`${issuer}/token`, { method: 'POST', headers: { ...auth, 'content-type': FORM }, body: jwtGrant });
  const issued = (await first.json()) as { access_token: string; expires_in: number };
  if (first.status !== 200) throw new Error(`token: ${first.status} ${JSON.stringify(issued)}`);
  const { iss, client_id, sub, scope, aud } = decodeJwt(issued.access_token);
  const bare = await startBareTokenRoute(client, { iss, client_id, sub, scope, aud }, issued.expires_in);
  cleanups.push(() => bare.close());
  const opaque = await fetch(`${issuer}/token`, { method: 'POST', headers: { ...auth, 'content-type': FORM }, body: grant });
  const opaqueToken = ((await opaque.json()) as { access_token: string }).access_token;
  const introspectionBody = new URLSearchParams({ token: opaqueToken }).toString();

  // Each side's best of two interleaved runs: on a small machine one run of either can lose a core for a while.
  const runs: [Load, Load][] = [];
  for (let i = 0; i < 2; i++) runs.push([await load(`${baseUrl(bare)}/token`, auth, grant), await load(`${issuer}/token`, auth, jwtGrant)]);
  const tokenBase = best(runs[0]![0], runs[1]![0]);
  const tokens = best(runs[0]![1], runs[1]![1]);
  const tokenRatio = Math.round((tokens.rps / tokenBase.rps) * 100) / 100;
  const opaqueTokens = await load(`${issuer}/token`, auth, grant);

  // (c) Introspection: its max rate, then p99 at half of it from a gateway-sized pool of connections.
  const introspectionUrl = `${issuer}/token/introspection`;
  const introspectionMax = await load(introspectionUrl, auth, introspectionBody);
  const halfRate = Math.round(introspectionMax.rps / 2);
  const half = await paced(introspectionUrl, auth, introspectionBody, halfRate);
  // The bare token route at the same rate: what the machine and the load generator alone add to a p99.
  const bareHalf = await paced(`${baseUrl(bare)}/token`, auth, grant, halfRate);

  // (b) Flows against argon2id verifies alone, the same number in flight.
  const argon2 = await argon2VerifiesPerSecond(FLOWS_IN_FLIGHT, DURATION);
  const flows = await runFlows(service, issuer, client, flowWorker, FLOWS_IN_FLIGHT, DURATION);
  const flowRatio = 'perSecond' in flows ? Math.round((flows.perSecond / argon2.perSecond) * 100) / 100 : null;

  const otherCpu = Math.max(tokenBase.otherCpu, tokens.otherCpu, introspectionMax.otherCpu, half.otherCpu);
  const verdict = (ok: boolean) => (ok ? 'OK' : 'BELOW TARGET');
  const rows: [string, string, string, string][] = [
    ['baseline: bare Fastify + jose ES256 sign', `${tokenBase.rps} tokens/s, p99 ${tokenBase.p99} ms`, '', ''],
    [
      '(a) client_credentials + resource (JWT)',
      `${tokens.rps} tokens/s, p99 ${tokens.p99} ms`,
      `ratio >= ${TARGETS.tokens}`,
      `${tokenRatio} ${verdict(tokenRatio >= TARGETS.tokens)}`,
    ],
    [
      '    opaque tokens (no resource; stored)',
      `${opaqueTokens.rps} tokens/s, p99 ${opaqueTokens.p99} ms`,
      '',
      `${Math.round((opaqueTokens.rps / tokenBase.rps) * 100) / 100}`,
    ],
    ['baseline: argon2id verify alone', `${argon2.perSecond} verifies/s (${FLOWS_IN_FLIGHT} in flight)`, '', ''],
    'perSecond' in flows
      ? [
          '(b) authorization-code flows over HTTP',
          `${flows.perSecond} flows/s (${flows.errors} errors)`,
          `ratio >= ${TARGETS.flows}`,
          `${flowRatio} ${verdict(flowRatio! >= TARGETS.flows)}`,
        ]
      : ['(b) authorization-code flows over HTTP', `SKIPPED: ${flows.skipped}`, `ratio >= ${TARGETS.flows}`, ''],
    ['(c) introspection, max rate', `${introspectionMax.rps} req/s, p99 ${introspectionMax.p99} ms`, '', ''],
    [`    bare token route at ${halfRate}/s`, `p50 ${bareHalf.p50} ms, p99 ${bareHalf.p99} ms`, '', ''],
    [
      `(c) at half rate (${halfRate}/s, ${HALF_CONNECTIONS} conn., paced)`,
      `p50 ${half.p50} ms, p99 ${half.p99} ms, max ${half.max} ms`,
      `p99 <= ${TARGETS.introspectionP99} ms`,
      verdict(half.p99 <= TARGETS.introspectionP99),
    ],
  ];
  console.log(`\nOIDC provider: ${CONNECTIONS} connections, ${DURATION} s per load after ${WARMUP} s warm-up; ${os.cpus().length} CPUs`);
  for (const [name, figure, target, result] of [['', 'measured', 'target', ''] as const, ...rows]) {
    console.log(`${name.padEnd(44)}${figure.padEnd(44)}${target.padEnd(18)}${result}`);
  }
  if (otherCpu > 0.1) console.log(`WARNING: other processes used ${otherCpu} cores during the load runs; throughput figures are unreliable.`);
  console.log(
    `\nRESULT ${JSON.stringify({ bench: 'oidc', tokenBase, tokens, tokenRatio, opaqueTokens, argon2: argon2.perSecond, flows, flowRatio, introspectionMax, half, bareHalf, otherCpu, targets: TARGETS })}`,
  );
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
}

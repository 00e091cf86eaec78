// `npm run bench:sign-in`: issue 18's sign-in, each figure beside its baseline measured in the same run.
// (1) The sign-in page (the identifier page of a fresh interaction: GET /auth → 303, then GET the interaction page with
// its cookies) at BENCH_USERS concurrent users (requests in flight), beside a static HTML page of the same size served
// by a route the bench adds to the same app in the same process (bench/sign-in/pages.ts); p50/p95, req/s, p95 ratio.
// (2) TOTP verifications/s (verifyTotp against the database) beside otpauth's validate alone, and passkey sign-ins/s
// (options → software authenticator → verifyAuthentication) beside the ES256 verify alone.
// The virtual users run in a child process (bench/sign-in/page-worker.ts). BENCH_DURATION (s per load, default 4),
// BENCH_USERS (default 50), BENCH_FACTORS_IN_FLIGHT (default 16), BENCH_TOTP_USERS (default 2000) and
// BENCH_PASSKEY_USERS (default 100) tune it.
import os from 'node:os';
import { startBenchDatabase } from './database.ts';
import { startOidcBenchService } from './oidc/setup.ts';
import { machineBusySeconds, treeCpuSeconds } from './proc.ts';
import { startPageWorker } from './sign-in/page-worker.ts';
import type { PageLoadOptions, PageLoadResult } from './sign-in/page-load.ts';
import { authorizeUrl, registerStaticPage, STATIC_PATH } from './sign-in/pages.ts';
import { preparePasskeys } from './sign-in/passkeys.ts';
import { prepareTotp } from './sign-in/totp.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 4);
const USERS = Number(process.env.BENCH_USERS ?? 50);
const IN_FLIGHT = Number(process.env.BENCH_FACTORS_IN_FLIGHT ?? 16);
const TOTP_USERS = Number(process.env.BENCH_TOTP_USERS ?? 2000);
const PASSKEY_USERS = Number(process.env.BENCH_PASSKEY_USERS ?? 100);
const WARMUP = 1;
const TARGETS = { pageP95Ms: 50 };

const worker = startPageWorker();
const cleanups: (() => Promise<unknown>)[] = [worker.close];

const serviceCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const mark = () => ({
  tree: treeCpuSeconds(process.pid),
  service: serviceCpu(),
  load: treeCpuSeconds(worker.pid),
  machine: machineBusySeconds(),
  at: performance.now(),
});
const cores = (cpuSeconds: number, seconds: number) => Math.round((cpuSeconds / seconds) * 100) / 100;
/**
 * Cores used during a run by the service's process (this one: the app, and the factor benches' own calls), Postgres
 * (the rest of this process tree), the virtual users' process, and other processes of the machine.
 */
const cpuSince = (before: ReturnType<typeof mark>) => {
  const seconds = (performance.now() - before.at) / 1000;
  const tree = treeCpuSeconds(process.pid) - before.tree;
  const service = serviceCpu() - before.service;
  const load = treeCpuSeconds(worker.pid) - before.load;
  return {
    service: cores(service, seconds),
    postgres: cores(Math.max(0, tree - service - load), seconds),
    load: cores(load, seconds),
    other: cores(Math.max(0, machineBusySeconds() - before.machine - tree), seconds),
  };
};
type Cpu = ReturnType<typeof cpuSince>;
let otherCpu = 0;
async function measured<T extends object>(work: () => Promise<T>): Promise<T & { cpu: Cpu }> {
  const before = mark();
  const result = await work();
  const cpu = cpuSince(before);
  otherCpu = Math.max(otherCpu, cpu.other);
  return { ...result, cpu };
}

async function pages(options: PageLoadOptions) {
  await worker.run({ ...options, duration: WARMUP });
  const result = await measured(() => worker.run(options));
  if (result.errors) throw new Error(`${options.kind} page: ${result.errors} errors, the first: ${result.firstError}`);
  return result;
}
type Measured = PageLoadResult & { cpu: Cpu };
const lowerP95 = (a: Measured, b: Measured) => (a.page.p95 <= b.page.p95 ? a : b);

try {
  const databaseUrl = await startBenchDatabase(cleanups);
  let staticPage: ReturnType<typeof registerStaticPage> | undefined;
  const { service, baseUrl, issuer, client, environmentId } = await startOidcBenchService(databaseUrl, (app) => {
    staticPage = registerStaticPage(app);
  });
  cleanups.push(() => service.close());
  const env = { tenantId: service.credentials.tenantId, environmentId };

  // (1) One sign-in page first: it must be the identifier form, and the static page is made as long as it.
  const authorize = authorizeUrl(issuer, client.id);
  const started = await fetch(authorize, { redirect: 'manual' });
  const cookie = started.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const first = await fetch(new URL(started.headers.get('location') ?? '', authorize), { headers: { cookie, 'accept-language': 'en' } });
  const firstBody = await first.text();
  if (started.status !== 303 || first.status !== 200 || !firstBody.includes('<form')) throw new Error(`sign-in page: ${started.status} → ${first.status}`);
  const pageBytes = Buffer.byteLength(firstBody);
  const staticBytes = staticPage!.setSize(pageBytes);

  // Each side's lower p95 of two interleaved runs: on a small machine one run of either can lose a core for a while.
  const staticLoad: PageLoadOptions = { kind: 'static', url: `${baseUrl}${STATIC_PATH}`, users: USERS, duration: DURATION };
  const signInLoad: PageLoadOptions = { kind: 'sign-in', authorizeUrl: authorize, users: USERS, duration: DURATION };
  const runs: [Measured, Measured][] = [];
  for (let i = 0; i < 2; i++) runs.push([await pages(staticLoad), await pages(signInLoad)]);
  const staticPages = lowerP95(runs[0]![0], runs[1]![0]);
  const signInPages = lowerP95(runs[0]![1], runs[1]![1]);
  const p95Ratio = Math.round((signInPages.page.p95 / staticPages.page.p95) * 10) / 10;

  // (2) The factors, each beside its raw crypto.
  const totp = await prepareTotp(service, env, TOTP_USERS, 8);
  await totp.service(IN_FLIGHT, WARMUP);
  const totpService = await measured(() => totp.service(IN_FLIGHT, DURATION));
  const totpRaw = totp.raw(DURATION);
  const passkeys = await preparePasskeys(service, env, PASSKEY_USERS);
  await passkeys.service(IN_FLIGHT, WARMUP);
  const passkeyService = await measured(() => passkeys.service(IN_FLIGHT, DURATION));
  const es256Raw = passkeys.raw(DURATION);
  for (const [name, run] of [['verifyTotp', totpService] as const, ['passkey sign-in', passkeyService] as const]) {
    if (run.failures) throw new Error(`${name}: ${run.failures} failures, the first: ${run.firstFailure}`);
  }

  const ms = (l: { p50: number; p95: number }) => `p50 ${l.p50} ms, p95 ${l.p95} ms`;
  /** CPU milliseconds per unit in the service's process and in Postgres. */
  const cpuPer = (cpu: Cpu, perSecond: number) =>
    `${Math.round((cpu.service / perSecond) * 1e5) / 100} ms service + ${Math.round((cpu.postgres / perSecond) * 1e5) / 100} ms Postgres CPU each`;
  const rows: [string, string, string][] = [
    [`baseline: static page (${staticBytes} B, same app)`, `${ms(staticPages.page)}, ${staticPages.requestsPerSecond} req/s`, ''],
    [
      `(1) sign-in page (${pageBytes} B), fresh interaction`,
      `${ms(signInPages.page)}, ${signInPages.pagesPerSecond} pages/s`,
      `p95 <= ${TARGETS.pageP95Ms} ms: ${signInPages.page.p95 <= TARGETS.pageP95Ms ? 'OK' : 'ABOVE TARGET'}`,
    ],
    ['    its GET /auth (303) before', `${ms(signInPages.authorize!)}; ${signInPages.requestsPerSecond} req/s both`, ''],
    ['    p95 ratio sign-in / static', `${p95Ratio}`, ''],
    ['    CPU per sign-in page (with its /auth)', cpuPer(signInPages.cpu, signInPages.pagesPerSecond), ''],
    ['    CPU per static page', cpuPer(staticPages.cpu, staticPages.pagesPerSecond), ''],
    ['baseline: otpauth TOTP.validate alone', `${totpRaw} validations/s (1 thread)`, ''],
    ['(2) verifyTotp (database, replay guard)', `${totpService.perSecond} verifications/s (${IN_FLIGHT} in flight)`, ''],
    ['    CPU per verifyTotp', cpuPer(totpService.cpu, totpService.perSecond), ''],
    ['baseline: ES256 verify alone (node:crypto)', `${es256Raw} verifies/s (1 thread)`, ''],
    [
      '(2) passkey sign-in (options → get → verify)',
      `${passkeyService.perSecond} sign-ins/s (${IN_FLIGHT} in flight); authenticator ${passkeyService.signMsEach} ms each`,
      '',
    ],
    ['    CPU per passkey sign-in', cpuPer(passkeyService.cpu, passkeyService.perSecond), ''],
  ];
  console.log(`\nSign-in: ${USERS} concurrent users, ${DURATION} s per load after ${WARMUP} s warm-up; ${os.cpus().length} CPUs`);
  for (const [name, figure, target] of [['', 'measured', 'target'] as const, ...rows]) console.log(`${name.padEnd(50)}${figure.padEnd(70)}${target}`);
  if (otherCpu > 0.1) console.log(`WARNING: other processes used up to ${otherCpu} cores during the runs; figures are unreliable.`);
  console.log(
    `\nRESULT ${JSON.stringify({
      bench: 'sign-in',
      users: USERS,
      pageBytes,
      staticPage: staticPages,
      signInPage: signInPages,
      p95Ratio,
      totp: { service: totpService, rawPerSecond: totpRaw },
      passkeys: { service: passkeyService, rawPerSecond: es256Raw },
      inFlight: IN_FLIGHT,
      otherCpu,
      targets: TARGETS,
    })}`,
  );
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
}

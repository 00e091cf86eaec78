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

const mark = () => ({ ours: treeCpuSeconds(process.pid), machine: machineBusySeconds(), at: performance.now() });
/** Cores other processes of the machine used since `before` (not this one, its Postgres or its load worker). */
const otherCpuSince = (before: ReturnType<typeof mark>) => {
  const seconds = (performance.now() - before.at) / 1000;
  const ours = treeCpuSeconds(process.pid) - before.ours;
  return Math.max(0, Math.round(((machineBusySeconds() - before.machine - ours) / seconds) * 100) / 100);
};
let otherCpu = 0;
async function measured<T>(work: () => Promise<T> | T): Promise<T> {
  const before = mark();
  const result = await work();
  otherCpu = Math.max(otherCpu, otherCpuSince(before));
  return result;
}

async function pages(options: PageLoadOptions): Promise<PageLoadResult> {
  await worker.run({ ...options, duration: WARMUP });
  const result = await measured(() => worker.run(options));
  if (result.errors) throw new Error(`${options.kind} page: ${result.errors} errors, the first: ${result.firstError}`);
  return result;
}
const lowerP95 = (a: PageLoadResult, b: PageLoadResult) => (a.page.p95 <= b.page.p95 ? a : b);

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
  const runs: [PageLoadResult, PageLoadResult][] = [];
  for (let i = 0; i < 2; i++) runs.push([await pages(staticLoad), await pages(signInLoad)]);
  const staticPages = lowerP95(runs[0]![0], runs[1]![0]);
  const signInPages = lowerP95(runs[0]![1], runs[1]![1]);
  const p95Ratio = Math.round((signInPages.page.p95 / staticPages.page.p95) * 10) / 10;

  // (2) The factors, each beside its raw crypto.
  const totp = await prepareTotp(service, env, TOTP_USERS, 8);
  await totp.service(IN_FLIGHT, WARMUP);
  const totpService = await measured(() => totp.service(IN_FLIGHT, DURATION));
  const totpRaw = await measured(() => totp.raw(DURATION));
  const passkeys = await preparePasskeys(service, env, PASSKEY_USERS);
  await passkeys.service(IN_FLIGHT, WARMUP);
  const passkeyService = await measured(() => passkeys.service(IN_FLIGHT, DURATION));
  const es256Raw = await measured(() => passkeys.raw(DURATION));
  for (const [name, run] of [['verifyTotp', totpService] as const, ['passkey sign-in', passkeyService] as const]) {
    if (run.failures) throw new Error(`${name}: ${run.failures} failures, the first: ${run.firstFailure}`);
  }

  const ms = (l: { p50: number; p95: number }) => `p50 ${l.p50} ms, p95 ${l.p95} ms`;
  const rows: [string, string, string][] = [
    [`baseline: static page (${staticBytes} B, same app)`, `${ms(staticPages.page)}, ${staticPages.requestsPerSecond} req/s`, ''],
    [
      `(1) sign-in page (${pageBytes} B), fresh interaction`,
      `${ms(signInPages.page)}, ${signInPages.pagesPerSecond} pages/s`,
      `p95 <= ${TARGETS.pageP95Ms} ms: ${signInPages.page.p95 <= TARGETS.pageP95Ms ? 'OK' : 'ABOVE TARGET'}`,
    ],
    ['    its GET /auth (303) before', `${ms(signInPages.authorize!)}; ${signInPages.requestsPerSecond} req/s both`, ''],
    ['    p95 ratio sign-in / static', `${p95Ratio}`, ''],
    ['baseline: otpauth TOTP.validate alone', `${totpRaw} validations/s (1 thread)`, ''],
    ['(2) verifyTotp (database, replay guard)', `${totpService.perSecond} verifications/s (${IN_FLIGHT} in flight)`, ''],
    ['baseline: ES256 verify alone (node:crypto)', `${es256Raw} verifies/s (1 thread)`, ''],
    [
      '(2) passkey sign-in (options → get → verify)',
      `${passkeyService.perSecond} sign-ins/s (${IN_FLIGHT} in flight); authenticator ${passkeyService.signMsEach} ms each`,
      '',
    ],
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

// Closed-loop virtual users over one keep-alive connection each (50 users = 50 requests in flight). A sign-in user
// starts an authorization (GET /auth → 303 with the interaction's cookies) and GETs the interaction page with those
// cookies: each page is a fresh interaction found and rendered, never a cached answer. A static user GETs one URL.
// Latencies run from handing the request to its connection to the end of the body.
import { Pool } from 'undici';
import { closedLoop } from '../closed-loop.ts';

export type PageLoadOptions = { users: number; duration: number } & ({ kind: 'static'; url: string } | { kind: 'sign-in'; authorizeUrl: string });
export type Latencies = { n: number; p50: number; p95: number; p99: number; max: number };
export interface PageLoadResult {
  seconds: number;
  /** Every HTTP request answered (a sign-in user's iteration is two). */
  requestsPerSecond: number;
  /** Pages answered per second: the static page, or the sign-in page. */
  pagesPerSecond: number;
  page: Latencies;
  /** The GET /auth before each sign-in page. */
  authorize?: Latencies;
  errors: number;
  firstError?: string;
}

const round = (ms: number) => Math.round(ms * 100) / 100;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
export function latencies(list: number[]): Latencies {
  const sorted = [...list].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? 0),
  };
}

/** The `name=value` pairs of Set-Cookie lines, as a Cookie header. */
export const cookiesOf = (header: string | string[] | undefined) =>
  [header ?? []]
    .flat()
    .map((line) => line.split(';')[0]!.trim())
    .filter((pair) => pair.includes('='))
    .join('; ');

export async function pageLoad(options: PageLoadOptions): Promise<PageLoadResult> {
  const target = new URL(options.kind === 'static' ? options.url : options.authorizeUrl);
  const pool = new Pool(target.origin, { connections: options.users, pipelining: 1 });
  const pages: number[] = [];
  const authorizes: number[] = [];
  let requests = 0;
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const sent = performance.now();
    const res = await pool.request({ path, method: 'GET', headers });
    const body = await res.body.text();
    requests++;
    return { status: res.statusCode, headers: res.headers, body, ms: performance.now() - sent };
  };
  const iteration = async () => {
    if (options.kind === 'static') {
      const page = await get(target.pathname + target.search);
      if (page.status !== 200) throw new Error(`static page: ${page.status}`);
      return void pages.push(page.ms);
    }
    const start = await get(target.pathname + target.search);
    const location = start.headers.location;
    if (start.status !== 303 || typeof location !== 'string') throw new Error(`GET /auth: ${start.status} ${start.body.slice(0, 200)}`);
    authorizes.push(start.ms);
    const url = new URL(location, target);
    const page = await get(url.pathname + url.search, { cookie: cookiesOf(start.headers['set-cookie']), 'accept-language': 'en' });
    if (page.status !== 200 || !page.body.includes('<form')) throw new Error(`sign-in page: ${page.status} ${page.body.slice(0, 200)}`);
    pages.push(page.ms);
  };
  const { seconds, errors, firstError } = await closedLoop(options.users, options.duration, iteration);
  await pool.close();
  return {
    seconds: round(seconds),
    requestsPerSecond: Math.round(requests / seconds),
    pagesPerSecond: Math.round(pages.length / seconds),
    page: latencies(pages),
    ...(options.kind === 'sign-in' ? { authorize: latencies(authorizes) } : {}),
    errors,
    firstError,
  };
}

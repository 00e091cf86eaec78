// Closed-loop virtual users making password sign-in attempts through the hosted pages, each on a fresh interaction:
// GET /auth (303 and the interaction's cookies) → GET the identifier page (its CSRF token) → POST …/login. Attempts
// 2k and 2k+1 sign in identifier k mod n, the first with a wrong password and the second with the right one, so a
// user's failures never pile up (a good password clears them); each attempt comes from its own client
// IP address (X-Forwarded-For; the bench's service trusts its own address as a proxy), so no address piles up either.
import { Pool } from 'undici';
import { closedLoop } from '../closed-loop.ts';
import { cookiesOf, latencies, type Latencies } from '../sign-in/page-load.ts';

export interface AttemptLoadOptions {
  authorizeUrl: string;
  identifiers: string[];
  password: string;
  /** Attempts in flight. */
  users: number;
  duration: number;
}
export interface AttemptLoadResult {
  seconds: number;
  attemptsPerSecond: number;
  /** The POST …/login alone. */
  login: Latencies;
  /** Answers of the POST by status: 401 a wrong password; 303 signed in; 200 a step-up page; 403/429 a refusal. */
  statuses: Record<string, number>;
  errors: number;
  firstError?: string;
}

const octet = () => Math.floor(Math.random() * 254) + 1;
/** A random unicast IPv4 address (first octet 1–223, not 10 or 127): mostly public, so geolocation has work to do. */
export const randomIp = () => {
  let first = octet();
  while (first === 10 || first === 127 || first > 223) first = octet();
  return `${first}.${octet()}.${octet()}.${octet()}`;
};
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

// Each user signs in from one place and keeps the device cookie its sign-ins gave it, from one load to the next, as a
// person's browser does (with a new address and no cookie each time, device risk would step every sign-in up).
const devices = new Map<string, { ip: string; cookie: string }>();

export async function attemptLoad(options: AttemptLoadOptions): Promise<AttemptLoadResult> {
  const target = new URL(options.authorizeUrl);
  const pool = new Pool(target.origin, { connections: options.users, pipelining: 1 });
  const logins: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const n = options.identifiers.length;
  const deviceOf = (identifier: string) => {
    const key = `${target.pathname}|${identifier}`;
    return devices.get(key) ?? devices.set(key, { ip: randomIp(), cookie: '' }).get(key)!;
  };
  const send = async (path: string, method: 'GET' | 'POST', headers: Record<string, string>, body?: string) => {
    const res = await pool.request({ path, method, headers: { 'user-agent': USER_AGENT, 'accept-language': 'en', ...headers }, body });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };
  const attempt = async () => {
    const i = next++;
    const identifier = options.identifiers[Math.floor(i / 2) % n]!;
    const password = i % 2 === 0 ? 'not the password' : options.password;
    const start = await send(target.pathname + target.search, 'GET', {});
    const location = start.headers.location;
    if (start.status !== 303 || typeof location !== 'string') throw new Error(`GET /auth: ${start.status} ${start.body.slice(0, 200)}`);
    const page = new URL(location, target);
    const cookie = cookiesOf(start.headers['set-cookie']);
    const form = await send(page.pathname, 'GET', { cookie });
    const csrf = /name="csrf" value="([^"]*)"/.exec(form.body)?.[1];
    if (form.status !== 200 || !csrf) throw new Error(`sign-in page: ${form.status} ${form.body.slice(0, 200)}`);
    const device = deviceOf(identifier);
    const sent = performance.now();
    const login = await send(
      `${page.pathname}/login`,
      'POST',
      {
        cookie: [cookie, device.cookie].filter((c) => c !== '').join('; '),
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': device.ip,
      },
      new URLSearchParams({ csrf, identifier, password }).toString(),
    );
    const kept = cookiesOf(login.headers['set-cookie'])
      .split('; ')
      .find((pair) => pair.startsWith('iam_device='));
    if (kept) device.cookie = kept;
    logins.push(performance.now() - sent);
    statuses[login.status] = (statuses[login.status] ?? 0) + 1;
    if (login.status >= 500) throw new Error(`POST …/login: ${login.status} ${login.body.slice(0, 200)}`);
  };
  const { seconds, errors, firstError } = await closedLoop(options.users, options.duration, attempt);
  await pool.close();
  return {
    seconds: Math.round(seconds * 100) / 100,
    attemptsPerSecond: Math.round((logins.length / seconds) * 10) / 10,
    login: latencies(logins),
    statuses,
    errors,
    firstError,
  };
}

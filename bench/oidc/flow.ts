// One authorization-code flow over HTTP, as a browser without JavaScript makes it: authorize → login page → POST the
// login form → consent page → POST it → the redirect to the client with a code → the token request (code + PKCE).
// Pages are read as HTML: the first form's action and hidden fields, with the user name and password filled in.
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'undici';

export interface FlowTarget {
  issuer: string;
  client: { id: string; secret: string };
  redirectUri: string;
  userName: string;
  password: string;
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');
const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The first form of a page: where it posts, and its fields with the user's credentials filled in. */
export function firstForm(page: string, target: FlowTarget): { action: string; fields: URLSearchParams } {
  const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(page);
  if (!form) throw new Error(`no form on the page: ${page.slice(0, 300)}`);
  const fields = new URLSearchParams();
  for (const input of form[2]!.matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    if (!name) continue;
    const type = /type="([^"]*)"/.exec(input[0])?.[1] ?? 'text';
    const value = unescapeHtml(/value="([^"]*)"/.exec(input[0])?.[1] ?? '');
    if (type === 'password') fields.set(name, target.password);
    else if (type === 'hidden') fields.set(name, value);
    else if (type === 'text' || type === 'email') fields.set(name, target.userName);
  }
  return { action: unescapeHtml(form[1]!), fields };
}

/** An answer as the flow reads it. */
interface Answer {
  status: number;
  location: string | undefined;
  text(): Promise<string>;
}

/** Told of each answer once it has arrived (bench/oidc/profile.ts lists each step's SQL statements). */
export type Observer = (method: string, url: string, status: number) => Promise<void>;

// undici's `request` rather than `fetch`: the driver shares the 2 cores with the service it measures, and fetch's
// WHATWG layers cost it twice as much CPU per flow (5.1 ms against 2.7).
class Jar {
  private readonly cookies = new Map<string, string>();
  private readonly observe: Observer | undefined;
  constructor(observe?: Observer) {
    this.observe = observe;
  }
  async fetch(url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await request(url, { method: init.method ?? 'GET', headers: { ...init.headers, ...(cookie ? { cookie } : {}) }, body: init.body });
    const setCookie = response.headers['set-cookie'];
    for (const line of setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(at + 1));
    }
    const location = response.headers.location;
    await this.observe?.(init.method ?? 'GET', url, response.statusCode);
    return { status: response.statusCode, location: typeof location === 'string' ? location : undefined, text: () => response.body.text() };
  }
}

/** Runs one flow; resolves with the token response (throws on any unexpected answer). */
export async function authorizationCodeFlow(target: FlowTarget, observe?: Observer): Promise<{ access_token: string; id_token: string }> {
  const jar = new Jar(observe);
  const verifier = b64url(randomBytes(32));
  const authorize = new URL(`${target.issuer}/auth`);
  for (const [k, v] of Object.entries({
    client_id: target.client.id,
    response_type: 'code',
    redirect_uri: target.redirectUri,
    scope: 'openid profile email',
    state: b64url(randomBytes(12)),
    nonce: b64url(randomBytes(12)),
    code_challenge: b64url(createHash('sha256').update(verifier).digest()),
    code_challenge_method: 'S256',
  }))
    authorize.searchParams.set(k, v);
  let response = await jar.fetch(authorize.href);
  let url = authorize.href;
  for (let hops = 0; hops < 12; hops++) {
    if (response.status >= 300 && response.status < 400) {
      const next = new URL(response.location!, url);
      await response.text();
      if (next.href.startsWith(target.redirectUri)) return token(target, next, verifier, observe);
      url = next.href;
      response = await jar.fetch(url);
    } else if (response.status === 200) {
      const { action, fields } = firstForm(await response.text(), target);
      url = new URL(action, url).href;
      response = await jar.fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields.toString() });
    } else {
      throw new Error(`${url}: ${response.status} ${(await response.text()).slice(0, 300)}`);
    }
  }
  throw new Error('too many steps');
}

async function token(target: FlowTarget, callback: URL, verifier: string, observe?: Observer) {
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${callback.href}`);
  const response = await request(`${target.issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${target.client.id}:${target.client.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: target.redirectUri, code_verifier: verifier }).toString(),
  });
  await observe?.('POST', `${target.issuer}/token`, response.statusCode);
  const body = (await response.body.json()) as { access_token: string; id_token: string };
  if (response.statusCode !== 200 || !body.id_token) throw new Error(`token: ${response.statusCode} ${JSON.stringify(body)}`);
  return body;
}

// HTTP as a load balancer's client sees it: a request to one instance, its status and body, and a connection
// error (an instance killed mid-request) as status 0, never a throw.
export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export async function call(base: string, method: string, path: string, auth: string, body?: unknown): Promise<Answer> {
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  } catch {
    return { status: 0, body: {} };
  }
}

/** The same, but anything but `expected` throws with the answer in the message (the set-up steps). */
export async function must(expected: number, base: string, method: string, path: string, auth: string, body?: unknown) {
  const answer = await call(base, method, path, auth, body);
  if (answer.status !== expected) throw new Error(`${method} ${path} on ${base}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function clientToken(base: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${base}/v1/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  if (!response.ok) throw new Error(`token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

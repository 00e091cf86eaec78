// A local Stripe API speaking the shapes the `stripe` SDK calls (form-encoded bodies with bracketed keys, Bearer
// secret key, Idempotency-Key), recording each request so tests check what Stripe received: GET /v1/balance,
// products (retrieve, create with a given id, update), prices (create, archive), and GET /v1/subscriptions (paged
// with `starting_after`). Subscriptions are added by the test, as a customer's checkout would create them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

type Fields = Record<string, unknown>;

export interface StripeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Fields;
  idempotencyKey: string | undefined;
}

export interface StripeFake {
  url: string;
  requests: StripeRequest[];
  products: Map<string, Fields>;
  prices: Map<string, Fields>;
  subscriptions: Map<string, Fields>;
  /** Adds (or replaces) a subscription to `priceId` for an organization, as Stripe would show it. */
  subscribe(s: { id?: string; priceId: string; organizationId: string; status?: string; customer?: string }): Fields;
  /** The writes (POSTs) received, as `METHOD path`. */
  writes(): string[];
  close(): Promise<void>;
}

/** `a[b][c]=v` and `a[]=v` form fields → nested objects and arrays. */
function parseForm(raw: string): Fields {
  const out: Fields = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p, i) => p !== '' || i === 0);
    let node = out as Record<string, unknown>;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  return out;
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

export async function startStripeFake(secretKey: string): Promise<StripeFake> {
  const requests: StripeRequest[] = [];
  const products = new Map<string, Fields>();
  const prices = new Map<string, Fields>();
  const subscriptions = new Map<string, Fields>();
  const idempotent = new Map<string, string>();

  const handle = (req: StripeRequest): [number, unknown] => {
    const missing = (what: string): [number, unknown] => [
      404,
      { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}` } },
    ];
    const [, , resource, rid] = req.path.split('/');
    if (req.method === 'GET' && resource === 'balance') return [200, { object: 'balance', available: [], pending: [], livemode: false }];
    if (resource === 'products') {
      if (req.method === 'GET') return products.has(rid!) ? [200, products.get(rid!)] : missing(`product: '${rid}'`);
      if (rid) {
        if (!products.has(rid)) return missing(`product: '${rid}'`);
        products.set(rid, { ...products.get(rid), ...req.body, updated: now() });
        return [200, products.get(rid)];
      }
      const pid = (req.body.id as string | undefined) ?? id('prod');
      if (products.has(pid)) return [400, { error: { type: 'invalid_request_error', code: 'resource_already_exists', message: 'Product already exists.' } }];
      products.set(pid, { object: 'product', active: true, created: now(), ...req.body, id: pid });
      return [200, products.get(pid)];
    }
    if (resource === 'prices' && req.method === 'POST') {
      if (rid) {
        if (!prices.has(rid)) return missing(`price: '${rid}'`);
        prices.set(rid, { ...prices.get(rid), active: req.body.active !== 'false' });
        return [200, prices.get(rid)];
      }
      if (!products.has(req.body.product as string)) return missing(`product: '${String(req.body.product)}'`);
      const pid = id('price');
      const body = req.body as { currency: string; unit_amount: string; recurring?: { interval: string } };
      prices.set(pid, {
        object: 'price',
        id: pid,
        active: true,
        product: req.body.product,
        currency: body.currency,
        unit_amount: Number(body.unit_amount),
        recurring: body.recurring,
        metadata: req.body.metadata ?? {},
      });
      return [200, prices.get(pid)];
    }
    if (resource === 'subscriptions' && req.method === 'GET') {
      const all = [...subscriptions.values()];
      const after = req.query.starting_after ? all.findIndex((s) => s.id === req.query.starting_after) + 1 : 0;
      const limit = Number(req.query.limit ?? 10);
      const page = all.slice(after, after + limit);
      return [200, { object: 'list', url: '/v1/subscriptions', data: page, has_more: after + limit < all.length }];
    }
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${req.path})` } }];
  };

  const server = http.createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://stripe.local');
      const entry: StripeRequest = {
        method: request.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body: parseForm(raw),
        idempotencyKey: request.headers['idempotency-key'] as string | undefined,
      };
      requests.push(entry);
      const send = (status: number, body: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') }).end(JSON.stringify(body));
      if (request.headers.authorization !== `Bearer ${secretKey}`) {
        return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_***' } });
      }
      const replayed = entry.idempotencyKey && idempotent.get(entry.idempotencyKey);
      if (replayed) return send(200, JSON.parse(replayed));
      const [status, body] = handle(entry);
      if (entry.idempotencyKey && status === 200) idempotent.set(entry.idempotencyKey, JSON.stringify(body));
      send(status, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    products,
    prices,
    subscriptions,
    subscribe: (s) => {
      const price = prices.get(s.priceId);
      const sid = s.id ?? id('sub');
      const end = now() + 30 * 86_400;
      const sub = {
        id: sid,
        object: 'subscription',
        customer: s.customer ?? 'cus_fake',
        status: s.status ?? 'active',
        cancel_at_period_end: false,
        created: now(),
        metadata: { organizationId: s.organizationId },
        items: { object: 'list', data: [{ id: id('si'), object: 'subscription_item', price, current_period_end: end, quantity: 1 }] },
      };
      subscriptions.set(sid, sub);
      return sub;
    },
    writes: () => requests.filter((r) => r.method === 'POST').map((r) => `${r.method} ${r.path}`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// The billing-sync process on both engines, against a local Stripe fake: asked to sync (POST …/billing/sync), it
// pushes the plan as a product and its price (once: idempotent over later rounds), pulls a subscription created in
// Stripe into the organization's entitlements, keeps syncing every interval across a restart of the engine, and
// mirrors a cancellation made in Stripe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startStripeFake, type StripeFake } from '../helpers/vendor-fakes/stripe.ts';

const SECRET_KEY = 'sk_test_billingsync0123456789';
const POLL = { timeout: 30_000, interval: 100 };

describe.each(ENGINES)('billing sync process (%s)', (engine) => {
  let t: TestAppWithProcesses;
  let stripe: StripeFake;
  let token: string;
  let base: string;
  let tenantId: string;
  let environmentId: string;
  const call = async (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) => {
    const res = await t.app.inject({ method, url: `${base}${path}`, headers: bearer(token), ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };
  beforeAll(async () => {
    stripe = await startStripeFake(SECRET_KEY);
    t = await startTestAppWithProcesses({ engine });
    token = await t.token();
    ({
      tenantId,
      environmentIds: [environmentId],
    } = (await newEnvironments(t, token)) as { tenantId: string; environmentIds: [string] });
    base = `/v1/tenants/${tenantId}/environments/${environmentId}`;
  });
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  it('pushes the catalog once, pulls subscriptions every interval across a restart, and updates entitlements', async () => {
    const organizationId = t.credentials.organizationId;
    await call('POST', '/billing/features', { key: 'sso', name: 'SSO', kind: 'boolean' });
    const { plan } = await call('POST', '/billing/plans', {
      key: 'pro',
      name: 'Pro',
      features: { sso: true },
      prices: [{ currency: 'usd', amount: 4900, interval: 'month' }],
    });
    await call('PUT', '/add-ons/stripe', {
      active: true,
      config: { baseUrl: stripe.url },
      secrets: { secretKey: SECRET_KEY, webhookSecret: 'whsec_sync0123' },
    });
    expect((await call('POST', '/billing/sync', { intervalSeconds: 1 })).sync).toMatchObject({ intervalMs: 1000, lastSyncedAt: null });

    const product = `iam_${plan.id}`;
    await expect.poll(async () => (await call('GET', '/billing/plans/pro')).plan.prices[0].stripePriceId, POLL).toMatch(/^price_/);
    expect(stripe.products.get(product)).toMatchObject({ name: 'Pro', metadata: { planKey: 'pro', planId: plan.id, environmentId } });
    const [priceId] = [...stripe.prices.keys()];
    expect(stripe.prices.get(priceId!)).toMatchObject({ product, currency: 'usd', unit_amount: 4900, recurring: { interval: 'month' } });
    expect(stripe.requests.find((r) => r.path === '/v1/prices' && r.method === 'POST')?.idempotencyKey).toBe(`iam-price-${plan.prices[0].id}`);

    // A customer subscribes in Stripe (Checkout with metadata.organizationId): the next round pulls it.
    const subscription = stripe.subscribe({ priceId: priceId!, organizationId });
    const entitlements = async () => (await call('GET', `/billing/entitlements/${organizationId}`)).entitlements;
    await expect.poll(entitlements, POLL).toEqual({ sso: true });

    await t.restartProcesses();
    stripe.subscriptions.set(subscription.id as string, { ...subscription, status: 'canceled' });
    await expect.poll(entitlements, POLL).toEqual({});
    const pulls = stripe.requests.filter((r) => r.path === '/v1/subscriptions').length;
    await expect.poll(() => stripe.requests.filter((r) => r.path === '/v1/subscriptions').length, POLL).toBeGreaterThan(pulls);
    // Idempotent: later rounds created nothing more in Stripe.
    expect(stripe.writes().filter((w) => w === 'POST /v1/products' || w === 'POST /v1/prices')).toEqual(['POST /v1/products', 'POST /v1/prices']);
    const sync = (await call('GET', '/billing/sync')).sync;
    expect(sync).toMatchObject({ lastError: null, productsPushed: 1, pricesPushed: 1, subscriptionsPulled: 2 });
    const types = (await tenantEvents(t, tenantId, { environmentId }))
      .map((e) => e.type)
      .filter((type) => /^billing\.(sync|subscription|entitlements)/.test(type));
    expect(types).toEqual([
      'billing.sync.requested',
      'billing.sync.completed',
      'billing.subscription.created',
      'billing.entitlements.updated',
      'billing.sync.completed',
      'billing.subscription.updated',
      'billing.entitlements.updated',
      'billing.sync.completed',
    ]);
  });
});

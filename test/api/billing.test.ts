// Billing: the catalog (features, plans with prices), subscriptions of organizations and their entitlements, 400s
// naming fields, events; an AuthZEN condition on `subject.entitlements` flipping with a subscription; the `stripe`
// add-on's test and Stripe webhooks (signed as Stripe signs them) against a local Stripe fake.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { authzenEnvironment } from '../helpers/authzen.ts';
import { tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';
import { startStripeFake, type StripeFake } from '../helpers/vendor-fakes/stripe.ts';

const SECRET_KEY = 'sk_test_billing0123456789';
const WEBHOOK_SECRET = 'whsec_billingtest0123456789';
let t: TestApp;
let token: string;
let stripe: StripeFake;
let organizationId: string;
beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
  organizationId = t.credentials.organizationId;
  stripe = await startStripeFake(SECRET_KEY);
});
afterAll(async () => {
  await stripe?.close();
  await t?.close();
});

const billingOf = (tenantId: string, environmentId: string) => {
  const base = `/v1/tenants/${tenantId}/environments/${environmentId}`;
  return async (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, payload?: object, auth = token) => {
    const res = await t.app.inject({ method, url: `${base}${path}`, headers: bearer(auth), ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.json() };
  };
};

async function catalog() {
  const { tenantId, environmentIds } = await newEnvironments(t, token);
  const environmentId = environmentIds[0]!;
  const call = billingOf(tenantId, environmentId);
  expect((await call('POST', '/billing/features', { key: 'sso', name: 'Single sign-on', kind: 'boolean' })).status).toBe(201);
  expect((await call('POST', '/billing/features', { key: 'seats', name: 'Seats', kind: 'limit', unit: 'seat' })).status).toBe(201);
  const plan = await call('POST', '/billing/plans', {
    key: 'pro',
    name: 'Pro',
    features: { sso: true, seats: 25 },
    prices: [{ currency: 'usd', amount: 4900, interval: 'month' }],
  });
  expect(plan.status, JSON.stringify(plan.body)).toBe(201);
  return { tenantId, environmentId, call, plan: plan.body.plan };
}

describe('billing catalog and entitlements', () => {
  it('keeps features and plans, answers 400s naming fields and 409s, and events every change', async () => {
    const { tenantId, environmentId, call, plan } = await catalog();
    expect(plan).toEqual({
      id: expect.any(String),
      environmentId,
      key: 'pro',
      name: 'Pro',
      description: null,
      features: { sso: true, seats: 25 },
      prices: [{ id: expect.any(String), currency: 'usd', amount: 4900, interval: 'month', stripePriceId: null }],
      stripeProductId: null,
      syncedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const bad = await call('POST', '/billing/plans', { key: 'Team', name: 'Team', features: { sso: 3, nope: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { path: string }) => d.path)).toEqual(['body.key']);
    const wrong = await call('POST', '/billing/plans', { key: 'team', name: 'Team', features: { sso: 3, nope: true } });
    expect(wrong.body).toMatchObject({ code: 'billing_plan.invalid', details: [{ path: 'body.features.sso' }, { path: 'body.features.nope' }] });
    expect((await call('POST', '/billing/features', { key: 'sso', name: 'Again', kind: 'boolean' })).body.code).toBe('billing_feature.exists');
    expect((await call('DELETE', '/billing/features/sso')).body.code).toBe('billing_feature.in_use');
    const updated = await call('PATCH', '/billing/plans/pro', {
      prices: [
        { currency: 'usd', amount: 4900, interval: 'month' },
        { currency: 'eur', amount: 4500, interval: 'month' },
      ],
    });
    expect(updated.body.plan.prices.map((p: { id: string; currency: string }) => p.currency)).toEqual(['usd', 'eur']);
    expect(updated.body.plan.prices[0].id).toBe(plan.prices[0].id);
    const listed = await call('GET', '/billing/plans?limit=1', undefined, await t.token('billing:read'));
    expect(listed.body).toMatchObject({ plans: [{ key: 'pro' }], total: 1, nextCursor: null, hasMore: false });
    const types = (await tenantEvents(t, tenantId, { environmentId })).map((e) => e.type).filter((type) => type.startsWith('billing.'));
    expect(types).toEqual(['billing.feature.created', 'billing.feature.created', 'billing.plan.created', 'billing.plan.updated']);
  });

  it('gives an organization its plan’s entitlements through a subscription, and an AuthZEN condition follows them', async () => {
    const { tenantId, environmentId, call } = await catalog();
    const pdp = await authzenEnvironment(
      t,
      {
        users: [{ userName: 'alice' }],
        resourceTypes: [{ key: 'settings', actions: ['configure_sso'], storedInstancesOnly: false }],
        roles: [
          {
            key: 'admin',
            permissions: [{ type: 'settings', action: 'configure_sso', condition: "'sso' in subject.entitlements && subject.entitlements.seats >= 10" }],
          },
        ],
        assignments: [{ role: 'admin', user: 'alice' }],
      },
      { tenantId, environmentId },
    );
    const decide = async () =>
      (
        await pdp.post('evaluation', {
          subject: { type: 'user', id: 'alice', properties: { organizationId } },
          action: { name: 'configure_sso' },
          resource: { type: 'settings', id: 'main' },
          options: { explain: true },
        })
      ).body;
    expect(await decide()).toMatchObject({ decision: false, context: { reason: { code: 'condition_not_met' } } });
    expect((await call('GET', `/billing/entitlements/${organizationId}`)).body).toEqual({ organizationId, entitlements: {}, plans: [], updatedAt: null });

    const created = await call('POST', '/billing/subscriptions', { organizationId, planKey: 'pro', status: 'trialing' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.subscription).toMatchObject({ organizationId, planKey: 'pro', status: 'trialing', source: 'api', stripeSubscriptionId: null });
    const entitlements = await call('GET', `/billing/entitlements/${organizationId}`, undefined, await t.token('billing:read'));
    expect(entitlements.body).toEqual({ organizationId, entitlements: { sso: true, seats: 25 }, plans: ['pro'], updatedAt: expect.any(String) });
    expect(await decide()).toMatchObject({ decision: true });

    const { id } = created.body.subscription;
    expect((await call('PATCH', `/billing/subscriptions/${id}`, { status: 'canceled' })).body.subscription.status).toBe('canceled');
    expect((await call('GET', `/billing/entitlements/${organizationId}`)).body.entitlements).toEqual({});
    expect(await decide()).toMatchObject({ decision: false, context: { reason: { code: 'condition_not_met' } } });

    const other = await otherOrganization(t);
    const refused = await call('POST', '/billing/subscriptions', { organizationId: other.organizationId, planKey: 'pro' });
    expect(refused.body).toMatchObject({ code: 'request.invalid', details: [{ path: 'body.organizationId' }] });
    expect((await call('GET', `/billing/entitlements/${other.organizationId}`)).status).toBe(404);
    expect((await call('POST', '/billing/subscriptions', { organizationId, planKey: 'nope' })).body.details).toEqual([
      { path: 'body.planKey', message: 'is not a plan of this environment' },
    ]);
    const events = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type === 'billing.entitlements.updated');
    expect(events.map((e) => e.data.entitlements)).toEqual([{ sso: true, seats: 25 }, {}]);
  });
});

describe('the stripe add-on and Stripe webhooks', () => {
  it('tests the secret key against the Stripe API, applies signed subscription events once, and refuses bad signatures', async () => {
    const { tenantId, environmentId, call, plan } = await catalog();
    const saved = await call('PUT', '/add-ons/stripe', {
      active: true,
      config: { baseUrl: stripe.url },
      secrets: { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.addOn).toMatchObject({ kind: 'stripe', category: 'payments', secretHints: { secretKey: '…6789', webhookSecret: '…6789' } });
    expect((await call('POST', '/add-ons/stripe/test')).body).toEqual({ success: true, errorCodes: [], secretAccepted: true });
    expect(stripe.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/balance' });
    const invalid = await call('PUT', '/add-ons/stripe', { secrets: { secretKey: 'nope' } });
    expect(invalid.body.details).toEqual([{ path: 'body.secrets.secretKey', message: expect.stringContaining('Stripe secret') }]);

    // The product the sync would have pushed: the subscription names the plan by its product.
    const subscription = {
      id: 'sub_webhook1',
      object: 'subscription',
      customer: 'cus_1',
      status: 'active',
      cancel_at_period_end: false,
      metadata: { organizationId },
      items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_unknown', product: `iam_${plan.id}` }, current_period_end: 1_900_000_000 }] },
    };
    const deliver = async (id: string, type: string, object: object, secret = WEBHOOK_SECRET) => {
      const payload = JSON.stringify({ id, object: 'event', type, created: Math.floor(Date.now() / 1000), data: { object } });
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/billing/stripe/${environmentId}/webhook`,
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        payload,
      });
      return { status: res.statusCode, body: res.json() };
    };
    await t.pool.query((await import('slonik')).sql.unsafe`UPDATE billing_plans SET stripe_product_id = ${`iam_${plan.id}`} WHERE id = ${plan.id}`);
    expect(await deliver('evt_1', 'customer.subscription.created', subscription)).toEqual({ status: 200, body: { received: true, outcome: 'changed' } });
    expect(await deliver('evt_1', 'customer.subscription.created', subscription)).toEqual({ status: 200, body: { received: true, outcome: 'duplicate' } });
    expect((await deliver('evt_2', 'customer.subscription.updated', subscription, 'whsec_wrong')).body.code).toBe('stripe.signature_invalid');
    expect((await call('GET', `/billing/entitlements/${organizationId}`)).body.entitlements).toEqual({ sso: true, seats: 25 });
    const listed = await call('GET', `/billing/subscriptions?organizationId=${organizationId}`);
    expect(listed.body.subscriptions).toEqual([
      expect.objectContaining({ source: 'stripe', stripeSubscriptionId: 'sub_webhook1', status: 'active', currentPeriodEnd: '2030-03-17T17:46:40.000Z' }),
    ]);
    expect((await call('PATCH', `/billing/subscriptions/${listed.body.subscriptions[0].id}`, { status: 'canceled' })).body.code).toBe(
      'billing_subscription.managed_by_stripe',
    );
    const invoice = {
      id: 'in_1',
      object: 'invoice',
      status: 'paid',
      currency: 'usd',
      amount_due: 4900,
      amount_paid: 4900,
      parent: { subscription_details: { subscription: 'sub_webhook1' } },
    };
    expect((await deliver('evt_3', 'invoice.paid', invoice)).body.outcome).toBe('recorded');
    expect((await deliver('evt_4', 'customer.subscription.deleted', { ...subscription, status: 'canceled' })).body.outcome).toBe('changed');
    expect((await call('GET', `/billing/entitlements/${organizationId}`)).body.entitlements).toEqual({});

    const events = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => /^billing\.(subscription|invoice)/.test(e.type));
    expect(events.map((e) => [e.type, e.data.stripeEventId])).toEqual([
      ['billing.subscription.created', 'evt_1'],
      ['billing.invoice.updated', 'evt_3'],
      ['billing.subscription.updated', 'evt_4'],
    ]);
  });
});

import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { buildWebhookRequest } from '../../lib/webhook-request.ts';
import { signWebhookPayload, verifyWebhookSignature } from '../../lib/webhook-signature.js';

const secretA = 'whsec_c2VjcmV0LWEtMDEyMzQ1Njc4OWFiY2RlZg';
const secretB = 'whsec_c2VjcmV0LWItMDEyMzQ1Njc4OWFiY2RlZg';
const body = JSON.stringify({ id: 'evt_1', type: 'tenant.created', createdAt: '2025-01-01T00:00:00Z', data: { é: '✓' } });
const t = 1_700_000_000;

describe('webhook signatures', () => {
  it('round-trips', () => {
    const header = signWebhookPayload(body, [secretA], t);
    expect(header).toMatch(/^t=1700000000, v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(body, header, secretA, { nowSeconds: t })).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), header, [secretA], { nowSeconds: t })).toBe(true);
  });

  it('emits one v1 per secret and either secret verifies', () => {
    const header = signWebhookPayload(body, [secretA, secretB], t);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhookSignature(body, header, secretA, { nowSeconds: t })).toBe(true);
    expect(verifyWebhookSignature(body, header, [secretB], { nowSeconds: t })).toBe(true);
  });

  it('rejects a tampered body and a wrong secret', () => {
    const header = signWebhookPayload(body, [secretA], t);
    expect(verifyWebhookSignature(body.replace('tenant', 'Tenant'), header, secretA, { nowSeconds: t })).toBe(false);
    expect(verifyWebhookSignature(body, header, 'whsec_other', { nowSeconds: t })).toBe(false);
    expect(verifyWebhookSignature(body, header, [], { nowSeconds: t })).toBe(false);
  });

  it('enforces the timestamp tolerance (default 300 s)', () => {
    const header = signWebhookPayload(body, [secretA], t);
    expect(verifyWebhookSignature(body, header, secretA, { nowSeconds: t + 300 })).toBe(true);
    expect(verifyWebhookSignature(body, header, secretA, { nowSeconds: t + 301 })).toBe(false);
    expect(verifyWebhookSignature(body, header, secretA, { nowSeconds: t - 301 })).toBe(false);
    expect(verifyWebhookSignature(body, header, secretA, { nowSeconds: t + 3600, toleranceSeconds: 3600 })).toBe(true);
    expect(verifyWebhookSignature(body, signWebhookPayload(body, [secretA]), secretA)).toBe(true);
  });

  it('parses headers with extra spaces and any order, rejects malformed ones', () => {
    const sig = signWebhookPayload(body, [secretA], t).split('v1=')[1]!;
    const ok = (header: string) => verifyWebhookSignature(body, header, secretA, { nowSeconds: t });
    expect(ok(`  t=${t} ,   v1=${sig}  `)).toBe(true);
    expect(ok(`v1=deadbeef,v1=${sig},t=${t}`)).toBe(true);
    expect(ok(`t=${t}`)).toBe(false);
    expect(ok(`v1=${sig}`)).toBe(false);
    expect(ok(`t=abc, v1=${sig}`)).toBe(false);
    expect(ok(`t=${t}, v1=${sig.toUpperCase()}`)).toBe(false);
    expect(ok('')).toBe(false);
  });

  it('matches an independent HMAC-SHA256 over `${t}.${rawBody}` (Stripe scheme)', () => {
    const expected = createHmac('sha256', Buffer.from(secretA, 'utf8')).update(`${t}.${body}`, 'utf8').digest('hex');
    expect(signWebhookPayload(body, [secretA], t)).toBe(`t=${t}, v1=${expected}`);
  });
});

// docs/events-and-webhooks.md documents exactly this: Stripe's verifier splits the header on "," without trimming, so the
// space the SPEC puts after the comma hides every v1; removing it is the whole adaptation.
describe("Stripe's verifier (stripe.webhooks.constructEvent) on our header", () => {
  const event = { id: '6f1c2b9e-0d3a-4e59-9a7b-2c8d1e4f5a60', type: 'tenant.created', occurredAt: '2025-01-01T00:00:00.000Z', data: { é: '✓' } };

  it('refuses the header as sent: no v1 is found behind the space', () => {
    const { body: sent, headers } = buildWebhookRequest(event, 'd-1', [secretA]);
    expect(headers['x-service-signature']).toMatch(/^t=\d+, v1=[0-9a-f]{64}$/);
    expect(() => Stripe.webhooks.constructEvent(sent, headers['x-service-signature'], secretA)).toThrow(
      expect.objectContaining({ type: 'StripeSignatureVerificationError', message: 'No signatures found with expected scheme' }),
    );
  });

  it('accepts it with the space removed, for every secret of a rotation', () => {
    const { body: sent, headers } = buildWebhookRequest(event, 'd-1', [secretA, secretB]);
    const adapted = headers['x-service-signature'].replaceAll(', ', ',');
    for (const secret of [secretA, secretB]) {
      expect(Stripe.webhooks.constructEvent(sent, adapted, secret)).toEqual({ id: event.id, type: event.type, createdAt: event.occurredAt, data: event.data });
    }
    expect(() => Stripe.webhooks.constructEvent(sent, adapted, 'whsec_other')).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/^No signatures found matching the expected signature for payload/) }),
    );
    // Our own verifier takes either form.
    expect(verifyWebhookSignature(sent, adapted, secretA)).toBe(true);
    expect(verifyWebhookSignature(sent, headers['x-service-signature'], secretA)).toBe(true);
  });
});

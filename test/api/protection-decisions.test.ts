// What a sign-in protection records when it acts (api/protections/decisions.ts): the audit entry naming the policy,
// the outcome's event, and for a denial the threat of the policy's category, added to by the next one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { rbacEnvironment } from '../helpers/rbac.ts';
import { recordDecision } from '../../api/protections/decisions.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('recordDecision', () => {
  it('records the policy in the audit entry and the event, and a denial opens one threat per subject that later denials add to', async () => {
    const token = await t.token();
    const { tenantId } = t.credentials;
    const { environmentId } = await rbacEnvironment(t, token);
    const origin = { ip: '203.0.113.7', userAgent: 'HeadlessChrome/120', requestId: 'req-1' };
    const denial = {
      environmentId,
      tenantId,
      policy: 'rate_limit' as const,
      flow: 'sign_in' as const,
      outcome: 'blocked' as const,
      reason: 'too_many_attempts',
      userId: null,
      login: 'ada@example.com',
      origin,
      threat: { severity: 'medium' as const, summary: 'Sign-in attempts over the rate limit' },
      details: { attempts: 11 },
    };
    const first = await recordDecision(t.pool, denial);
    const second = await recordDecision(t.pool, denial);
    expect(second).toBe(first);
    await recordDecision(t.pool, { ...denial, outcome: 'warned', policy: 'breached_password', reason: 'breached', threat: undefined });

    const threats = await t.app.inject({ method: 'GET', url: `/v1/tenants/${tenantId}/environments/${environmentId}/threats`, headers: bearer(token) });
    expect(threats.json().threats).toEqual([
      expect.objectContaining({
        id: first,
        category: 'sign_in.rate_limit',
        severity: 'medium',
        subject: 'ip:203.0.113.7',
        occurrences: 2,
        evidence: {
          flow: 'sign_in',
          reason: 'too_many_attempts',
          ip: '203.0.113.7',
          userAgent: 'HeadlessChrome/120',
          userId: null,
          login: 'ada@example.com',
          attempts: 11,
        },
      }),
    ]);
    const events = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type.startsWith('protection.') || e.type.startsWith('threat.'));
    expect(events.map((e) => e.type)).toEqual(['threat.created', 'protection.blocked', 'threat.updated', 'protection.blocked', 'protection.warned']);
    expect(events[1]!.data).toEqual({
      policy: 'rate_limit',
      flow: 'sign_in',
      reason: 'too_many_attempts',
      userId: null,
      login: 'ada@example.com',
      ip: '203.0.113.7',
      userAgent: 'HeadlessChrome/120',
      threatId: first,
      attempts: 11,
    });
    const audit = await auditEntries(t, { tenantId }, { action: 'protection.block' });
    expect(audit.map((a) => [a.resource, a.changes])).toEqual([
      [
        { type: 'environment', id: environmentId },
        { before: null, after: { policy: 'rate_limit', flow: 'sign_in', reason: 'too_many_attempts' } },
      ],
      [
        { type: 'environment', id: environmentId },
        { before: null, after: { policy: 'rate_limit', flow: 'sign_in', reason: 'too_many_attempts' } },
      ],
    ]);
  });
});

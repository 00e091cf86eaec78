// Elevate policies' caller-supplied patterns run on RE2 (linear time): a hostile ticket pattern is decided at once,
// a pattern RE2 refuses is a 400 naming the field at save, and the auto-approval condition's matches() is RE2 too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { startElevateApp, type elevateEnvironment } from '../helpers/elevate.ts';
import { longestStall } from '../helpers/event-loop.ts';

let t: TestApp;
let env: Awaited<ReturnType<typeof elevateEnvironment>>;
beforeAll(async () => ({ t, env } = await startElevateApp()));
afterAll(() => t.close());

const ask = (policyId: string, extra: Record<string, unknown> = {}) => env.call('POST', '/requests', { policyId, requesterId: env.users.alice, ...extra });

describe('elevate policy patterns', () => {
  it('accepts the ticket pattern ^((a)+)+$ and refuses a 29-character ticket at once, with the mismatch named', async () => {
    const policyId = await env.policy({ ticketPattern: '^((a)+)+$' });
    expect((await ask(policyId, { ticketId: 'aaaa' })).status).toBe(201); // the route is warm before anything is timed
    const { result, stallMs } = await longestStall(() => ask(policyId, { ticketId: `${'a'.repeat(29)}!` }));
    expect(result).toMatchObject({ status: 400, body: { code: 'elevate.ticket_mismatch', details: [{ path: 'body.ticketId' }] } });
    expect(stallMs).toBeLessThan(50);
  });

  it('matches anywhere unless anchored (RE2, as before)', async () => {
    const policyId = await env.policy({ ticketPattern: 'INC-[0-9]+' });
    expect((await ask(policyId, { ticketId: 'see INC-42' })).status).toBe(201);
    expect((await ask(policyId, { ticketId: 'INC-x' })).body).toMatchObject({ code: 'elevate.ticket_mismatch' });
  });

  it.each([
    ['(a)\\1', 'is not a valid RE2 regular expression (invalid escape sequence: `\\1`)'],
    ['(?=a)b', 'is not a valid RE2 regular expression'],
    ['[', 'is not a valid RE2 regular expression (missing closing ]: `[`)'],
    ['a{1,1000}', 'instructions; at most 200 are allowed'],
  ])('refuses the ticket pattern %j with a 400 naming body.ticketPattern', async (ticketPattern, message) => {
    const res = await env.call('POST', '/policies', {
      name: `p-${crypto.randomUUID().slice(0, 8)}`,
      target: { type: 'role', roleId: env.roles.admin },
      eligible: { groupIds: [env.groups.oncall] },
      approvers: { userIds: [env.users.bob] },
      maxDurationSeconds: 3600,
      ticketPattern,
    });
    expect(res).toMatchObject({ status: 400, body: { details: [{ path: 'body.ticketPattern', message: expect.stringContaining(message) }] } });
  });

  it('runs the auto-approval condition’s matches() on RE2 and refuses a pattern RE2 rejects at save', async () => {
    const policyId = await env.policy({ autoApprove: "request.ticketId.matches('^((a)+)+$')" });
    expect((await ask(policyId, { ticketId: 'aaa' })).body).toMatchObject({ request: { state: 'approved', autoApproved: true } });
    const { result, stallMs } = await longestStall(() => ask(policyId, { ticketId: `${'a'.repeat(29)}!` }));
    expect(result).toMatchObject({ status: 201, body: { request: { state: 'pending', autoApproved: false } } });
    expect(stallMs).toBeLessThan(50);
    const refused = await env.call('POST', '/policies', {
      name: 'bad-pattern',
      target: { type: 'role', roleId: env.roles.admin },
      eligible: { groupIds: [env.groups.oncall] },
      approvers: { userIds: [env.users.bob] },
      maxDurationSeconds: 3600,
      autoApprove: "request.ticketId.matches('(a)\\\\1')",
    });
    expect(refused).toMatchObject({
      status: 400,
      body: {
        code: 'elevate.invalid_condition',
        details: [{ path: 'body.autoApprove', message: expect.stringContaining('not a valid RE2 regular expression') }],
      },
    });
  });
});

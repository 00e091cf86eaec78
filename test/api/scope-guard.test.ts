// The scope guard on a route that names a tenant's resource by its own id (no :tenantId): the tenant is found
// through config.tenantOf, checked like any other, and a tenant seat narrows the token there all the same.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../api/access/principals.ts';
import { callerOf, registerAuth, requires } from '../../api/plugins/auth.ts';
import { registerErrorHandling } from '../../api/plugins/errors.ts';
import { registerScope } from '../../api/plugins/scope.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { seatUser } from '../helpers/seat-users.ts';

let t: TestApp;
let app: FastifyInstance;
const things = new Map<string, string>(); // thing id → tenant id

beforeAll(async () => {
  t = await startTestApp();
  const base = t.config.publicBaseUrl;
  app = Fastify();
  registerErrorHandling(app);
  registerAuth(app, createAuthenticator({ pool: t.pool, keys: t.keys, issuer: base, audience: `${base}/v1`, onError: () => {} }));
  registerScope(app, t.pool);
  const tenantOf = { param: 'thingId', resource: 'thing', find: async (_db: unknown, id: string) => things.get(id) ?? null };
  for (const scope of ['tenants:read', 'events:read']) {
    app.get(`/v1/things/:thingId/${scope.split(':')[0]}`, {
      config: { tenantOf },
      schema: { security: requires(scope) },
      handler: (request) => ({ tenantId: callerOf(request, 'tenant').scope.tenant.id }),
    });
  }
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await t.close();
});

const get = (url: string, token: string) => app.inject({ method: 'GET', url, headers: bearer(token) });

describe('scope guard, tenant found through config.tenantOf', () => {
  it('resolves the tenant of the named resource, and is 404 naming the resource when it is missing or out of reach', async () => {
    const thing = crypto.randomUUID();
    things.set(thing, t.credentials.tenantId);
    const ours = await get(`/v1/things/${thing}/tenants`, await t.token());
    expect(ours.statusCode).toBe(200);
    expect(ours.json()).toEqual({ tenantId: t.credentials.tenantId });

    const other = await otherOrganization(t);
    for (const id of [thing, crypto.randomUUID()]) {
      const res = await get(`/v1/things/${id}/tenants`, other.token);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('thing.not_found');
    }
  });

  it('narrows a seat user by the seat of the tenant resolved, though the route has no :tenantId', async () => {
    const thing = crypto.randomUUID();
    things.set(thing, t.credentials.tenantId);
    const admin = await t.token();
    const guest = await seatUser(t); // holds tenants:write and events:read
    const invited = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${t.credentials.tenantId}/invites`,
      headers: bearer(admin),
      payload: { email: guest.email, scopes: ['events:read'] },
    });
    const joined = await t.app.inject({
      method: 'POST',
      url: '/v1/tenants/join',
      headers: bearer(guest.token),
      payload: { invitationCode: invited.json().invitationCode },
    });
    expect(joined.statusCode).toBe(200);

    expect((await get(`/v1/things/${thing}/events`, guest.token)).statusCode).toBe(200);
    const narrowed = await get(`/v1/things/${thing}/tenants`, guest.token);
    expect(narrowed.statusCode).toBe(403);
    expect(narrowed.json().code).toBe('auth.insufficient_seat_scope');
  });
});

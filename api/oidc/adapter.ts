// The provider's storage: every model in oidc_payloads of the environment, except Client, which is read from
// oidc_clients. Sessions are mirrored into directory_sessions (the directory's view), with the caller's address
// and user agent taken from the provider's request context.
import Provider, { type Adapter, type AdapterPayload, type ClientMetadata } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { createOidcPayloadQueries } from '../../db/oidc/provider/payloads.ts';
import { createDirectorySessionWriteQueries } from '../../db/oidc/provider/sessions.ts';
import { createProviderClientQueries } from '../../db/oidc/provider/clients.ts';
import { clientMetadata } from './client-metadata.ts';
import { findAgentClient } from './agents.ts';
import { storeRegisteredClient } from './registration.ts';
import { recordRevocation } from './revocation-events.ts';

export interface AdapterDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  environmentId: string;
  tenantId: string;
  idleLifetimeSeconds: number;
}

const MAX_KNOWN_CLIENTS = 10_000;
const REVOCABLE = new Set(['AccessToken', 'RefreshToken', 'ClientCredentials']);
const TOKEN_MODELS = [...REVOCABLE];
type FoundRow = { payload: Record<string, unknown>; consumedAt: string | null };
const epoch = (value: unknown) => (typeof value === 'number' ? new Date(value * 1000) : null);
const text = (value: unknown) => (typeof value === 'string' ? value : null);

function currentRequest() {
  const ctx = Provider.ctx;
  return ctx ? { ip: ctx.ip ?? null, userAgent: ctx.get('user-agent') || null, route: ctx.oidc?.route ?? null } : null;
}

export function createAdapterFactory(deps: AdapterDeps) {
  const { pool, environmentId } = deps;
  const payloads = createOidcPayloadQueries(pool, environmentId);
  const sessions = createDirectorySessionWriteQueries(pool, environmentId);
  const clients = createProviderClientQueries(pool, environmentId);

  // Clients are written by the management API, and by RFC 7591 registration through `upsert` (./registration.ts,
  // open where oidc_settings.dynamic_registration says so: ./configuration.ts). The environment's OIDC clients as
  // read once per Provider: any change to oidc_clients rebuilds the Provider on every instance (iam_oidc NOTIFY), so
  // a token request neither queries nor decrypts. Agents are not kept: the trust store changes without that NOTIFY.
  const known = new Map<string, AdapterPayload>();

  // Introspection and revocation look a token up in each token model at once (oidc-provider's findToken): the
  // lookups of one id that one request starts together share one statement. Only while it runs, so a later
  // lookup in the same request (after a write) reads afresh.
  const tokenLookups = new WeakMap<object, Map<string, Promise<readonly (FoundRow & { model: string })[]>>>();
  const findTokenRow = async (model: string, id: string): Promise<FoundRow | null> => {
    const ctx = Provider.ctx;
    if (!ctx) return payloads.find(model, id);
    let running = tokenLookups.get(ctx);
    if (!running) tokenLookups.set(ctx, (running = new Map()));
    let lookup = running.get(id);
    if (!lookup) {
      const started = payloads.findAmong(TOKEN_MODELS, id);
      running.set(id, (lookup = started));
      const done = () => void (running.get(id) === started && running.delete(id));
      started.then(done, done);
    }
    return (await lookup).find((row) => row.model === model) ?? null;
  };
  const clientAdapter: Adapter = {
    find: async (id) => {
      const cached = known.get(id);
      if (cached) return cached;
      const row = await clients.findActive(id);
      // Not an OIDC client: a verified agent of the trust store (./agents.ts, private_key_jwt), or none.
      if (!row) return (await findAgentClient(pool, environmentId, id)) as AdapterPayload | undefined;
      const metadata = clientMetadata(row, deps) as AdapterPayload;
      if (known.size >= MAX_KNOWN_CLIENTS) known.delete(known.keys().next().value as string);
      known.set(id, metadata);
      return metadata;
    },
    upsert: (_id, payload) => storeRegisteredClient(pool, { tenantId: deps.tenantId, environmentId }, deps.masterKey, payload as ClientMetadata),
    findByUid: () => Promise.resolve(undefined),
    findByUserCode: () => Promise.resolve(undefined),
    destroy: () => Promise.reject(new Error('OIDC clients are managed through the API')),
    consume: () => Promise.resolve(undefined),
    revokeByGrantId: () => Promise.resolve(undefined),
  };

  const modelAdapter = (model: string): Adapter => {
    const found = (row: FoundRow | null) =>
      row ? ({ ...row.payload, ...(row.consumedAt ? { consumed: Math.floor(Date.parse(row.consumedAt) / 1000) } : {}) } as AdapterPayload) : undefined;
    return {
      upsert: async (id, payload, expiresIn) => {
        const p = payload as Record<string, unknown>;
        const record = {
          payload: p,
          grantId: model === 'Grant' ? id : text(p.grantId),
          uid: text(p.uid),
          userCode: text(p.userCode),
          accountId: text(p.accountId),
          clientId: text(p.clientId),
          expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : epoch(p.exp),
        };
        if (model === 'Session' && typeof p.accountId === 'string' && typeof p.uid === 'string') {
          // The record and the directory's row in one statement.
          const request = currentRequest();
          await sessions.upsert(
            {
              sessionUid: p.uid,
              userId: p.accountId,
              factors: Array.isArray(p.amr) ? (p.amr as string[]) : [],
              clientIds: Object.keys((p.authorizations as object | undefined) ?? {}),
              expiresAt: record.expiresAt,
              ip: request?.ip ?? null,
              userAgent: request?.userAgent ?? null,
            },
            { model, id, payload: record },
          );
        } else {
          await payloads.upsert(model, id, record);
        }
        if (model === 'RefreshToken' && typeof p.sessionUid === 'string') await sessions.touch(p.sessionUid);
      },
      find: async (id) => {
        if (model === 'Session') {
          // A session unused for longer than the idle lifetime (or revoked) is not reused: the user signs in again.
          const session = await payloads.findSession(id, deps.idleLifetimeSeconds);
          return session && !(session.ended && typeof session.payload.uid === 'string') ? found(session) : undefined;
        }
        return found(await (REVOCABLE.has(model) ? findTokenRow(model, id) : payloads.find(model, id)));
      },
      findByUid: async (uid) => found(await payloads.findByUid(model, uid)),
      findByUserCode: async (userCode) => found(await payloads.findByUserCode(model, userCode)),
      destroy: async (id) => {
        // Session.save() destroys the old id when the provider rotates it (resume, partial logout): the same session
        // (same uid) lives on under the new id, so only a real end of the session revokes the directory's row.
        const rotated = model === 'Session' && (Provider.ctx?.oidc?.session as { oldId?: string } | undefined)?.oldId === id;
        if (model === 'Session' && !rotated) {
          const session = await payloads.find(model, id);
          const uid = text(session?.payload.uid);
          if (uid) await sessions.revoke(uid);
        }
        if (REVOCABLE.has(model) && currentRequest()?.route === 'revocation') {
          await recordRevocation(pool, deps, model, id);
          return;
        }
        await payloads.destroy(model, id);
      },
      consume: async (id) => {
        await payloads.consume(model, id);
      },
      revokeByGrantId: async (grantId) => {
        await payloads.revokeByGrantId(grantId);
      },
    };
  };

  return (model: string): Adapter => (model === 'Client' ? clientAdapter : modelAdapter(model));
}

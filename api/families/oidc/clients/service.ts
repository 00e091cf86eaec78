// OIDC clients of an environment: registered, listed, changed, deleted, their secret rotated. The secret (adoc_…) is
// shown once, at register, rotate or an update that gives the client one; it is sealed with the master key because
// the provider compares and signs with it. Every change notifies every instance (a trigger on oidc_clients), whose
// Provider for the environment is rebuilt on next use, so a rotated-out secret is refused at once.
import { randomInt } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { DatabasePool } from 'slonik';
import { createOidcClientQueries, type ClientSettings, type StoredSecret } from '../../../../db/oidc/clients/queries.ts';
import { SECRETLESS, type OidcClient } from '../../../../db/oidc/clients/rows.ts';
import type { EventType } from '../../../../db/event-catalog.ts';
import { displayPrefix, encrypt, generateCredential } from '../../../../lib/crypto.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { conflict, orNotFound } from '../../../errors.ts';
import { scopedEnvironment } from '../../projects/environments/service.ts';
import type { RegisterOidcClientBody, UpdateOidcClientBody } from './schemas.ts';
import { checkedSettings, registerSettings, updatedSettings } from './validation.ts';

type Db = Parameters<typeof createOidcClientQueries>[0];
type Verb = 'create' | 'update' | 'delete' | 'rotate_secret';
const EVENT_OF = {
  create: 'oidc_client.created',
  update: 'oidc_client.updated',
  delete: 'oidc_client.deleted',
  rotate_secret: 'oidc_client.secret_rotated',
} as const satisfies Record<Verb, EventType>;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** A public client_id: `oc_` and 24 random base62 characters (143 bits). */
const newClientId = () => `oc_${Array.from({ length: 24 }, () => BASE62[randomInt(62)]).join('')}`;

const audit = (verb: Verb, client: OidcClient, before: OidcClient | null): CallerChange => ({
  action: `oidc_client.${verb}`,
  resource: { type: 'oidc_client', id: client.id },
  before,
  after: verb === 'delete' ? null : client,
  event: { type: EVENT_OF[verb], data: { client } },
});

/** Equal settings, whatever the order of keys (jsonb reorders those of stored JWKs). */
const sameSettings = (a: ClientSettings, b: ClientSettings) => canonicalize(a) === canonicalize(b);
const needsSecret = (s: ClientSettings) => !SECRETLESS.includes(s.tokenEndpointAuthMethod);

export function createOidcClientService(deps: { pool: DatabasePool; masterKey: Buffer }) {
  const { pool } = deps;
  const find = (db: Db, caller: EnvironmentCaller, clientId: string, lock = false) =>
    orNotFound(createOidcClientQueries(db, caller.scope.environmentId).find(clientId, { lock }), 'oidc_client', clientId);
  const newSecret = (): { clientSecret: string; stored: StoredSecret } => {
    const clientSecret = generateCredential('adoc');
    return { clientSecret, stored: { encrypted: encrypt(deps.masterKey, clientSecret), prefix: displayPrefix(clientSecret) } };
  };
  const checked = async (db: Db, caller: EnvironmentCaller, settings: ClientSettings) =>
    checkedSettings(settings, (await scopedEnvironment(db, caller)).projectType);

  return {
    find: (caller: EnvironmentCaller, clientId: string) => find(pool, caller, clientId),

    list: (caller: EnvironmentCaller, query: PageQuery) =>
      listPage('clients', query, (page) => createOidcClientQueries(pool, caller.scope.environmentId).findPage(page)),

    register: async (caller: EnvironmentCaller, body: RegisterOidcClientBody) => {
      const settings = await checked(pool, caller, registerSettings(body));
      const secret = needsSecret(settings) ? newSecret() : null;
      return pool.transaction(async (trx) => {
        const client = await createOidcClientQueries(trx, caller.scope.environmentId).insert(newClientId(), settings, secret?.stored ?? null);
        await record(trx, caller, audit('create', client, null));
        return { client, ...(secret ? { clientSecret: secret.clientSecret } : {}) };
      });
    },

    /** A change of auth method that gives the client a secret answers it once; one that takes the secret away drops it. */
    update: (caller: EnvironmentCaller, clientId: string, body: UpdateOidcClientBody) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, clientId, true);
        const settings = await checked(trx, caller, updatedSettings(before, body));
        if (sameSettings(settings, updatedSettings(before, {}))) return { client: before };
        const had = before.secretPrefix !== null;
        const secret = needsSecret(settings) && !had ? newSecret() : null;
        const change = secret ? secret.stored : !needsSecret(settings) && had ? null : undefined;
        const client = await createOidcClientQueries(trx, caller.scope.environmentId).update(clientId, settings, change);
        await record(trx, caller, audit('update', client, before));
        return { client, ...(secret ? { clientSecret: secret.clientSecret } : {}) };
      }),

    rotateSecret: (caller: EnvironmentCaller, clientId: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, clientId, true);
        if (before.secretPrefix === null) {
          throw conflict('oidc_client.no_secret', `The client authenticates with ${before.tokenEndpointAuthMethod}: it has no client secret to rotate.`);
        }
        const { clientSecret, stored } = newSecret();
        const client = await createOidcClientQueries(trx, caller.scope.environmentId).setSecret(clientId, stored);
        await record(trx, caller, audit('rotate_secret', client, before));
        return { client, clientSecret };
      }),

    remove: (caller: EnvironmentCaller, clientId: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, clientId, true);
        await createOidcClientQueries(trx, caller.scope.environmentId).delete(clientId);
        await record(trx, caller, audit('delete', before, before));
        return { clientId };
      }),
  };
}

export type OidcClientService = ReturnType<typeof createOidcClientService>;

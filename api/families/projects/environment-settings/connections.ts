// Sign-in connections of an environment, in rank order. `formPayload` is a JSON object sent as a string and
// checked against its provider's schema (schemas/connection-providers.ts); secret fields are sealed under the
// master key, never returned, and kept when an update leaves them out. URLs the service will fetch later
// (SAML metadata, OIDC issuer) pass the SSRF guard when saved.
import type { DatabasePool } from 'slonik';
import type { z } from 'zod';
import type { LookupFn } from '../../../../lib/outbound/ssrf-guard.ts';
import { decrypt, encrypt } from '../../../../lib/crypto.ts';
import type { EventOf, EventType } from '../../../../db/event-catalog.ts';
import { connectionEventData } from '../../../../db/projects/projects/events.ts';
import { createConnectionQueries } from '../../../../db/projects/environment-settings/connections.ts';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import type { ConnectionRecord, EnvironmentConnection } from '../../../../db/projects/projects/rows.ts';
import { ApiError, invalidField, orNotFound, type ErrorDetail } from '../../../errors.ts';
import { assertStorableText } from '../../../plugins/request-text.ts';
import { formPayloadSchema, providerOf, type ProviderId } from './connection-providers.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { scopedEnvironment } from '../environments/service.ts';
import { checkTargetUrl } from '../../../access/reach.ts';
import { parseIdpMetadataAt } from './saml-metadata.ts';

type Fields = Record<string, unknown>;
const CODE = 'environment_connection.invalid';

export const toConnection = (c: ConnectionRecord): EnvironmentConnection => ({
  id: c.id,
  providerId: c.providerId,
  name: c.name,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
  active: c.active,
  rank: c.rank,
});

function payloadDetails(error: z.ZodError, input: Fields): ErrorDetail[] {
  return error.issues.flatMap((issue) => {
    const path = ['body.formPayload', ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: `${path}.${key}`, message: 'is not a known field' }));
    const missing = issue.code === 'invalid_type' && issue.path.reduce<unknown>((v, k) => (v as Fields | undefined)?.[k as string], input) === undefined;
    return [{ path, message: missing ? 'is required' : issue.message }];
  });
}

/** The formPayload parsed and checked against the provider; a 400 naming each wrong field otherwise. */
export function parseFormPayload(providerId: ProviderId, formPayload: string, mode: 'create' | 'update'): Fields {
  let value: unknown;
  try {
    value = JSON.parse(formPayload);
  } catch {
    throw invalidField('body.formPayload', 'is not valid JSON', CODE);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidField('body.formPayload', 'must be a JSON object', CODE);
  // JSON escapes can decode to text Postgres cannot store (\u0000, a lone \ud800): a 400, not a database error.
  assertStorableText('body.formPayload', value, CODE);
  const parsed = formPayloadSchema(providerId, mode).safeParse(value);
  if (parsed.success) return parsed.data as Fields;
  const details = payloadDetails(parsed.error, value as Fields);
  throw new ApiError(400, CODE, `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, { details });
}

export interface ConnectionServiceDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  allowPrivateNetworkTargets: boolean;
  lookup?: LookupFn;
}

export interface SaveConnectionInput {
  providerId: ProviderId;
  formPayload: string;
  connectionId?: string | null;
  name?: string;
}

export function createConnectionService(deps: ConnectionServiceDeps) {
  const { pool } = deps;

  /** What sign-in will fetch later must be a usable document at a public address now. */
  const checkSources = async (providerId: ProviderId, payload: Fields) => {
    if (providerId === 'saml' && typeof payload.metadataXml === 'string') parseIdpMetadataAt(payload.metadataXml, 'body.formPayload.metadataXml');
    const field = providerId === 'saml' ? 'metadataUrl' : providerId === 'oidc' ? 'issuer' : undefined;
    const url = field && payload[field];
    for (const name of ['issuer', 'defaultRedirect']) {
      const value = payload[name];
      if (typeof value === 'string' && value.startsWith('http:') && !deps.allowPrivateNetworkTargets) {
        throw invalidField(`body.formPayload.${name}`, 'must be an https URL', CODE);
      }
    }
    if (typeof url === 'string') {
      await checkTargetUrl(url, {
        allowPrivate: deps.allowPrivateNetworkTargets,
        lookup: deps.lookup,
        path: `body.formPayload.${field}`,
        code: 'environment_connection.url_refused',
      });
    }
  };
  const seal = (providerId: ProviderId, payload: Fields, stored: string | null) => {
    const secretNames = providerOf(providerId).secrets;
    const config = Object.fromEntries(Object.entries(payload).filter(([k]) => !secretNames.includes(k)));
    const given = Object.fromEntries(Object.entries(payload).filter(([k]) => secretNames.includes(k)));
    const secrets = { ...(stored ? (JSON.parse(decrypt(deps.masterKey, stored)) as Fields) : {}), ...given };
    return { config, secretsEncrypted: Object.keys(secrets).length > 0 ? encrypt(deps.masterKey, JSON.stringify(secrets)) : null };
  };
  const audit = <T extends EventType>(verb: 'save' | 'delete', c: ConnectionRecord, before: ConnectionRecord | null, event: EventOf<T>): CallerChange<T> => ({
    action: `environment.connection.${verb}`,
    resource: { type: 'environment_connection', id: c.id },
    before: before && { ...toConnection(before), config: before.config },
    after: verb === 'delete' ? null : { ...toConnection(c), config: c.config },
    event,
  });

  return {
    list: async (caller: EnvironmentCaller) => {
      const env = await scopedEnvironment(pool, caller);
      const connections = await createConnectionQueries(pool, env.id).findByEnvironment();
      return {
        project: { id: env.projectId, name: env.projectName, type: env.projectType },
        environment: { id: env.id, name: env.name },
        connections: connections.map(toConnection),
      };
    },

    save: async (caller: EnvironmentCaller, input: SaveConnectionInput) => {
      const { tenant, environmentId } = caller.scope;
      const payload = parseFormPayload(input.providerId, input.formPayload, input.connectionId ? 'update' : 'create');
      await checkSources(input.providerId, payload);
      return pool.transaction(async (trx) => {
        await createEnvironmentQueries(trx, tenant.id).lock(environmentId);
        const env = await scopedEnvironment(trx, caller);
        const queries = createConnectionQueries(trx, environmentId);
        const before = input.connectionId ? await orNotFound(queries.find(input.connectionId), 'environment_connection', input.connectionId) : null;
        if (before && before.providerId !== input.providerId) {
          throw invalidField('body.providerId', `cannot change: connection ${before.id} uses ${before.providerId}`, 'environment_connection.provider_changed');
        }
        const sealed = seal(input.providerId, payload, before?.secretsEncrypted ?? null);
        const name = input.name ?? before?.name ?? providerOf(input.providerId).name;
        const connection = before
          ? await queries.update(before.id, { name, ...sealed })
          : await queries.insert({ providerId: input.providerId, name, ...sealed });
        await record(
          trx,
          caller,
          audit('save', connection, before, {
            type: 'environment.connection.saved',
            data: { environmentId: connection.environmentId, connection: connectionEventData(toConnection(connection)), created: !before },
          }),
        );
        return {
          created: !before,
          tenant: { id: tenant.id, name: tenant.name },
          environment: { id: env.id, name: env.name, description: env.description },
          connection: toConnection(connection),
        };
      });
    },

    remove: (caller: EnvironmentCaller, connectionId: string) =>
      pool.transaction(async (trx) => {
        const { tenant } = caller.scope;
        const env = await scopedEnvironment(trx, caller);
        const connection = await orNotFound(createConnectionQueries(trx, env.id).find(connectionId), 'environment_connection', connectionId);
        await createConnectionQueries(trx, env.id).delete(connectionId);
        await record(
          trx,
          caller,
          audit('delete', connection, connection, {
            type: 'environment.connection.deleted',
            data: { environmentId: connection.environmentId, connection: connectionEventData(toConnection(connection)) },
          }),
        );
        return { tenant: { id: tenant.id, name: tenant.name }, environment: { id: env.id, name: env.name }, connection: toConnection(connection) };
      }),
  };
}

export type ConnectionService = ReturnType<typeof createConnectionService>;

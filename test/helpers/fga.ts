// An environment's FGA store for the tests: its store id, an API secret with the purpose `fga`, and request helpers.
import { CredentialsMethod, OpenFgaClient } from '@openfga/sdk';
import { storeIdOf } from '../../lib/fga/store-id.ts';
import { createApiSecret } from './access-model.ts';
import { newEnvironments } from './fixtures.ts';
import type { TestApp } from './app.ts';
import type { LightMyRequestResponse } from 'fastify';

export interface FgaStore {
  tenantId: string;
  environmentId: string;
  storeId: string;
  secret: string;
  secretId: string;
  /** A request to /v1/fga/stores/<store>/<path> with the secret (or `token`). */
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown, token?: string): Promise<LightMyRequestResponse>;
}

export async function fgaStore(t: TestApp, environmentId?: string): Promise<FgaStore> {
  const { tenantId, environmentIds } = environmentId ? { tenantId: t.credentials.tenantId, environmentIds: [environmentId] } : await newEnvironments(t);
  const id = environmentIds[0]!;
  const { secret, id: secretId } = await createApiSecret(t.pool, id, ['fga']);
  const storeId = storeIdOf(id);
  return {
    tenantId,
    environmentId: id,
    storeId,
    secret,
    secretId,
    call: (method, path, payload, token) =>
      t.app.inject({
        method,
        url: `/v1/fga/stores/${storeId}${path ? `/${path}` : ''}`,
        headers: { authorization: `Bearer ${token ?? secret}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
      }),
  };
}

/** OpenFGA's SDK against the app listening on `baseUrl`, with `token` (an env secret or a management token). */
export const sdkClient = (baseUrl: string, storeId: string, token: string, authorizationModelId?: string) =>
  new OpenFgaClient({
    apiUrl: `${baseUrl}/v1/fga`,
    storeId,
    ...(authorizationModelId ? { authorizationModelId } : {}),
    credentials: { method: CredentialsMethod.ApiToken, config: { token } },
    retryParams: { maxRetry: 0 },
  });

export const DOCS_MODEL = `model
  schema 1.1

type user

type group
  relations
    define member: [user, group#member]

type folder
  relations
    define viewer: [user, group#member]

type document
  relations
    define parent: [folder]
    define owner: [user]
    define editor: [user, user with in_region] or owner
    define viewer: [user, user:*, group#member] or editor or viewer from parent

condition in_region(region: string) {
  region == "eu"
}
`;

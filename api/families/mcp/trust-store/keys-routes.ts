import { callerOf } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import { AddKeyBody, KeyParams, KeyResponse, KeysList, RotatedKeyResponse, RotateKeyBody } from './key-schemas.ts';
import { EntryParams } from './schemas.ts';
import { read, tags, TRUST_STORE_BASE, write } from './entries-routes.ts';
import type { KeyService } from './keys-service.ts';
import type { App } from '../../../types.ts';

const base = `${TRUST_STORE_BASE}/:entryId/keys`;

export function keyRoutes(app: App, keys: KeyService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listTrustStoreKeys',
      summary: 'List the keys of a trust-store entry',
      description: 'Lists the public keys of the entry, oldest first, with their status: active, retiring (until `retiresAt`), retired or revoked.',
      security: read,
      params: EntryParams,
      querystring: PageQuery,
      response: { 200: KeysList, ...errorResponses(404) },
    },
    handler: (r) => keys.list(callerOf(r, 'environment'), r.params.entryId, r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'addTrustStoreKey',
      summary: 'Add a public key to a trust-store entry',
      description:
        'Adds an active public key (JWK: EC P-256, OKP Ed25519 or RSA ≥ 2048 bits). A private member is a 400 naming it (`body.jwk.d`…); `kid` defaults to the RFC 7638 thumbprint and is unique per entry (409 `trust_store.kid_taken`).',
      security: write,
      params: EntryParams,
      body: AddKeyBody,
      response: { 201: KeyResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send({ key: await keys.add(callerOf(r, 'environment'), r.params.entryId, r.body) }),
  });
  app.post(`${base}/rotate`, {
    schema: {
      tags,
      operationId: 'rotateTrustStoreKey',
      summary: 'Rotate the key of a trust-store entry',
      description:
        'Adds the new key as active; the previously active keys become `retiring` and keep verifying for `gracePeriodSeconds` (TRUST_STORE_KEY_ROTATION_GRACE, 24 h, when absent; 0 retires them at once), then a durable process retires them (`mcp.trust_store.key.retired`).',
      security: write,
      params: EntryParams,
      body: RotateKeyBody,
      response: { 201: RotatedKeyResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send(await keys.rotate(callerOf(r, 'environment'), r.params.entryId, r.body)),
  });
  app.get(`${base}/:keyId`, {
    schema: {
      tags,
      operationId: 'getTrustStoreKey',
      summary: 'Get a key of a trust-store entry',
      description: 'Returns one public key of the entry with its status.',
      security: read,
      params: KeyParams,
      response: { 200: KeyResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ key: await keys.find(callerOf(r, 'environment'), r.params.entryId, r.params.keyId) }),
  });
  app.post(`${base}/:keyId/revoke`, {
    schema: {
      tags,
      operationId: 'revokeTrustStoreKey',
      summary: 'Revoke a key of a trust-store entry at once',
      description: 'Revokes the key: it no longer verifies proofs and leaves runtime resolution from the next request. Revoking again returns it unchanged.',
      security: write,
      params: KeyParams,
      response: { 200: KeyResponse, ...errorResponses(404, 409) },
    },
    handler: async (r) => ({ key: await keys.revoke(callerOf(r, 'environment'), r.params.entryId, r.params.keyId) }),
  });
}

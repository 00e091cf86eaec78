// A token revoked at the revocation endpoint (RFC 7009): deleted with its audit entry and `oidc_token.revoked`
// event in one transaction.
import Provider from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { createOidcPayloadQueries } from '../../db/oidc/provider/payloads.ts';
import { recordChange } from '../../db/shared/changes.ts';

const text = (value: unknown) => (typeof value === 'string' ? value : null);

export async function recordRevocation(pool: DatabasePool, scope: { tenantId: string; environmentId: string }, model: string, id: string) {
  const ctx = Provider.ctx;
  await pool.transaction(async (trx) => {
    const removed = await createOidcPayloadQueries(trx, scope.environmentId).destroyReturning(model, id);
    if (!removed) return;
    const clientId = text(removed.payload.clientId) ?? '';
    await recordChange(trx, {
      actor: { type: 'system', id: null },
      origin: { ip: ctx?.ip ?? null, userAgent: ctx?.get('user-agent') || null, requestId: text(ctx?.get('x-request-id')) || null },
      action: 'oidc_token.revoke',
      resource: { type: 'oidc_token', id: null },
      scope: { tenantId: scope.tenantId, environmentId: scope.environmentId },
      after: { clientId, tokenType: model },
      event: {
        type: 'oidc_token.revoked',
        data: {
          environmentId: scope.environmentId,
          clientId,
          tokenType: model as 'AccessToken' | 'RefreshToken' | 'ClientCredentials',
          grantId: text(removed.payload.grantId),
          accountId: text(removed.payload.accountId),
        },
      },
    });
  });
}

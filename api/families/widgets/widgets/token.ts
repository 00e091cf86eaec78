// Widget tokens as JWTs: signed with the environment's active ES256 OpenID key, so anyone can verify one against the
// environment's JWKS (`{issuer}/jwks`); `typ` widget+jwt and the audience `{issuer}/widgets` keep every other verifier
// (management tokens, the provider's own tokens) from accepting one. Claims: `sub` the user, `jti` the token row,
// `widget_kind`, `scope` (space-separated), `origins`, `environment_id`, `tenant_id`, `organization_id` (or null).
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import type { CommonQueryMethods } from 'slonik';
import { decrypt } from '../../../../lib/crypto.ts';
import { createOidcSigningKeyQueries } from '../../../../db/oidc/keys/queries.ts';
import { WIDGET_KINDS, type WidgetKind } from '../../../../db/widgets/tokens/rows.ts';
import { loadKeyRing } from '../../../../db/oidc/keys/ring.ts';
import { issuerOf } from '../../../oidc/providers.ts';
import { WIDGET_TYP } from '../../../access/widget-tokens.ts';
import { ApiError } from '../../../errors.ts';

export const widgetAudience = (issuer: string) => `${issuer}/widgets`;

export interface WidgetClaims {
  tokenId: string;
  userId: string;
  kind: WidgetKind;
  scopes: string[];
  origins: string[];
  environmentId: string;
  tenantId: string;
  organizationId: string | null;
  issuedAt: number;
  expiresAt: number;
}

export interface TokenKeys {
  db: CommonQueryMethods;
  masterKey: Buffer;
  publicBaseUrl: string;
}

export async function signWidgetToken(deps: TokenKeys, c: WidgetClaims): Promise<string> {
  const rows = await loadKeyRing(deps.db, deps.masterKey, c.environmentId);
  const row = rows.find((r) => r.alg === 'ES256' && r.status === 'active')!;
  const key = await importJWK(JSON.parse(decrypt(deps.masterKey, row.privateKeyEncrypted)) as JWK, 'ES256');
  const issuer = issuerOf(deps.publicBaseUrl, c.environmentId);
  return new SignJWT({
    widget_kind: c.kind,
    scope: c.scopes.join(' '),
    origins: c.origins,
    environment_id: c.environmentId,
    tenant_id: c.tenantId,
    organization_id: c.organizationId,
  })
    .setProtectedHeader({ alg: 'ES256', kid: row.kid, typ: WIDGET_TYP })
    .setIssuer(issuer)
    .setAudience(widgetAudience(issuer))
    .setSubject(c.userId)
    .setJti(c.tokenId)
    .setIssuedAt(Math.floor(c.issuedAt / 1000))
    .setExpirationTime(Math.floor(c.expiresAt / 1000))
    .sign(key);
}

const challenge = (attributes: string) => ({ 'www-authenticate': `Bearer realm="widgets"${attributes}` });
export const invalidWidgetToken = (description: string) =>
  new ApiError(401, 'widgets.invalid_token', `The widget token is not valid: ${description}.`, {
    headers: challenge(`, error="invalid_token", error_description="${description}"`),
  });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The claims of a well-signed, unexpired widget token of its environment (revocation is checked by the caller). */
export async function verifyWidgetToken(deps: Omit<TokenKeys, 'masterKey'>, token: string): Promise<WidgetClaims> {
  let environmentId: unknown;
  try {
    if (decodeProtectedHeader(token).typ !== WIDGET_TYP) throw new Error('another typ');
    environmentId = decodeJwt(token).environment_id;
  } catch {
    throw new ApiError(403, 'widgets.widget_token_required', 'The widget API accepts widget tokens only (POST …/widgets/tokens issues them).');
  }
  if (typeof environmentId !== 'string' || !UUID.test(environmentId)) throw invalidWidgetToken('it names no environment');
  const issuer = issuerOf(deps.publicBaseUrl, environmentId);
  const published = await createOidcSigningKeyQueries(deps.db, environmentId).findPublished();
  try {
    const { payload } = await jwtVerify(
      token,
      async (header) => {
        const row = published.find((r) => r.kid === header.kid && r.alg === 'ES256');
        if (!row) throw invalidWidgetToken('signed by an unknown key');
        return importJWK(row.publicJwk as JWK, 'ES256');
      },
      { issuer, audience: widgetAudience(issuer), typ: WIDGET_TYP, algorithms: ['ES256'], requiredClaims: ['exp', 'iat', 'sub', 'jti'] },
    );
    const kind = payload.widget_kind as WidgetKind;
    if (!WIDGET_KINDS.includes(kind) || typeof payload.scope !== 'string' || !Array.isArray(payload.origins)) throw invalidWidgetToken('malformed claims');
    return {
      tokenId: payload.jti!,
      userId: payload.sub!,
      kind,
      scopes: payload.scope.split(' ').filter(Boolean),
      origins: payload.origins as string[],
      environmentId,
      tenantId: payload.tenant_id as string,
      organizationId: (payload.organization_id as string | null) ?? null,
      issuedAt: payload.iat! * 1000,
      expiresAt: payload.exp! * 1000,
    };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw invalidWidgetToken('expired');
    throw invalidWidgetToken('bad signature or claims');
  }
}

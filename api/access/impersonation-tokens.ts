// Impersonation tokens: JWTs signed with the service's signing keys (verifiable offline against
// /.well-known/jwks.json) in the shape of RFC 8693 §4.1: `sub` is the impersonated user, `act.sub` the operator.
// They carry their own `typ` header, `token_type` claim and audience, so no verifier of management tokens accepts them.
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { SigningKeys } from './signing-keys.ts';

/** The JOSE `typ` header of impersonation tokens (management access tokens are `at+jwt`). */
const IMPERSONATION_TYP = 'impersonation+jwt';
export const IMPERSONATION_TOKEN_TYPE = 'impersonation';

/** The audience of impersonation tokens: the service's own endpoints that accept them (management tokens have `<base>/v1`). */
export const impersonationAudience = (issuer: string) => `${issuer}/v1/impersonation`;

export interface ImpersonationClaims extends JWTPayload {
  sub: string;
  jti: string;
  exp: number;
  iat: number;
  act: { sub: string; actor_type: string };
  token_type: typeof IMPERSONATION_TOKEN_TYPE;
  grant_id: string;
  environment_id: string;
  tenant_id: string;
}

export interface NewImpersonationToken {
  userId: string;
  actor: { type: string; id: string };
  tokenId: string;
  grantId: string;
  environmentId: string;
  tenantId: string;
  issuedAt: number;
  expiresAt: number;
}

export function signImpersonationToken(keys: SigningKeys, issuer: string, t: NewImpersonationToken): Promise<string> {
  const { kid, key } = keys.current();
  return new SignJWT({
    act: { sub: t.actor.id, actor_type: t.actor.type },
    token_type: IMPERSONATION_TOKEN_TYPE,
    grant_id: t.grantId,
    environment_id: t.environmentId,
    tenant_id: t.tenantId,
  })
    .setProtectedHeader({ alg: 'ES256', kid, typ: IMPERSONATION_TYP })
    .setIssuer(issuer)
    .setAudience(impersonationAudience(issuer))
    .setSubject(t.userId)
    .setJti(t.tokenId)
    .setIssuedAt(Math.floor(t.issuedAt / 1000))
    .setExpirationTime(Math.floor(t.expiresAt / 1000))
    .sign(key);
}

/** Whether a bearer token presents itself as an impersonation token (its signature is not checked here). */
export function isImpersonationToken(token: string): boolean {
  try {
    return decodeProtectedHeader(token).typ === IMPERSONATION_TYP;
  } catch {
    return false; // not a JWS at all
  }
}

export class InvalidImpersonationToken extends Error {}

/** The claims of a well-signed, unexpired impersonation token; InvalidImpersonationToken otherwise (the grant is not checked here). */
export async function verifyImpersonationToken(keys: SigningKeys, issuer: string, token: string): Promise<ImpersonationClaims> {
  try {
    const { payload } = await jwtVerify(
      token,
      async (header) => {
        const key = header.kid ? await keys.publicKey(header.kid) : undefined;
        if (!key) throw new InvalidImpersonationToken('The token was signed by an unknown key.');
        return key;
      },
      {
        issuer,
        audience: impersonationAudience(issuer),
        typ: IMPERSONATION_TYP,
        algorithms: ['ES256'],
        clockTolerance: 30,
        requiredClaims: ['exp', 'iat', 'sub', 'jti', 'act', 'grant_id'],
      },
    );
    const act = payload.act as { sub?: unknown } | undefined;
    if (payload.token_type !== IMPERSONATION_TOKEN_TYPE || typeof act?.sub !== 'string' || typeof payload.grant_id !== 'string') {
      throw new InvalidImpersonationToken('The impersonation token is invalid.');
    }
    return payload as ImpersonationClaims;
  } catch (error) {
    if (error instanceof InvalidImpersonationToken) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new InvalidImpersonationToken('The impersonation token has expired.');
    throw new InvalidImpersonationToken('The impersonation token is invalid.');
  }
}

// Token introspection (RFC 7662) for impersonation tokens and the service's own management credentials. Anything
// that is not a token in force, or that belongs to an organization or environment the introspecting principal
// cannot reach, is `{ active: false }`: never an error, and never a hint whether the token exists.
import { decodeJwt, errors as joseErrors } from 'jose';
import type { DatabasePool } from 'slonik';
import { createImpersonationAccessQueries } from '../../../../db/access/impersonation/access.ts';
import {
  IMPERSONATION_TOKEN_TYPE,
  impersonationAudience,
  InvalidImpersonationToken,
  isImpersonationToken,
  verifyImpersonationToken,
} from '../../../access/impersonation-tokens.ts';
import { AuthenticationError, type Authenticator, type Principal } from '../../../access/principals.ts';
import { findReachableTenant } from '../../../access/reach.ts';
import type { SigningKeys } from '../../../access/signing-keys.ts';

const INACTIVE = { active: false as const };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IntrospectionDeps {
  pool: DatabasePool;
  keys: SigningKeys;
  issuer: string;
  authenticator: Authenticator;
}

export function createIntrospection(deps: IntrospectionDeps) {
  const impersonation = async (caller: Principal, token: string) => {
    const claims = await verifyImpersonationToken(deps.keys, deps.issuer, token);
    const grant = UUID.test(claims.grant_id) ? await createImpersonationAccessQueries(deps.pool).findGrantAccess(claims.grant_id) : null;
    if (!grant || !grant.inForce || grant.tokenId !== claims.jti) return INACTIVE;
    if (!(await findReachableTenant(deps.pool, caller, grant.tenantId))) return INACTIVE;
    return {
      active: true as const,
      sub: claims.sub,
      act: claims.act,
      exp: claims.exp,
      iat: claims.iat,
      iss: deps.issuer,
      aud: impersonationAudience(deps.issuer),
      jti: claims.jti,
      token_type: IMPERSONATION_TOKEN_TYPE,
      grant_id: grant.id,
      environment_id: grant.environmentId,
      tenant_id: grant.tenantId,
    };
  };

  const management = async (caller: Principal, token: string) => {
    const principal = await deps.authenticator.authenticate(token);
    if (principal.impersonation || !principal.organizationIds.some((id) => caller.organizationIds.includes(id))) return INACTIVE;
    const jwt = principal.type === 'service_account' ? decodeJwt(token) : null;
    return {
      active: true as const,
      sub: principal.id,
      scope: principal.scopes.join(' '),
      ...(jwt ? { client_id: String(jwt.client_id), iat: jwt.iat, iss: jwt.iss, aud: jwt.aud, jti: jwt.jti } : {}),
      ...(principal.expiresAt === null ? {} : { exp: Math.floor(principal.expiresAt / 1000) }),
      token_type: 'management',
      principal_type: principal.type,
    };
  };

  return {
    /** What `caller` may learn of `token`. */
    introspect: async (caller: Principal, token: string) => {
      try {
        return await (isImpersonationToken(token) ? impersonation(caller, token) : management(caller, token));
      } catch (error) {
        if (error instanceof AuthenticationError || error instanceof InvalidImpersonationToken || error instanceof joseErrors.JOSEError) return INACTIVE;
        throw error;
      }
    },
  };
}

export type Introspection = ReturnType<typeof createIntrospection>;

// Resolves a bearer token to the principal acting. Verified tokens are cached (this is the hot path of
// every request); a credential change anywhere evicts them through NOTIFY (sent by triggers on the credential
// tables, cascades included), so a disabled service account, a removed user or a revoked token is refused on
// the next request, not when the token expires.
import { errors as joseErrors, jwtVerify } from 'jose';
import type { DatabasePool } from 'slonik';
import { hasValidChecksum, hashSecret } from '../../lib/crypto.ts';
import { createOrganizationKeyQueries } from '../../db/organizations/organization-keys/queries.ts';
import { createOrganizationQueries } from '../../db/organizations/organizations/queries.ts';
import { createPersonalAccessTokenQueries } from '../../db/identity/personal-access-tokens/queries.ts';
import { createServiceAccountQueries } from '../../db/identity/service-accounts/queries.ts';
import { createTenantSeatQueries } from '../../db/tenants/seats/queries.ts';
import { createUserQueries } from '../../db/identity/users/queries.ts';
import { createImpersonationAccessQueries } from '../../db/access/impersonation/access.ts';
import { InvalidImpersonationToken, isImpersonationToken, verifyImpersonationToken } from './impersonation-tokens.ts';
import { narrow } from '../scopes.ts';
import type { SigningKeys } from './signing-keys.ts';

export interface Principal {
  type: 'service_account' | 'user' | 'organization_key';
  /** The service account, user or organization key id. */
  id: string;
  /** The credential presented: service account id for its JWTs, the PAT id for a PAT, the key id for a key. */
  credentialId: string;
  organizationIds: string[];
  scopes: string[];
  environmentId: string | null;
  /** When the presented token expires (ms since epoch), or null. */
  expiresAt: number | null;
  /** The tenants of its organizations it is limited to (an organization key's list); null = all of them. */
  tenantIds: string[] | null;
  /** Tenants outside its organizations it reaches through tenant seats (users only), each within its window. */
  seats: SeatGrant[];
  /** Set when the token is an impersonation token: the user (`id`) is acted as by `actor`, under grant `grantId`. */
  impersonation?: Impersonation;
}

export interface Impersonation {
  grantId: string;
  actor: { type: 'service_account' | 'user' | 'organization_key'; id: string };
  tenantId: string;
  environmentId: string;
  issuedAt: number;
}

export interface SeatGrant {
  tenantId: string;
  /** Narrow what the user may do in that tenant; empty = no narrowing beyond the token's scopes. */
  scopes: string[];
  validFrom: number | null;
  validUntil: number | null;
}

/** Seats are checked against the clock on every request, so a cached principal never outlives a window. */
export const seatInForce = (seat: SeatGrant, now: number) =>
  (seat.validFrom === null || seat.validFrom <= now) && (seat.validUntil === null || now < seat.validUntil);

/** The tenant restriction and the seat tenants in force now, for reachability queries. */
export const tenantAccess = (principal: Principal, now = Date.now()) => ({
  tenantIds: principal.tenantIds,
  seatTenantIds: principal.seats.filter((s) => seatInForce(s, now)).map((s) => s.tenantId),
});

/** The scopes a seat in force limits the principal to in a tenant, or null when no seat narrows it there. */
export function seatScopes(principal: Principal, tenantId: string, now = Date.now()): string[] | null {
  const seat = principal.seats.find((s) => s.tenantId === tenantId && seatInForce(s, now));
  return seat && seat.scopes.length > 0 ? seat.scopes : null;
}

/**
 * Whether the principal may change an operator holding `operatorScopes` (a protected principal): a user or service
 * account whose scopes in the tenant (a seat narrows them) cover every scope the operator holds, `*` only by `*`.
 * An organization key, an impersonation token and a provisioning token never may.
 */
export function mayManageOperator(principal: Principal, operatorScopes: readonly string[], tenantId: string | null, now = Date.now()) {
  if ((principal.type !== 'user' && principal.type !== 'service_account') || principal.impersonation) return false;
  const seat = tenantId ? seatScopes(principal, tenantId, now) : null;
  const held = seat ? narrow(principal.scopes, seat) : principal.scopes;
  return narrow(held, operatorScopes).length === operatorScopes.length;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const epoch = (iso: string | null) => (iso === null ? null : Date.parse(iso));

export class AuthenticationError extends Error {
  readonly reason: 'invalid_token';
  constructor(message: string) {
    super(message);
    this.reason = 'invalid_token';
  }
}

const CACHE_TTL_MS = 5 * 60_000;
const CACHE_MAX = 10_000;
const TOUCH_EVERY_MS = 60_000;

export interface Authenticator {
  authenticate(token: string): Promise<Principal>;
  /** Drops cached verifications of a principal or credential (called on NOTIFY). */
  evict(id: string): void;
  clear(): void;
}

export function createAuthenticator(deps: {
  pool: DatabasePool;
  keys: SigningKeys;
  issuer: string;
  audience: string;
  onError: (e: unknown) => void;
}): Authenticator {
  const { pool, keys } = deps;
  const cache = new Map<string, { principal: Principal; until: number }>();
  const touched = new Map<string, number>();

  const touch = (credentialId: string, write: () => Promise<unknown>) => {
    const now = Date.now();
    if (now - (touched.get(credentialId) ?? 0) < TOUCH_EVERY_MS) return;
    touched.set(credentialId, now);
    write().catch(deps.onError);
  };

  const fromJwt = async (token: string): Promise<Principal> => {
    let payload;
    try {
      ({ payload } = await jwtVerify(
        token,
        async (header) => {
          const key = header.kid ? await keys.publicKey(header.kid) : undefined;
          if (!key) throw new AuthenticationError('The token was signed by an unknown key.');
          return key;
        },
        { issuer: deps.issuer, audience: deps.audience, algorithms: ['ES256'], clockTolerance: 30, requiredClaims: ['exp', 'sub'] },
      ));
    } catch (error) {
      if (error instanceof AuthenticationError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new AuthenticationError('The access token has expired.');
      throw new AuthenticationError('The access token is invalid.');
    }
    const subject = String(payload.sub);
    const [sa, created] = await Promise.all([
      createServiceAccountQueries(pool).findServiceAccountAccess(subject),
      UUID.test(subject) ? createOrganizationQueries(pool).findOrganizationIdsCreatedBy(subject) : [],
    ]);
    if (!sa) throw new AuthenticationError('The service account of this token no longer exists.');
    if (!sa.active) throw new AuthenticationError('The service account of this token is disabled.');
    // Disabling a service account ends every token issued before: enabling it again does not revive them.
    if ((typeof payload.gen === 'number' ? payload.gen : 0) !== sa.tokenGeneration) {
      throw new AuthenticationError('The access token was issued before its service account was disabled; request a new one.');
    }
    const tokenScopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
    touch(sa.id, () => createServiceAccountQueries(pool).touchServiceAccount(sa.id));
    return {
      type: 'service_account',
      id: sa.id,
      credentialId: sa.id,
      // Its own organization first, then those it created (it keeps reach over what it creates).
      organizationIds: [sa.organizationId, ...created.filter((id) => id !== sa.organizationId)],
      // A token never carries more than its service account holds now.
      scopes: narrow(sa.scopes, tokenScopes),
      environmentId: null,
      expiresAt: (payload.exp ?? 0) * 1000,
      tenantIds: null,
      seats: [],
    };
  };

  const fromPat = async (token: string): Promise<Principal> => {
    if (!hasValidChecksum(token, 'adpat')) throw new AuthenticationError('The personal access token is malformed.');
    const pat = await createPersonalAccessTokenQueries(pool).findPersonalAccessTokenByHash(hashSecret(token));
    if (!pat || !pat.userId) throw new AuthenticationError('The personal access token is invalid.');
    if (pat.revokedAt) throw new AuthenticationError('The personal access token has been revoked.');
    if (!pat.active) throw new AuthenticationError('The personal access token has expired.');
    const [user, seats] = await Promise.all([
      createUserQueries(pool).findUserAccess(pat.userId),
      createTenantSeatQueries(pool).findSeatAccessOfUser(pat.userId),
    ]);
    if (!user || !user.active) throw new AuthenticationError('The user of this token is disabled.');
    touch(pat.id, () => createPersonalAccessTokenQueries(pool).touchPersonalAccessToken(pat.id));
    return {
      type: 'user',
      id: user.id,
      credentialId: pat.id,
      organizationIds: user.organizationIds,
      scopes: narrow(user.managementScopes, pat.scopes),
      environmentId: user.environmentId,
      expiresAt: pat.expiresAt ? Date.parse(pat.expiresAt) : null,
      tenantIds: null,
      seats: seats.map((s) => ({ tenantId: s.tenantId, scopes: s.scopes, validFrom: epoch(s.validFrom), validUntil: epoch(s.validUntil) })),
    };
  };

  const fromOrganizationKey = async (token: string): Promise<Principal> => {
    if (!hasValidChecksum(token, 'adok')) throw new AuthenticationError('The organization key is malformed.');
    const key = await createOrganizationKeyQueries(pool).findKeyAccessByHash(hashSecret(token));
    if (!key) throw new AuthenticationError('The organization key is invalid.');
    if (key.revoked) throw new AuthenticationError('The organization key has been revoked.');
    if (!key.active) throw new AuthenticationError('The organization key has expired.');
    touch(key.id, () => createOrganizationKeyQueries(pool).touchKey(key.id));
    return {
      type: 'organization_key',
      id: key.id,
      credentialId: key.id,
      organizationIds: [key.organizationId],
      scopes: key.scopes,
      environmentId: null,
      expiresAt: epoch(key.expiresAt),
      tenantIds: key.allTenants ? null : key.tenantIds,
      seats: [],
    };
  };

  // An impersonation token reaches nothing and holds no scope: routes that accept it say so (api/plugins/auth.ts).
  const fromImpersonation = async (token: string): Promise<Principal> => {
    let claims;
    try {
      claims = await verifyImpersonationToken(keys, deps.issuer, token);
    } catch (error) {
      throw new AuthenticationError(error instanceof InvalidImpersonationToken ? error.message : 'The impersonation token is invalid.');
    }
    const grant = UUID.test(claims.grant_id) ? await createImpersonationAccessQueries(pool).findGrantAccess(claims.grant_id) : null;
    if (!grant || grant.tokenId !== claims.jti) throw new AuthenticationError('The impersonation token is invalid.');
    if (!grant.inForce) throw new AuthenticationError('The impersonation grant of this token was revoked or has expired, or its user is inactive.');
    return {
      type: 'user',
      id: grant.userId,
      credentialId: grant.id,
      organizationIds: [],
      scopes: [],
      environmentId: grant.environmentId,
      expiresAt: Math.min(claims.exp * 1000, grant.expiresAt),
      tenantIds: [],
      seats: [],
      impersonation: {
        grantId: grant.id,
        actor: { type: grant.actorType as Impersonation['actor']['type'], id: grant.actorId },
        tenantId: grant.tenantId,
        environmentId: grant.environmentId,
        issuedAt: claims.iat * 1000,
      },
    };
  };

  const verify = (token: string) => {
    if (token.startsWith('adpat_')) return fromPat(token);
    if (token.startsWith('adok_')) return fromOrganizationKey(token);
    if (isImpersonationToken(token)) return fromImpersonation(token);
    return fromJwt(token);
  };

  return {
    authenticate: async (token) => {
      const now = Date.now();
      const hit = cache.get(token);
      // `until` is never later than the token's own expiry, so an expired key or PAT is re-verified (and refused).
      if (hit && hit.until > now) return hit.principal;
      const principal = await verify(token);
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
      cache.set(token, { principal, until: Math.min(now + CACHE_TTL_MS, principal.expiresAt ?? Infinity) });
      return principal;
    },
    evict: (id) => {
      for (const [token, entry] of cache) {
        if (entry.principal.id === id || entry.principal.credentialId === id || entry.principal.organizationIds.includes(id)) cache.delete(token);
      }
    },
    clear: () => cache.clear(),
  };
}

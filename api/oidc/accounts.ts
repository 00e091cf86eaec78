// Accounts come from the directory: an inactive or missing user is no account (so its next token or refresh fails
// with invalid_grant); claims follow the scopes, plus the environment's enabled claim mappings.
import type { Account, FindAccount } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { createProviderAccountQueries, type AccountRow } from '../../db/oidc/provider/accounts.ts';
import type { ClaimMapping } from '../../db/oidc/provider/snapshot.ts';
import { isReservedClaim } from '../../lib/oidc/reserved-claims.ts';

/** The standard claims each scope releases (OpenID Connect Core 5.4). */
export const SCOPE_CLAIMS = {
  openid: ['sub'],
  profile: ['name', 'given_name', 'family_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture', 'zoneinfo', 'locale', 'updated_at'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  address: ['address'],
};

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The OpenID standard claims of a directory user (SPEC User shape). */
export function standardClaims(user: AccountRow): Record<string, unknown> {
  const email = user.emails[0]?.value;
  const phone = user.phoneNumbers[0]?.value;
  const address = user.addresses[0];
  return {
    sub: user.id,
    name: user.displayName ?? user.names?.formatted ?? undefined,
    given_name: user.names?.givenName ?? undefined,
    family_name: user.names?.familyName ?? undefined,
    middle_name: user.names?.middleName ?? undefined,
    nickname: user.nickName ?? undefined,
    preferred_username: user.userName,
    profile: user.profileUrl ?? undefined,
    picture: user.photos[0]?.value,
    zoneinfo: user.timezone ?? undefined,
    locale: user.locale ?? user.preferredLanguage ?? undefined,
    updated_at: seconds(user.updatedAt),
    email,
    email_verified: email === undefined ? undefined : user.verifications.some((v) => v.email.toLowerCase() === email.toLowerCase() && v.verified),
    phone_number: phone,
    phone_number_verified: phone === undefined ? undefined : false,
    address: address && {
      formatted: address.formatted ?? undefined,
      street_address: address.streetAddress ?? undefined,
      locality: address.locality ?? undefined,
      region: address.region ?? undefined,
      postal_code: address.postalCode ?? undefined,
      country: address.country ?? undefined,
    },
  };
}

/** The claims the environment's mappings add (never a reserved one; a missing source value adds nothing). */
export function mappedClaims(user: AccountRow, mappings: readonly ClaimMapping[]): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const m of mappings) {
    if (isReservedClaim(m.claimName)) continue;
    let value: unknown;
    if (m.source === 'static') value = m.staticValue;
    else if (m.source === 'user_field' && m.metadataKey) value = (user as Record<string, unknown>)[m.metadataKey];
    else if (m.source === 'attribute' && m.metadataKey) value = user.attributes[m.metadataKey] ?? user.scim[m.metadataKey];
    if (value !== undefined && value !== null) claims[m.claimName] = value;
  }
  return claims;
}

export function createFindAccount(pool: DatabasePool, environmentId: string, mappings: readonly ClaimMapping[]): FindAccount {
  const accounts = createProviderAccountQueries(pool, environmentId);
  return async (_ctx, sub): Promise<Account | undefined> => {
    const user = await accounts.findActive(sub);
    if (!user) return undefined;
    return { accountId: user.id, claims: () => ({ ...mappedClaims(user, mappings), ...standardClaims(user), sub: user.id }) };
  };
}

/** Mapped claims for JWT access tokens (resource indicators), read when the token is issued. */
export async function accountTokenClaims(pool: DatabasePool, environmentId: string, mappings: readonly ClaimMapping[], accountId: string) {
  if (mappings.length === 0) return undefined;
  const user = await createProviderAccountQueries(pool, environmentId).findActive(accountId);
  return user ? mappedClaims(user, mappings) : undefined;
}

// Which directory user an upstream identity signs in as, inside the sign-in's transaction: the user already linked
// to (connection, subject); else the user with the same email when the upstream vouches for it (linked: `user.linked`);
// else a new user made from the mapped attributes (`directory.user.created` + `user.linked`) unless the connection
// is `link_only`. Inactive users are refused. Every refusal is an SsoRefusal, so the transaction rolls back.
import type { CommonQueryMethods } from 'slonik';
import { createDirectoryUserQueries } from '../../db/directory/users/queries.ts';
import type { UserFields } from '../../db/directory/users/rows.ts';
import { createSsoQueries } from '../../db/sso/queries.ts';
import { recordChange, type RequestOrigin } from '../../db/shared/changes.ts';
import type { MappedProfile } from '../../lib/sso/mapping.ts';
import { SsoRefusal } from './refusal.ts';

export interface UpstreamIdentity {
  connectionId: string;
  providerId: string;
  subject: string;
  profile: MappedProfile;
  /** The upstream vouches for `profile.email` (OIDC email_verified, SAML trustEmail). */
  emailTrusted: boolean;
  /** What the upstream said, kept on the identity. */
  claims: Record<string, unknown>;
  provisioning: 'jit' | 'link_only';
}

interface Scope {
  environmentId: string;
  tenantId: string;
  origin: RequestOrigin;
}

const isUniqueViolation = (error: unknown) => (error as { cause?: { code?: string }; code?: string })?.cause?.code === '23505' || /unique/i.test(String(error));

function newUserFields(profile: MappedProfile, userName: string): UserFields {
  const { givenName = null, familyName = null, displayName } = profile;
  const formatted = displayName ?? ([givenName, familyName].filter(Boolean).join(' ') || null);
  return {
    userName,
    displayName: formatted,
    ...(profile.nickName && { nickName: profile.nickName }),
    ...(profile.locale && { locale: profile.locale }),
    ...(profile.title && { title: profile.title }),
    names:
      givenName || familyName || formatted
        ? { id: crypto.randomUUID(), formatted, givenName, familyName, middleName: null, honorificPrefix: null, honorificSuffix: null }
        : null,
    emails: profile.email ? [{ id: crypto.randomUUID(), value: profile.email, type: 'work' }] : [],
  };
}

/** The id of the user `identity` signs in as, linking or creating one as the rules say. */
export async function resolveUser(trx: CommonQueryMethods, scope: Scope, identity: UpstreamIdentity): Promise<string> {
  const sso = createSsoQueries(trx, scope.environmentId);
  const email = identity.profile.email ?? null;
  const refuseInactive = (user: { id: string; active: boolean }) => {
    if (!user.active) throw new SsoRefusal('inactive', 'the user is deactivated', user.id);
  };
  const linked = await sso.findIdentity(identity.connectionId, identity.subject);
  if (linked) {
    const user = await sso.findUser(linked.userId);
    if (!user) throw new SsoRefusal('invalid_response', 'the linked user is gone');
    refuseInactive(user);
    await sso.touchIdentity(linked.id, email, identity.claims);
    return user.id;
  }
  const link = async (userId: string, via: 'email' | 'jit') => {
    await sso.insertIdentity({ userId, connectionId: identity.connectionId, subject: identity.subject, email, profile: identity.claims });
    const data = { userId, connectionId: identity.connectionId, providerId: identity.providerId, subject: identity.subject, email, via };
    await recordChange(trx, {
      actor: { type: 'user', id: userId },
      origin: scope.origin,
      action: 'user.link',
      resource: { type: 'user', id: userId },
      scope: { tenantId: scope.tenantId, environmentId: scope.environmentId },
      after: data,
      event: { type: 'user.linked', data },
    });
    return userId;
  };
  const sameEmail = email ? await sso.findUserByEmail(email) : null;
  if (sameEmail && identity.emailTrusted) {
    refuseInactive(sameEmail);
    return link(sameEmail.id, 'email');
  }
  if (sameEmail) throw new SsoRefusal('email_conflict', 'a user has this email, which the upstream does not vouch for', sameEmail.id);
  if (identity.provisioning === 'link_only') throw new SsoRefusal('provisioning_refused', 'the connection signs in linked users only');
  const candidates = [identity.profile.userName, email, `${identity.providerId}-${identity.subject}`].filter((n): n is string => Boolean(n));
  let userName: string | undefined;
  for (const name of candidates) if (!userName && !(await sso.userNameTaken(name))) userName = name;
  if (!userName) throw new SsoRefusal('email_conflict', 'no free user name for the new user');
  let user;
  try {
    user = await createDirectoryUserQueries(trx, scope.environmentId).insertUser(newUserFields(identity.profile, userName));
  } catch (error) {
    if (isUniqueViolation(error)) throw new SsoRefusal('email_conflict', 'the new user collides with an existing one');
    throw error;
  }
  await recordChange(trx, {
    actor: { type: 'user', id: user.id },
    origin: scope.origin,
    action: 'directory.user.create',
    resource: { type: 'user', id: user.id },
    scope: { tenantId: scope.tenantId, environmentId: scope.environmentId },
    after: user,
    event: { type: 'directory.user.created', data: { user } },
  });
  return link(user.id, 'jit');
}

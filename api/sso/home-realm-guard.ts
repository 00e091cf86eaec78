// Home-realm discovery's requirement on SSO itself: when an email domain must sign in through one connection
// (`requiredForDomains`, api/families/oidc/sign-in/home-realm.ts), an upstream identity with an email at that domain
// signing in through any other connection (a social login with the work address, say) is refused `sso_required`.
import type { CommonQueryMethods } from 'slonik';
import { createHomeRealmQueries } from '../../db/oidc/sign-in/home-realm.ts';
import { SSO_PROVIDER_IDS } from '../families/projects/environment-settings/connection-providers.ts';
import { emailDomainOf } from '../families/oidc/sign-in/home-realm.ts';
import { SsoRefusal } from './refusal.ts';
import type { UpstreamIdentity } from './resolve-user.ts';

/** Throws `sso_required` when the identity's email domain requires another connection than the one it came through. */
export async function refuseOtherRealm(db: CommonQueryMethods, environmentId: string, identity: UpstreamIdentity) {
  const domain = identity.profile.email ? emailDomainOf(identity.profile.email) : null;
  if (!domain) return;
  const bound = await createHomeRealmQueries(db, environmentId, SSO_PROVIDER_IDS).boundConnection(domain);
  if (bound?.required && bound.id !== identity.connectionId)
    throw new SsoRefusal('sso_required', `the email domain ${domain} must sign in through the connection ${bound.id}`);
}

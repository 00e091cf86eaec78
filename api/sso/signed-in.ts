// `user.signed_in` of an SSO sign-in that went through the second-factor step is recorded where every sign-in's is,
// when the login finishes (api/families/oidc/sign-in/second-factor.ts `finish`), which knows nothing of connections.
// This wraps the sign-in service it records with: a login whose amr has `fed` gets the `connectionId` of the user's
// SSO sign-in continued last (and not recorded yet), so the event still names the connection.
import type { DatabasePool } from 'slonik';
import { createSsoQueries } from '../../db/sso/queries.ts';
import type { SignInService } from '../families/oidc/sign-in/service.ts';

export function withSsoConnection(pool: DatabasePool, signIn: SignInService): SignInService {
  return {
    ...signIn,
    signedIn: async (provider, environmentId, origin, data) => {
      if (!data.amr.includes('fed')) return signIn.signedIn(provider, environmentId, origin, data);
      const connectionId = await createSsoQueries(pool, environmentId).takeSignedInConnection(data.userId);
      const withConnection = { ...data, connectionId };
      return signIn.signedIn(provider, environmentId, origin, withConnection);
    },
  };
}

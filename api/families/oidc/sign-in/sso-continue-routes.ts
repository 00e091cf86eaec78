// The SSO sign-in's continuation at {issuer}/interaction/:uid/sso/continue. The upstream answers at the SP URLs,
// outside the interaction cookie's path, so the callback or ACS only consumes its state and resolves the user, then
// sends the browser here (api/sso/steps.ts `finish`). Here the interaction cookie proves whose sign-in it is: the
// result waiting for this interaction is taken once (nothing in the URL but the uid) and goes through
// `afterFirstFactor` like any first factor (MFA policy, step-up, remembered device). Taken already, waiting for
// another interaction, or none: the 400 "start again" page.
import type { DatabasePool } from 'slonik';
import { createSsoQueries } from '../../../../db/sso/queries.ts';
import { SSO_AMR } from '../../../sso/record.ts';
import type { App } from '../../../types.ts';
import { BASE, PAGE_ROUTE, type Interactions, type Route } from './interaction.ts';
import type { SecondFactor } from './second-factor.ts';

export function ssoContinueRoutes(app: App, deps: { pool: DatabasePool; interactions: Interactions; second: SecondFactor }) {
  const { pool, interactions: ix, second } = deps;

  app.get<Route>(`${BASE}/sso/continue`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.shown(r, reply, 'login');
    if (!found) return reply;
    const taken = await createSsoQueries(pool, r.params.envId).takeContinuation(r.params.uid);
    if (!taken) return ix.sendExpired(r, reply, found);
    // `user.signed_in` is recorded once the login finishes, after any second factor, naming the connection.
    return second.afterFirstFactor(r, reply, found, { userId: taken.userId, amr: SSO_AMR, remember: false, connectionId: taken.connectionId });
  });
}

// The sign-in pages of an environment's OpenID provider, at {issuer}/interaction/:uid. GET shows the identifier page
// or the consent page by the interaction's prompt; POST …/identifier answers the factors page (the same page for
// known and unknown identifiers); POST …/login, …/confirm and …/abort carry the forms (each checked against the
// interaction's CSRF token: 403 page otherwise). An expired, unknown or tampered interaction shows a 400 page. A
// finished step answers 303 to where the provider resumes the authorization.
import type { FastifyReply } from 'fastify';
import type Provider from 'oidc-provider';
import { identifierPage } from '../../../oidc/pages/identifier.ts';
import { factorsPage } from '../../../oidc/pages/factors.ts';
import { consentPage } from '../../../oidc/pages/consent.ts';
import { signInEndpoints } from '../../../oidc/pages/passkey.ts';
import { attemptOf, BASE, field, originOf, PAGE_ROUTE, type Found, type Interactions, type Req, type Route } from './interaction.ts';
import type { ProtectionPipeline, Refusal } from '../../../protections/pipeline.ts';
import { clientIdOf, missingOf, type SignInService } from './service.ts';
import type { HomeRealm, HomeRealmService } from './home-realm.ts';
import { fillText } from '../../../oidc/pages/i18n/index.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import type { SecondFactor } from './second-factor.ts';
import type { App } from '../../../types.ts';
import type { PasskeyPages } from './passkey-routes.ts';
import type { SignInMetrics } from '../../../metrics/sign-in.ts';
import type { BotChallengeWidget } from '../../../oidc/pages/challenge.ts';

export function signInRoutes(
  app: App,
  deps: {
    interactions: Interactions;
    signIn: SignInService;
    homeRealm: HomeRealmService;
    second: SecondFactor;
    passkeys: PasskeyPages;
    protections: ProtectionPipeline;
    outcomes: SignInMetrics;
  },
) {
  const { interactions: ix, signIn, homeRealm, second, passkeys, protections } = deps;

  async function showIdentifier(r: Req, reply: FastifyReply, found: Found, status = 200, error?: string, identifier?: string) {
    const { provider, interaction } = found;
    const client = await signIn.client(provider, r.params.envId, clientIdOf(interaction));
    const ssoChoices = homeRealm.choices(snapshotOf(provider));
    const signUp = signIn.signUpMode(provider) !== null;
    return ix.send(reply, found, status, (t) =>
      identifierPage(
        {
          action: ix.urlOf(r, '/identifier'),
          abort: ix.urlOf(r, '/abort'),
          csrf: signIn.csrfOf(r.params.envId, r.params.uid),
          clientName: client?.name ?? clientIdOf(interaction),
          signUpUrl: signUp ? ix.urlOf(r, '/sign-up') : null,
          sso: { base: ix.urlOf(r), buttons: ssoChoices },
          passkey: passkeys.usable ? signInEndpoints(ix.urlOf(r), signIn.csrfOf(r.params.envId, r.params.uid)) : undefined,
          identifier,
          error,
        },
        t,
      ),
    );
  }

  async function showFactors(
    r: Req,
    reply: FastifyReply,
    found: Found,
    identifier: string,
    status = 200,
    error?: string,
    realm?: HomeRealm | null,
    challenge?: BotChallengeWidget,
  ) {
    const known = realm !== undefined ? realm : await homeRealm.realmOf(r.params.envId, identifier, snapshotOf(found.provider));
    const offers = (await signIn.offers(r.params.envId, identifier, found.provider, known)).filter((o) => o.kind !== 'passkey' || passkeys.usable);
    return ix.send(reply, found, status, (t) =>
      factorsPage(
        {
          base: ix.urlOf(r),
          abort: ix.urlOf(r, '/abort'),
          csrf: signIn.csrfOf(r.params.envId, r.params.uid),
          identifier,
          offers,
          rememberMe: signIn.rememberMe(found.provider),
          error,
          stamp: signIn.formStampOf(r.params.envId),
          challenge,
        },
        t,
      ),
    );
  }

  /** The factors page again, saying why a protection stopped the attempt. */
  function refuse(r: Req, reply: FastifyReply, found: Found, identifier: string, verdict: Refusal) {
    deps.outcomes.refused(verdict.kind);
    if (verdict.kind === 'deny' && verdict.retryAfterSeconds) reply.header('retry-after', String(verdict.retryAfterSeconds));
    const challenge = verdict.kind === 'challenge' ? verdict.widget : undefined;
    return showFactors(r, reply, found, identifier, verdict.kind === 'deny' ? verdict.status : 401, verdict.text(found.context.t), undefined, challenge);
  }

  async function showConsent(r: Req, reply: FastifyReply, found: Found) {
    const { provider, interaction } = found;
    const { envId, uid } = r.params;
    const remembered = await signIn.remembered(provider, envId, interaction);
    if (remembered) return ix.finish(r, reply, provider, { consent: { grantId: remembered } }, true, interaction);
    const clientId = clientIdOf(interaction);
    const client = await signIn.client(provider, envId, clientId);
    const missing = missingOf(interaction);
    const userName = (await signIn.userName(envId, interaction.session!.accountId)) ?? '';
    return ix.send(reply, found, 200, (t) =>
      consentPage(
        {
          action: ix.urlOf(r, '/confirm'),
          abort: ix.urlOf(r, '/abort'),
          csrf: signIn.csrfOf(envId, uid),
          client: client ?? { name: clientId, logoUri: null, clientUri: null, policyUri: null, tosUri: null },
          userName,
          scopes: missing.scopes,
          resources: Object.entries(missing.resources).map(([resource, scopes]) => ({ resource, scopes })),
        },
        t,
      ),
    );
  }

  app.get<Route>(BASE, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.interactionOf(r, reply);
    if (found?.interaction.prompt.name === 'login') return showIdentifier(r, reply, found);
    if (found?.interaction.prompt.name === 'consent' && found.interaction.session) return showConsent(r, reply, found);
    return ix.sendExpired(r, reply, found);
  });

  app.post<Route>(`${BASE}/identifier`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.posted(r, reply, 'login');
    if (!found) return reply;
    const identifier = field(r, 'identifier').trim();
    if (identifier === '' || identifier.length > 256) return showIdentifier(r, reply, found, 400, found.context.t.identifierRequired, identifier);
    // Home-realm discovery: an email at a domain bound to an SSO connection goes straight to its start.
    const realm = await homeRealm.realmOf(r.params.envId, identifier, snapshotOf(found.provider));
    if (realm) return reply.header('cache-control', 'no-store').redirect(ix.urlOf(r, `/sso/${realm.connectionId}`), 303);
    return showFactors(r, reply, found, identifier, 200, undefined, realm);
  });

  app.post<Route>(`${BASE}/login`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.posted(r, reply, 'login');
    if (!found) return reply;
    const { provider, interaction } = found;
    const identifier = field(r, 'identifier').trim();
    const remember = signIn.rememberMe(provider) && field(r, 'remember') !== '';
    const attempt = attemptOf(r, found, 'sign_in', identifier);
    const verdict = await protections.before(attempt);
    if (verdict) return refuse(r, reply, found, identifier, verdict);
    const login = await signIn.login(provider, r.params.envId, clientIdOf(interaction), identifier, field(r, 'password'), remember, originOf(r));
    if (!login) {
      await protections.failed(attempt);
      return showFactors(r, reply, found, identifier, 401, found.context.t.wrongCredentials);
    }
    if ('passwordDisabled' in login) return showFactors(r, reply, found, identifier, 403, found.context.t.passwordSignInOff);
    if ('ssoRequired' in login) {
      const text = fillText(found.context.t.ssoRequired, { name: login.ssoRequired.name });
      return showFactors(r, reply, found, identifier, 403, text, login.ssoRequired);
    }
    const first = { userId: login.accountId, amr: login.amr, remember: login.remember };
    const after = await protections.succeeded({ ...attempt, userId: login.accountId });
    if (after && after.kind !== 'step_up') return refuse(r, reply, found, identifier, after);
    return second.afterFirstFactor(r, reply, found, first, after && { ...after, login: identifier });
  });

  app.post<Route>(`${BASE}/confirm`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.posted(r, reply, 'consent');
    if (!found) return reply;
    const { provider, interaction } = found;
    if (!interaction.session) return ix.sendExpired(r, reply, found);
    const grantId = await signIn.consent(provider, r.params.envId, interaction, originOf(r));
    return ix.finish(r, reply, provider, { consent: { grantId } }, true, interaction);
  });

  const abort = (r: Req, reply: FastifyReply, provider: Provider) =>
    ix.finish(r, reply, provider, { error: 'access_denied', error_description: 'The user cancelled the sign-in.' }, false);
  // GET: a plain link back to the application; it can only end this sign-in with access_denied.
  app.get<Route>(`${BASE}/abort`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.interactionOf(r, reply);
    return found ? abort(r, reply, found.provider) : ix.sendExpired(r, reply);
  });
  app.post<Route>(`${BASE}/abort`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.posted(r, reply);
    return found ? abort(r, reply, found.provider) : reply;
  });
}

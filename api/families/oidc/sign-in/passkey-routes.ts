// Passkeys on the sign-in pages (api/passkeys ceremonies, driven by the page script api/oidc/pages/passkey-script.ts):
//   POST …/passkey/options, …/passkey/verify             sign in (discoverable options: the same for every identifier)
//   GET  …/passkey/create, POST …/passkey/create/options,
//        …/passkey/create/verify, …/passkey/skip          the optional "create a passkey" step after a sign-in
//   GET  {issuer}/assets/webauthn.<hash>.js               the script (immutable, cached for a year)
// The JSON routes check the interaction's CSRF token like the forms and answer `{ error, code, requestId }` with a
// message in the interaction's locale on refusal; a finished step answers `{ location }`, which the script follows.
import { isIP } from 'node:net';
import type { FastifyReply } from 'fastify';
import type Provider from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import type { PasskeyCeremonies } from '../../../passkeys/index.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import { passkeyCreatePage } from '../../../oidc/pages/passkey.ts';
import { WEBAUTHN_FILE, WEBAUTHN_SCRIPT } from '../../../oidc/pages/passkey-script.ts';
import { createPasskeyQueries } from '../../../../db/passkeys/queries.ts';
import { BASE, field, originOf, PAGE_ROUTE, type Found, type Interactions, type Login, type Req, type Route } from './interaction.ts';
import { clientIdOf, type SignInService } from './service.ts';
import type { Csrf } from './csrf.ts';
import { passkeyAmr, passkeyRefusal, recordPasskeySignIn } from './passkey-sign-in.ts';
import type { App } from '../../../types.ts';
import type { KnownDevices } from '../../../protections/known-devices.ts';

export interface PasskeyPageDeps {
  pool: DatabasePool;
  ceremonies: PasskeyCeremonies;
  interactions: Interactions;
  signIn: SignInService;
  csrf: Csrf;
  /** A passkey sign-in is never stepped up (phishing-resistant, bound to its authenticator), but records its device. */
  devices: KnownDevices;
}

export function createPasskeyPages(deps: PasskeyPageDeps) {
  const { pool, ceremonies, interactions: ix, signIn, csrf } = deps;
  // Browsers refuse an IP address as the RP id: with such a PUBLIC_BASE_URL, the pages offer no passkeys.
  const usable = isIP(ceremonies.relyingParty.id) === 0;
  const envOf = (r: Req, provider: Provider) => ({ environmentId: r.params.envId, tenantId: snapshotOf(provider).tenantId });
  const pendingLogin = (found: Found) => {
    const login = found.interaction.result?.login as Partial<Login> | undefined;
    return typeof login?.accountId === 'string' ? (login as Login) : null;
  };
  const refuse = (r: Req, reply: FastifyReply, status: number, error: string, code: string) =>
    reply.status(status).header('cache-control', 'no-store').send({ error, code, requestId: r.id });
  const answer = (reply: FastifyReply, body: object) => reply.header('cache-control', 'no-store').send(body);

  /** The interaction of a JSON request at the login prompt with the right CSRF token, or null once a 400/403 is sent. */
  async function posted(r: Req, reply: FastifyReply): Promise<Found | null> {
    const found = await ix.interactionOf(r, reply);
    if (!found || found.interaction.prompt.name !== 'login') {
      const t = found?.context.t;
      await refuse(r, reply, 400, t?.expiredText ?? 'This sign-in expired or is not valid.', 'interaction.expired');
      return null;
    }
    if (!csrf.check(r.params.envId, r.params.uid, r.body?.csrf)) {
      await refuse(r, reply, 403, found.context.t.forbiddenText, 'csrf.invalid');
      return null;
    }
    return found;
  }

  /**
   * Ends a successful sign-in: straight to the provider when passkeys are not usable here or the user has one, else
   * the login is kept on the interaction and the "create a passkey" step shown first.
   */
  async function afterSignIn(r: Req, reply: FastifyReply, found: Found, login: Login) {
    const { provider, interaction } = found;
    const hasPasskey = async () => (await createPasskeyQueries(pool, r.params.envId).credentialsOfUser(login.accountId)).length > 0;
    if (!usable || (await hasPasskey())) return ix.finish(r, reply, provider, { login }, true, interaction);
    await provider.interactionResult(r.raw, reply.raw, { login }, { mergeWithLastSubmission: true });
    return reply.header('cache-control', 'no-store').redirect(ix.urlOf(r, '/passkey/create'), 303);
  }

  function routes(app: App) {
    app.get<{ Params: { envId: string; file: string } }>('/v1/oidc/:envId/assets/:file', PAGE_ROUTE, async (r, reply) => {
      if (r.params.file !== WEBAUTHN_FILE) return reply.status(404).send({ error: `No asset ${r.params.file}.`, code: 'asset.not_found', requestId: r.id });
      return reply
        .header('content-type', 'text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(WEBAUTHN_SCRIPT);
    });

    app.post<Route>(`${BASE}/passkey/options`, PAGE_ROUTE, async (r, reply) => {
      const found = await posted(r, reply);
      if (!found) return reply;
      return answer(reply, await ceremonies.authenticationOptions(envOf(r, found.provider), null));
    });

    app.post<Route>(`${BASE}/passkey/verify`, PAGE_ROUTE, async (r, reply) => {
      const found = await posted(r, reply);
      if (!found) return reply;
      const { provider, interaction, context } = found;
      const env = envOf(r, provider);
      const origin = originOf(r);
      const clientId = clientIdOf(interaction);
      const result = await ceremonies.verifyAuthentication(env, field(r, 'challengeId'), r.body?.response, {
        origin,
        onVerified: (trx, verified) => recordPasskeySignIn(trx, env, origin, clientId, verified),
      });
      if (!result.ok) {
        const { status, message } = passkeyRefusal(result.reason, context.t);
        return refuse(r, reply, status, message, `passkey.${result.reason}`);
      }
      const login: Login = { accountId: result.userId, amr: passkeyAmr(result.userVerified), remember: false };
      const device = await deps.devices.signedIn(env.environmentId, snapshotOf(provider).protections.device_risk, {
        userId: result.userId,
        headers: r.headers,
        ip: r.ip,
      });
      if (device) reply.header('set-cookie', device);
      const location = await provider.interactionResult(r.raw, reply.raw, { login }, { mergeWithLastSubmission: true });
      return answer(reply, { location });
    });

    app.get<Route>(`${BASE}/passkey/create`, PAGE_ROUTE, async (r, reply) => {
      const found = await ix.shown(r, reply, 'login');
      if (!found) return reply;
      if (!pendingLogin(found)) return ix.sendExpired(r, reply, found);
      return ix.send(reply, found, 200, (t) => passkeyCreatePage({ base: ix.urlOf(r), csrf: signIn.csrfOf(r.params.envId, r.params.uid) }, t));
    });

    app.post<Route>(`${BASE}/passkey/create/options`, PAGE_ROUTE, async (r, reply) => {
      const found = await posted(r, reply);
      if (!found) return reply;
      const login = pendingLogin(found);
      if (!login) return refuse(r, reply, 400, found.context.t.expiredText, 'interaction.expired');
      return answer(reply, await ceremonies.registrationOptions(envOf(r, found.provider), login.accountId));
    });

    app.post<Route>(`${BASE}/passkey/create/verify`, PAGE_ROUTE, async (r, reply) => {
      const found = await posted(r, reply);
      if (!found) return reply;
      const login = pendingLogin(found);
      const { t } = found.context;
      if (!login) return refuse(r, reply, 400, t.expiredText, 'interaction.expired');
      const env = envOf(r, found.provider);
      const result = await ceremonies.verifyRegistration(env, login.accountId, field(r, 'challengeId'), r.body?.response, { origin: originOf(r) });
      if (!result.ok) {
        const message = result.reason === 'already_registered' ? t.passkeyAlreadyRegistered : t.passkeyCreateFailed;
        return refuse(r, reply, 400, message, `passkey.${result.reason}`);
      }
      return answer(reply, { location: found.interaction.returnTo });
    });

    app.post<Route>(`${BASE}/passkey/skip`, PAGE_ROUTE, async (r, reply) => {
      const found = await ix.posted(r, reply, 'login');
      if (!found) return reply;
      if (!pendingLogin(found)) return ix.sendExpired(r, reply, found);
      return reply.header('cache-control', 'no-store').redirect(found.interaction.returnTo, 303);
    });
  }

  return { usable, afterSignIn, routes };
}

export type PasskeyPages = ReturnType<typeof createPasskeyPages>;

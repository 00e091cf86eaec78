// What every sign-in page route does with its interaction: find it (or answer the 400 "start again" page), check a
// form's CSRF token (403 page), finish a step (303 to where the provider resumes), and render a page in the
// interaction's locale (ui_locales, then Accept-Language, then the environment's default) and branding.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { OidcProviders } from '../../../oidc/types.ts';
import { messagePage, sendPage, type Page, type PageContext } from '../../../oidc/pages/page.ts';
import { pageContextOf } from '../../../oidc/pages/context.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import type { Messages } from '../../../oidc/pages/i18n/index.ts';
import type { Csrf } from './csrf.ts';
import type { Interaction } from './service.ts';
import type { Attempt } from '../../../protections/pipeline.ts';
import type { SignInFlow } from '../../../protections/decisions.ts';

export interface Route {
  Params: { envId: string; uid: string };
  Body: Record<string, unknown> | undefined;
}
export type Req = FastifyRequest<Route>;

// readOnly: nothing these pages write is cached by an instance (no NOTIFY of the API's listener), so a POST
// answers without the listener's sync round trip (api/app.ts).
export const PAGE_ROUTE = { config: { public: true, readOnly: true }, schema: { hide: true } };
/** A page whose POST changes a directory user (sign-up, verification): it answers once this instance saw its NOTIFYs. */
export const WRITING_PAGE_ROUTE = { config: { public: true }, schema: { hide: true } };
export const BASE = '/v1/oidc/:envId/interaction/:uid';

/** A finished login as the provider takes it (`interactionResult`'s `login`). */
export type Login = { accountId: string; amr: string[]; remember: boolean; acr?: string };

/** A found interaction with the page context of the request. */
export interface Found {
  provider: Provider;
  interaction: Interaction;
  context: PageContext;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const originOf = (r: FastifyRequest) => ({ ip: r.ip, userAgent: r.headers['user-agent'] ?? null, requestId: r.id });
export const field = (r: Req, name: string) => (typeof r.body?.[name] === 'string' ? (r.body[name] as string) : '');

/** The posted form of a page as the protections see it (api/protections/pipeline.ts). */
export const attemptOf = (r: Req, found: Found, flow: SignInFlow, login: string | null, userId: string | null = null): Attempt => {
  const { tenantId, protections, botChallenge } = snapshotOf(found.provider);
  const fields = Object.fromEntries(Object.entries(r.body ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
  return { environmentId: r.params.envId, tenantId, flow, protections, botChallenge, login, userId, origin: originOf(r), fields, headers: r.headers };
};

type InteractionResult = Parameters<Provider['interactionResult']>[2];
const epochTime = () => Math.floor(Date.now() / 1000);

/** oidc-provider's `interactionResult` (lib/provider.js) on an interaction already read. */
export async function saveResult(interaction: Interaction, result: InteractionResult, merge: boolean): Promise<string> {
  interaction.result = merge && !('error' in result) ? { ...interaction.lastSubmission, ...result } : result;
  await interaction.save(interaction.exp - epochTime());
  return interaction.returnTo;
}

export function createInteractions(deps: { oidc: OidcProviders; csrf: Csrf; basePath: string }) {
  const { oidc, csrf } = deps;
  const urlOf = (r: Req, step = '') => `${deps.basePath}/v1/oidc/${r.params.envId}/interaction/${r.params.uid}${step}`;
  const contextOf = (r: FastifyRequest, provider?: Provider, interaction?: Interaction) =>
    pageContextOf(provider ? snapshotOf(provider).signIn : null, interaction?.params.ui_locales, r.headers['accept-language']);
  const expired = (t: Messages) => messagePage(t.expiredTitle, t.expiredText);

  /** The provider and the interaction the request continues, or null (an unknown or expired one). */
  async function interactionOf(r: Req, reply: FastifyReply): Promise<Found | null> {
    const { envId, uid } = r.params;
    if (!UUID.test(envId)) return null;
    try {
      const provider = await oidc.get(envId);
      const interaction = await provider.interactionDetails(r.raw, reply.raw);
      return interaction.uid === uid ? { provider, interaction, context: contextOf(r, provider, interaction) } : null;
    } catch (error) {
      // An unknown environment, no interaction cookie, an interaction expired or ended: all say "start again".
      r.log.info({ err: error }, 'sign-in interaction not found');
      return null;
    }
  }

  /** The 400 "start again" page, in the locale the request prefers. */
  const sendExpired = async (r: Req, reply: FastifyReply, found?: Found | null) => {
    const context = found?.context ?? contextOf(r, await oidc.get(r.params.envId).catch(() => undefined));
    return sendPage(reply, 400, expired(context.t), context);
  };

  return {
    urlOf,
    interactionOf,
    sendExpired,
    /** Sends `page` in the found interaction's context. */
    send: (reply: FastifyReply, found: Found, status: number, page: (t: Messages) => Page) => sendPage(reply, status, page(found.context.t), found.context),

    /** The interaction of a GET page with the prompt `prompt`, or null once the 400 page is sent. */
    async shown(r: Req, reply: FastifyReply, prompt = 'login') {
      const found = await interactionOf(r, reply);
      if (found?.interaction.prompt.name === prompt) return found;
      await sendExpired(r, reply, found);
      return null;
    },

    /** The interaction of a form POST whose CSRF token is right (at prompt `prompt` if given), or null once the 400 or 403 page is sent. */
    async posted(r: Req, reply: FastifyReply, prompt?: string): Promise<Found | null> {
      const found = await interactionOf(r, reply);
      if (!found) {
        await sendExpired(r, reply);
        return null;
      }
      if (!csrf.check(r.params.envId, r.params.uid, r.body?.csrf)) {
        const { t } = found.context;
        await sendPage(reply, 403, messagePage(t.forbiddenTitle, t.forbiddenText), found.context);
        return null;
      }
      if (prompt && found.interaction.prompt.name !== prompt) {
        await sendExpired(r, reply, found);
        return null;
      }
      return found;
    },

    /**
     * Saves the step's result on the interaction and sends the browser where the provider resumes. `interaction`: the
     * one this request found (interactionOf) when nothing has saved it since; the provider's `interactionResult` would
     * read it and its session again, so it is saved here the same way (merged with the last submission, for the time
     * it has left). Without it, or once it has expired, the provider's own call does it.
     */
    async finish(r: Req, reply: FastifyReply, provider: Provider, result: InteractionResult, merge = true, interaction?: Interaction) {
      const returnTo =
        interaction && interaction.exp > epochTime()
          ? await saveResult(interaction, result, merge)
          : await provider.interactionResult(r.raw, reply.raw, result, { mergeWithLastSubmission: merge });
      return reply.header('cache-control', 'no-store').redirect(returnTo, 303);
    },
  };
}

export type Interactions = ReturnType<typeof createInteractions>;

// What the SSO routes show when they do not redirect, in the locale of the interaction when it is known (its
// ui_locales), else Accept-Language, else the environment's default. A refusal's reason goes to the audit entry and
// event; the page says what the user can do.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { messagePage, sendPage, type Page } from '../../../oidc/pages/page.ts';
import { pageContextOf } from '../../../oidc/pages/context.ts';
import type { Messages } from '../../../oidc/pages/i18n/index.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import type { OidcProviders } from '../../../oidc/types.ts';
import type { SsoOutcome } from '../../../sso/service.ts';

export type SsoPageOutcome = Exclude<SsoOutcome, { redirect: string }>;

const REFUSED: Record<string, (t: Messages) => Page> = {
  provisioning_refused: (t) => messagePage(t.ssoNoAccountTitle, t.ssoNoAccountText),
  inactive: (t) => messagePage(t.ssoNotCompletedTitle, t.ssoInactiveText),
  email_conflict: (t) => messagePage(t.ssoNotCompletedTitle, t.ssoEmailConflictText),
  expired: (t) => messagePage(t.expiredTitle, t.expiredText),
  sso_required: (t) => messagePage(t.ssoNotCompletedTitle, t.ssoRequiredRefusedText),
};

export function pageOf(outcome: SsoPageOutcome, t: Messages): Page {
  switch (outcome.page) {
    case 'expired':
      return REFUSED.expired!(t);
    case 'not_found':
      return messagePage(t.ssoUnavailableTitle, t.ssoNotFoundText);
    case 'unavailable':
      return messagePage(t.ssoUnavailableTitle, t.ssoUnreachableText);
    case 'start_at_app':
      return messagePage(t.ssoStartAtAppTitle, t.ssoStartAtAppText);
    case 'refused':
      return (REFUSED[outcome.reason ?? ''] ?? ((m: Messages) => messagePage(m.ssoNotCompletedTitle, m.ssoRefusedText)))(t);
  }
}

/** Sends the page of `outcome` for environment `envId`, in the interaction's locale when the outcome knows it. */
export async function sendSsoPage(oidc: OidcProviders, r: FastifyRequest, reply: FastifyReply, envId: string, outcome: SsoPageOutcome) {
  const provider = await oidc.get(envId).catch(() => undefined);
  const context = pageContextOf(provider ? snapshotOf(provider).signIn : undefined, outcome.uiLocales, r.headers['accept-language']);
  return sendPage(reply, outcome.status, pageOf(outcome, context.t), context);
}

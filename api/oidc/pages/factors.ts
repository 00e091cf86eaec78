// The page after the identifier: every factor the sign-in service offers this identifier (FactorOffer), each as
// its own form. Today the password; the TOTP, passkey and SSO work add their kinds to FactorOffer and a case to
// `offerForm`.
import { html, type Html } from './html.ts';
import { fill, type Messages } from './i18n/index.ts';
import { cancelForm, csrfField, errorBlock, field } from './form.ts';
import type { Page } from './page.ts';
import { emailCodeOfferForm } from './email-code.ts';
import { ssoButton } from './sso.ts';
import { passkeyOffer, passkeyScript } from './passkey.ts';
import { challengeVendor, challengeWidget, stampField, type BotChallengeWidget } from './challenge.ts';

/** A factor the page offers (computed by the sign-in service: api/families/oidc/sign-in/factors.ts). */
export type FactorOffer =
  { kind: 'password' } | { kind: 'passkey' } | { kind: 'email_code' } | { kind: 'sso'; connectionId: string; name: string; required: boolean };

export interface FactorsView {
  /** The interaction's URL; each factor posts to `${base}/<its step>`. */
  base: string;
  abort: string;
  csrf: string;
  identifier: string;
  offers: FactorOffer[];
  rememberMe: boolean;
  error?: string | undefined;
  /** The password form's signed render time (bot detection). */
  stamp?: string | undefined;
  /** The bot challenge a protection asked for, shown in the password form. */
  challenge?: BotChallengeWidget | undefined;
}

function offerForm(offer: FactorOffer, v: FactorsView, t: Messages, first: boolean): Html {
  switch (offer.kind) {
    case 'password':
      return html`<form method="post" action="${v.base}/login">
          ${csrfField(v.csrf)}
          <input type="hidden" name="identifier" value="${v.identifier}" /> ${stampField(v.stamp)}
          ${field({ id: 'password', label: t.passwordLabel, type: 'password', autocomplete: 'current-password', focus: first, error: v.error })}
          ${v.rememberMe ? html`<label class="check"><input type="checkbox" name="remember" value="yes" /> ${t.rememberMe}</label>` : ''}
          ${challengeWidget(v.challenge, t)}
          <div class="actions"><button class="primary" type="submit">${t.signInButton}</button></div>
        </form>
        <p><a href="${v.base}/reset">${t.forgotPassword}</a></p>`;
    case 'email_code':
      return emailCodeOfferForm(v, t, first);
    case 'sso':
      return html`${offer.required && !v.error ? html`<p>${fill(t.ssoRequired, { name: offer.name })}</p>` : ''} ${ssoButton(v.base, offer, t, first)}`;
    case 'passkey':
      return passkeyOffer(
        v.base,
        v.csrf,
        t,
        v.offers.some((o) => o.kind === 'password'),
      );
  }
}

export const factorsPage = (v: FactorsView, t: Messages): Page => ({
  // "Enter your password" while the password is the page's only form (a passkey is a button beside it); else "Sign in".
  title: v.offers[0]?.kind === 'password' && v.offers.every((o) => o.kind === 'password' || o.kind === 'passkey') ? t.passwordTitle : t.signInTitle,
  script: v.offers.some((o) => o.kind === 'passkey') ? passkeyScript(v.base) : undefined,
  ...challengeVendor(v.challenge),
  body: html`<p>${fill(t.signingInAs, { user: html`<strong>${v.identifier}</strong>` })} <a href="${v.base}">${t.otherAccount}</a></p>
    ${errorBlock(v.error)} ${v.offers.map((offer, i) => offerForm(offer, v, t, i === 0))} ${cancelForm(v.abort, v.csrf, t.cancel)}`,
});

// The provider's two pages of RP-initiated logout (confirm, signed out), rendered like the sign-in pages (same
// document, CSP with nonce, no form-action: the confirmation redirects to the client's post_logout_redirect_uri),
// in the locale the request asks for (ui_locales, then Accept-Language).
import type { KoaContextWithOIDC } from 'oidc-provider';
import { html, Html } from './pages/html.ts';
import { renderPage, type Page } from './pages/page.ts';
import { pageContextOf, type SignInSettingsSnapshot } from './pages/context.ts';

const send = (ctx: KoaContextWithOIDC, settings: SignInSettingsSnapshot, page: (t: ReturnType<typeof pageContextOf>['t']) => Page) => {
  const context = pageContextOf(settings, ctx.oidc?.params?.ui_locales, ctx.get('accept-language'));
  const { text, headers } = renderPage(page(context.t), context);
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
  ctx.type = 'html';
  ctx.body = text;
};

/** The two pages of the environment whose sign-in settings are `settings`. */
export const logoutPages = (settings: SignInSettingsSnapshot) => ({
  /** `form` is the provider's hidden form (id `op.logoutForm`, with its xsrf token). */
  logoutSource: (ctx: KoaContextWithOIDC, form: string) =>
    send(ctx, settings, (t) => ({
      title: t.logoutTitle,
      body: html`${new Html(form)}
        <div class="actions">
          <button class="primary" autofocus type="submit" form="op.logoutForm" value="yes" name="logout">${t.logoutYes}</button>
          <button type="submit" form="op.logoutForm">${t.logoutNo}</button>
        </div>`,
    })),

  postLogoutSuccessSource: (ctx: KoaContextWithOIDC) => send(ctx, settings, (t) => ({ title: t.signedOutTitle, body: html`<p>${t.signedOutText}</p>` })),
});

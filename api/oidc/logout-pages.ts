// The provider's two pages of RP-initiated logout (confirm, signed out), rendered like the sign-in pages (same
// document, CSP with nonce, no form-action: the confirmation redirects to the client's post_logout_redirect_uri),
// in the locale the request asks for (ui_locales, then Accept-Language).
import type { KoaContextWithOIDC } from 'oidc-provider';
import { html, Html } from './pages/html.ts';
import { renderPage, type Page } from './pages/page.ts';
import { pageContextOf } from './pages/context.ts';

const send = (ctx: KoaContextWithOIDC, page: (t: ReturnType<typeof pageContextOf>['t']) => Page) => {
  const context = pageContextOf(ctx.oidc?.provider, ctx.oidc?.params?.ui_locales, ctx.get('accept-language'));
  const { text, headers } = renderPage(page(context.t), context);
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
  ctx.type = 'html';
  ctx.body = text;
};

/** `form` is the provider's hidden form (id `op.logoutForm`, with its xsrf token). */
export const logoutSource = (ctx: KoaContextWithOIDC, form: string) =>
  send(ctx, (t) => ({
    title: t.logoutTitle,
    body: html`${new Html(form)}
      <div class="actions">
        <button class="primary" autofocus type="submit" form="op.logoutForm" value="yes" name="logout">${t.logoutYes}</button>
        <button type="submit" form="op.logoutForm">${t.logoutNo}</button>
      </div>`,
  }));

export const postLogoutSuccessSource = (ctx: KoaContextWithOIDC) => send(ctx, (t) => ({ title: t.signedOutTitle, body: html`<p>${t.signedOutText}</p>` }));

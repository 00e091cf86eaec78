// The provider's own two small pages of RP-initiated logout (confirm, signed out): plain forms with no script, no
// style and nothing fetched from elsewhere. The sign-in pages (login, consent) are not the provider's.
import type { KoaContextWithOIDC } from 'oidc-provider';

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (ctx: KoaContextWithOIDC, title: string, body: string) => {
  ctx.type = 'html';
  ctx.set('cache-control', 'no-store');
  ctx.set('content-security-policy', "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  ctx.body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`;
};

/** `form` is the provider's hidden form (id `op.logoutForm`, with its xsrf token). */
export const logoutSource = (ctx: KoaContextWithOIDC, form: string) =>
  page(
    ctx,
    'Sign out?',
    `${form}<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button> <button type="submit" form="op.logoutForm">No, stay signed in</button>`,
  );

export const postLogoutSuccessSource = (ctx: KoaContextWithOIDC) => page(ctx, 'You are signed out', '<p>You may close this window.</p>');

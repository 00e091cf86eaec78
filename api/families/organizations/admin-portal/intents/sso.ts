// sso: configure the environment's SAML or OIDC connection (the environment-settings connections service), with the
// service-provider values to copy into the IdP, and "test connection": a real sign-in through the hosted sign-in
// (./sso-test.ts).
import { html } from '../../../../oidc/pages/html.ts';
import { SaveConnectionBody } from '../../../projects/environment-settings/schemas.ts';
import { ssoUrls } from '../../../projects/environment-settings/sso-metadata.ts';
import { inEnvironment } from '../caller.ts';
import { csrfField, okBox } from '../portal-page.ts';
import { field, parseForm, type Form, type Intent, type PortalContext } from './intent.ts';
import { ensureTestClient, startConnectionTest } from './sso-test.ts';

const SSO_PROVIDERS = new Set(['saml', 'oidc']);

/** Saves the environment's connection of `providerId`: the one there is updated, else a new one is added. */
async function save(ctx: PortalContext, providerId: 'saml' | 'oidc', payload: Record<string, string | undefined>, form: Form) {
  const caller = inEnvironment(ctx.caller);
  const { connections } = await ctx.services.connections.list(caller);
  const existing = connections.find((c) => c.providerId === providerId);
  const body = parseForm(SaveConnectionBody, {
    providerId,
    formPayload: JSON.stringify(payload),
    connectionId: existing?.id ?? null,
    ...(field(form, 'name') && { name: field(form, 'name') }),
  });
  const saved = await ctx.services.connections.save(caller, body);
  // Ready before the admin asks for a test: a new OIDC client reaches the provider through NOTIFY.
  await ensureTestClient(ctx);
  return {
    notice: okBox(html`<p>${saved.created ? 'Connection added' : 'Connection updated'}: ${saved.connection.name ?? providerId}. Test it below.</p>`),
  };
}

const spValues = (ctx: PortalContext) => {
  const environmentId = inEnvironment(ctx.caller).scope.environmentId;
  const saml = ssoUrls(ctx.publicBaseUrl, environmentId, 'saml');
  const oidc = ssoUrls(ctx.publicBaseUrl, environmentId, 'oidc');
  return html`<dl>
    <dt>SAML entity ID (SP metadata)</dt>
    <dd class="value" data-copy="entity-id">${saml.entityId}</dd>
    <dt>SAML ACS URL</dt>
    <dd class="value" data-copy="acs-url">${saml.acs}</dd>
    <dt>OIDC redirect URI</dt>
    <dd class="value" data-copy="redirect-uri">${oidc.callback}</dd>
  </dl>`;
};

export const sso: Intent = {
  async render(ctx, notice) {
    const { connections } = await ctx.services.connections.list(inEnvironment(ctx.caller));
    const tests = connections
      .filter((c) => c.providerId && SSO_PROVIDERS.has(c.providerId) && c.active)
      .map(
        (c) =>
          html`<form method="post" action="/portal/sso-test">
            ${csrfField(ctx.csrf)}
            <input type="hidden" name="connectionId" value="${c.id}" />
            <button type="submit">Test connection: ${c.name ?? c.providerId}</button>
          </form>`,
      );
    return {
      title: 'Set up single sign-on',
      body: html`${notice}
        <section aria-labelledby="sp-heading">
          <h2 id="sp-heading">Values for your identity provider</h2>
          ${spValues(ctx)}
        </section>
        ${
          tests.length
            ? html`<section aria-labelledby="test-heading">
                <h2 id="test-heading">Test</h2>
                ${tests}
              </section>`
            : ''
        }
        <section aria-labelledby="saml-heading">
          <h2 id="saml-heading">SAML</h2>
          <form method="post" action="/portal/saml">
            ${csrfField(ctx.csrf)}
            <label for="saml-name">Connection name</label>
            <input type="text" id="saml-name" name="name" maxlength="200" placeholder="Okta" />
            <label for="metadataXml">IdP metadata XML</label>
            <textarea id="metadataXml" name="metadataXml"></textarea>
            <label for="metadataUrl">or IdP metadata URL</label>
            <input type="url" id="metadataUrl" name="metadataUrl" maxlength="2000" />
            <button class="primary" type="submit">Save SAML connection</button>
          </form>
        </section>
        <section aria-labelledby="oidc-heading">
          <h2 id="oidc-heading">OpenID Connect</h2>
          <form method="post" action="/portal/oidc">
            ${csrfField(ctx.csrf)}
            <label for="oidc-name">Connection name</label>
            <input type="text" id="oidc-name" name="name" maxlength="200" />
            <label for="issuer">Issuer</label>
            <input type="url" id="issuer" name="issuer" maxlength="2000" required />
            <label for="clientId">Client ID</label>
            <input type="text" id="clientId" name="clientId" required />
            <label for="clientSecret">Client secret</label>
            <input type="password" id="clientSecret" name="clientSecret" autocomplete="off" />
            <button class="primary" type="submit">Save OIDC connection</button>
          </form>
        </section>`,
    };
  },
  actions: {
    saml: (ctx, form) => save(ctx, 'saml', { metadataXml: field(form, 'metadataXml'), metadataUrl: field(form, 'metadataUrl') }, form),
    oidc: (ctx, form) =>
      save(ctx, 'oidc', { issuer: field(form, 'issuer'), clientId: field(form, 'clientId'), clientSecret: field(form, 'clientSecret') }, form),
    'sso-test': async (ctx, form) => ({ redirect: await startConnectionTest(ctx, field(form, 'connectionId') ?? '') }),
  },
};

// directory_sync: create a SCIM or HRIS provisioning token (shown once) and see the base URL the directory calls.
import { html } from '../../../../oidc/pages/html.ts';
import { CreateProvisioningTokenBody } from '../../../provisioning/provisioning-tokens/schemas.ts';
import { inEnvironment } from '../caller.ts';
import { csrfField, dataTable, okBox } from '../portal-page.ts';
import { field, FIRST_PAGE, parseForm, type Intent, type PortalContext } from './intent.ts';

const baseUrlOf = (ctx: PortalContext, kind: 'scim' | 'hris') => `${ctx.publicBaseUrl}${kind === 'scim' ? '/v1/scim/v2' : '/v1/hris/v1'}`;

export const directorySync: Intent = {
  async render(ctx, notice) {
    const { provisioningTokens } = await ctx.services.provisioningTokens.list(inEnvironment(ctx.caller), FIRST_PAGE);
    const rows = provisioningTokens.map(
      (t) =>
        html`<tr>
          <td>${t.name}</td>
          <td>${t.kind.toUpperCase()}</td>
          <td><code>${t.prefix}…${t.hint}</code></td>
          <td>${t.active ? 'active' : t.revokedAt ? 'revoked' : 'expired'}</td>
        </tr>`,
    );
    return {
      title: 'Set up directory sync',
      body: html`${notice}
        <p>Your identity provider or HR system keeps your users and groups in sync over SCIM 2.0 or HRIS. Create a token for it here.</p>
        <dl>
          <dt>SCIM base URL</dt>
          <dd class="value">${baseUrlOf(ctx, 'scim')}</dd>
          <dt>HRIS base URL</dt>
          <dd class="value">${baseUrlOf(ctx, 'hris')}</dd>
        </dl>
        <form method="post" action="/portal/tokens">
          ${csrfField(ctx.csrf)}
          <label for="name">Token name</label>
          <input type="text" id="name" name="name" required maxlength="200" />
          <label for="kind">Kind</label>
          <select id="kind" name="kind">
            <option value="scim">SCIM (Entra ID, Okta, …)</option>
            <option value="hris">HRIS</option>
          </select>
          <button class="primary" type="submit">Create token</button>
        </form>
        <section aria-labelledby="tokens-heading">
          <h2 id="tokens-heading">Tokens</h2>
          ${dataTable(['Name', 'Kind', 'Token', 'State'], rows, 'No token yet.')}
        </section>`,
    };
  },
  actions: {
    tokens: async (ctx, form) => {
      const body = parseForm(CreateProvisioningTokenBody, { name: field(form, 'name'), kind: field(form, 'kind') });
      const { token, provisioningToken } = await ctx.services.provisioningTokens.create(inEnvironment(ctx.caller), body);
      return {
        notice: okBox(
          html`<p>Token <strong>${provisioningToken.name}</strong> created. Copy it now: it is shown only once.</p>
            <dl>
              <dt>Token</dt>
              <dd class="value" data-secret>${token}</dd>
              <dt>Base URL</dt>
              <dd class="value">${baseUrlOf(ctx, provisioningToken.kind)}</dd>
            </dl>`,
        ),
      };
    },
  },
};

// domain_verification: add a domain to the tenant, see the TXT record to publish, and follow its verification process
// live: the page's script polls GET /portal/domains/<id>/status (a small JSON answer) until the domain is verified.
import { html } from '../../../../oidc/pages/html.ts';
import { CreateTenantDomainBody } from '../../../tenants/domains/schemas.ts';
import { csrfField, okBox } from '../portal-page.ts';
import { field, FIRST_PAGE, parseForm, type Intent } from './intent.ts';

export const DOMAIN_SCRIPT_PATH = '/portal/assets/domain-status.js';

// Plain JavaScript served from this origin (the page's CSP allows it by nonce and lets it fetch this origin only).
export const DOMAIN_SCRIPT = `(() => {
  'use strict';
  const poll = async (el) => {
    try {
      const res = await fetch(el.dataset.statusUrl, { credentials: 'same-origin', headers: { accept: 'application/json' } });
      if (res.ok) {
        const body = await res.json();
        el.textContent = body.verified ? 'Verified' : 'Waiting for the TXT record…';
        if (body.verified) { el.dataset.state = 'verified'; return; }
      }
    } catch {}
    setTimeout(() => poll(el), Number(el.dataset.intervalMs) || 2000);
  };
  document.querySelectorAll('[data-status-url]').forEach((el) => { if (el.dataset.state !== 'verified') poll(el); });
})();`;

export const domainVerification: Intent = {
  async render(ctx, notice) {
    const { domains } = await ctx.services.domains.list(ctx.caller, FIRST_PAGE);
    const interval = ctx.query.pollMs && /^\d{2,5}$/.test(ctx.query.pollMs) ? ctx.query.pollMs : '2000';
    const items = domains.map(
      (d) =>
        html`<li>
          <h3>${d.domain}</h3>
          <dl>
            <dt>TXT record name</dt>
            <dd class="value">${d.validationSubDomain}</dd>
            <dt>TXT record value</dt>
            <dd class="value">${d.validationToken}</dd>
            <dt>Status</dt>
            <dd>
              <span
                role="status"
                aria-live="polite"
                data-state="${d.verified ? 'verified' : 'pending'}"
                data-status-url="/portal/domains/${d.id}/status"
                data-interval-ms="${interval}"
                >${d.verified ? 'Verified' : 'Waiting for the TXT record…'}</span
              >
            </dd>
          </dl>
        </li>`,
    );
    return {
      title: 'Verify a domain',
      script: DOMAIN_SCRIPT_PATH,
      body: html`${notice}
        <p>Prove that your organization owns a domain: add it, publish the TXT record shown at your DNS provider, and this page shows when it is verified.</p>
        <form method="post" action="/portal/domains">
          ${csrfField(ctx.csrf)}
          <label for="domain">Domain</label>
          <input type="text" id="domain" name="domain" required maxlength="300" placeholder="example.com" />
          <button class="primary" type="submit">Add domain</button>
        </form>
        <section aria-labelledby="domains-heading">
          <h2 id="domains-heading">Domains</h2>
          ${
            items.length
              ? html`<ul>
                  ${items}
                </ul>`
              : html`<p>No domain yet.</p>`
          }
        </section>`,
    };
  },
  actions: {
    domains: async (ctx, form) => {
      const body = parseForm(CreateTenantDomainBody, { domain: field(form, 'domain'), validationMethod: 'dns_txt' });
      const domain = await ctx.services.domains.create(ctx.caller, body);
      return { notice: okBox(html`<p>${domain.domain} added. Publish its TXT record; the status below updates by itself.</p>`) };
    },
  },
};

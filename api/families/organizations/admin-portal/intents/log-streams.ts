// log_streams: a webhook endpoint receiving the organization's events in this tenant (and the link's environment, when
// it names one); the signing secret is shown once.
import { html } from '../../../../oidc/pages/html.ts';
import { CreateWebhookBody } from '../../../events/webhooks/schemas.ts';
import { csrfField, dataTable, okBox } from '../portal-page.ts';
import { field, FIRST_PAGE, parseForm, type Intent } from './intent.ts';

export const logStreams: Intent = {
  async render(ctx, notice) {
    const { endpoints } = await ctx.services.webhooks.list(ctx.caller, FIRST_PAGE);
    const rows = endpoints.map(
      (e) =>
        html`<tr>
          <td><code>${e.url}</code></td>
          <td>${e.eventTypes.join(', ')}</td>
          <td>${e.active ? 'active' : 'disabled'}</td>
        </tr>`,
    );
    return {
      title: 'Stream events to your endpoint',
      body: html`${notice}
        <p>Events are delivered as signed HTTPS POSTs (header <code>X-Service-Signature</code>), retried until your endpoint answers 2xx.</p>
        <form method="post" action="/portal/endpoints">
          ${csrfField(ctx.csrf)}
          <label for="url">Endpoint URL</label>
          <input type="url" id="url" name="url" required maxlength="2000" placeholder="https://example.com/events" />
          <label for="eventTypes">Event types (space separated; * for all)</label>
          <input type="text" id="eventTypes" name="eventTypes" value="*" />
          <button class="primary" type="submit">Add endpoint</button>
        </form>
        <section aria-labelledby="endpoints-heading">
          <h2 id="endpoints-heading">Endpoints</h2>
          ${dataTable(['URL', 'Events', 'State'], rows, 'No endpoint yet.')}
        </section>`,
    };
  },
  actions: {
    endpoints: async (ctx, form) => {
      const eventTypes = (field(form, 'eventTypes') ?? '*').split(/[\s,]+/).filter(Boolean);
      const body = parseForm(CreateWebhookBody, { url: field(form, 'url'), eventTypes, environmentId: ctx.session.environmentId });
      const { endpoint, secret } = await ctx.services.webhooks.create(ctx.caller, body);
      return {
        notice: okBox(
          html`<p>Endpoint ${endpoint.url} added. Copy its signing secret now: it is shown only once.</p>
            <dl>
              <dt>Signing secret</dt>
              <dd class="value" data-secret>${secret}</dd>
            </dl>`,
        ),
      };
    },
  },
};

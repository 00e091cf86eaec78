// audit_logs: the organization's audit log, newest first, filtered by action or resource type, a page at a time.
import { html } from '../../../../oidc/pages/html.ts';
import { AuditLogsQuery } from '../../../events/audit-logs/schemas.ts';
import { dataTable, errorBox } from '../portal-page.ts';
import { parseForm, type Intent } from './intent.ts';

const PAGE = 25;

export const auditLogs: Intent = {
  async render(ctx, notice) {
    const { action, resourceType, cursor } = ctx.query;
    let query;
    try {
      query = parseForm(AuditLogsQuery, { action: action || undefined, resourceType: resourceType || undefined, cursor: cursor || undefined, limit: PAGE });
    } catch {
      query = parseForm(AuditLogsQuery, { limit: PAGE });
      notice = errorBox('The filter was not valid; showing the latest entries.');
    }
    const page = await ctx.services.auditLogs.list({ organizationId: ctx.session.organizationId }, query);
    const next = new URLSearchParams({ ...(query.action && { action: query.action }), ...(query.resourceType && { resourceType: query.resourceType }) });
    if (page.nextCursor) next.set('cursor', page.nextCursor);
    const rows = page.auditLogs.map(
      (e) =>
        html`<tr>
          <td>${e.occurredAt}</td>
          <td><code>${e.action}</code></td>
          <td>${e.actor.type}${e.actor.id ? html`<br /><code>${e.actor.id}</code>` : ''}</td>
          <td>${e.resource.type}${e.resource.id ? html`<br /><code>${e.resource.id}</code>` : ''}</td>
        </tr>`,
    );
    return {
      title: 'Audit log',
      body: html`${notice}
        <form method="get" action="/portal" role="search">
          <label for="action">Action</label>
          <input type="text" id="action" name="action" value="${query.action ?? ''}" placeholder="e.g. tenant.domain.create" />
          <label for="resourceType">Resource type</label>
          <input type="text" id="resourceType" name="resourceType" value="${query.resourceType ?? ''}" placeholder="e.g. webhook_endpoint" />
          <button class="primary" type="submit">Filter</button>
        </form>
        ${dataTable(['When', 'Action', 'Actor', 'Resource'], rows, 'No entry matches.', 'Newest first')}
        ${page.hasMore ? html`<p class="links"><a href="/portal?${next.toString()}">Older entries</a></p>` : ''}`,
    };
  },
  actions: {},
};

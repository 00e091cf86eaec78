// The approver's half of the page: the requests waiting for the user's decision (approve or deny, with a reason), and
// who holds what until when under the policies it approves.
import { html } from '../../../oidc/pages/html.ts';
import type { HeldGrant, WaitingRequest } from '../../../../db/access/access-page/rows.ts';
import { durationText, timeOf } from './format.ts';
import type { Forms } from './view-requester.ts';

function waitingRequest(r: WaitingRequest, forms: Forms) {
  const reason = `reason-${r.id}`;
  return html`<li class="card">
    <h3>${r.requester}: ${r.policyName}</h3>
    <p>${r.target}, for ${durationText(r.durationSeconds)}.</p>
    <p>Justification: ${r.justification ? html`“${r.justification}”` : 'none given'}${r.ticketId ? `, ticket ${r.ticketId}` : ''}.</p>
    <p>Approvals: ${r.approvals} of ${r.approvalsRequired}. Open until ${timeOf(r.expiresAt)}.</p>
    <form method="post" action="${forms.action(`/requests/${r.id}/approve`)}">
      <input type="hidden" name="csrf" value="${forms.csrf}" />
      <label for="${reason}">Reason</label>
      <textarea id="${reason}" name="reason" rows="2" cols="30" maxlength="2000"></textarea>
      <div class="actions">
        <button type="submit" class="primary">Approve</button>
        <button type="submit" formaction="${forms.action(`/requests/${r.id}/deny`)}">Deny</button>
      </div>
    </form>
  </li>`;
}

function heldGrant(g: HeldGrant) {
  const when =
    g.state === 'active' && g.expiresAt ? html`active until ${timeOf(g.expiresAt)}` : html`approved, to be activated by ${timeOf(g.activationDeadline)}`;
  return html`<li>${g.holder} holds ${g.target} (${g.policyName}): ${when}</li>`;
}

export function approverSections(view: { waiting: readonly WaitingRequest[]; held: readonly HeldGrant[] }, forms: Forms) {
  return html`<section aria-labelledby="waiting">
      <h2 id="waiting">Waiting for your decision</h2>
      ${
        view.waiting.length === 0
          ? html`<p>No request is waiting for you.</p>`
          : html`<ul class="cards">
              ${view.waiting.map((r) => waitingRequest(r, forms))}
            </ul>`
      }
    </section>
    <section aria-labelledby="holders">
      <h2 id="holders">Who holds access</h2>
      ${
        view.held.length === 0
          ? html`<p>Nobody holds access under the policies you approve.</p>`
          : html`<ul>
              ${view.held.map(heldGrant)}
            </ul>`
      }
    </section>`;
}

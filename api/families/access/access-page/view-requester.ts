// The requester's half of the page: a form per policy the user may ask under (duration, and justification and ticket
// as the policy demands), and the user's own requests with what it can do next (cancel, activate, end early).
import { html, type Html } from '../../../oidc/pages/html.ts';
import type { EligiblePolicy, OwnRequest } from '../../../../db/access/access-page/rows.ts';
import { durationField, durationText, GRANT_STATES, REQUEST_STATES, timeOf } from './format.ts';
import { UNITS, type Refusal, type RequestForm } from './service.ts';

/** A refused request form: the policy, what was typed and why it was refused. */
export interface FormError {
  policyId: string;
  form: RequestForm;
  refusal: Refusal;
}

export interface Forms {
  csrf: string;
  action(path: string): string;
}

const unitOptions = (selected: string) =>
  Object.keys(UNITS).map((unit) => html`<option value="${unit}" ${unit === selected ? html`selected` : ''}>${unit}</option>`);

/** A field's label, input and, when refused, its message (announced, tied to the input). */
function field(id: string, label: string, input: (invalid: Html) => Html, message: string | null, hint?: string) {
  const described = [hint ? `${id}-hint` : null, message ? `${id}-error` : null].filter(Boolean).join(' ');
  const attributes = html`${described ? html`aria-describedby="${described}"` : ''} ${message ? html`aria-invalid="true"` : ''}`;
  return html`<label for="${id}">${label}</label> ${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''} ${input(attributes)}
    ${message ? html`<p class="error" id="${id}-error">${message}</p>` : ''}`;
}

function policyForm(policy: EligiblePolicy, forms: Forms, error: FormError | null) {
  const mine = error?.policyId === policy.id ? error : null;
  const value = (name: keyof RequestForm) => mine?.form[name] ?? '';
  const messageFor = (name: string) => (mine?.refusal.field === name ? mine.refusal.message : null);
  const initial = durationField(policy.defaultDurationSeconds);
  const id = (name: string) => `${name}-${policy.id}`;
  const ticketHint = policy.ticketPattern ? `A ticket id matching ${policy.ticketPattern}.` : undefined;
  return html`<section class="card" aria-labelledby="${id('policy')}">
    <h3 id="${id('policy')}">${policy.name}</h3>
    ${policy.description ? html`<p>${policy.description}</p>` : ''}
    <p>
      Grants ${policy.target}, for at most ${durationText(policy.maxDurationSeconds)};
      ${policy.approvalsRequired === 1 ? 'one approval' : `${policy.approvalsRequired} approvals`} needed.
    </p>
    ${mine && mine.refusal.field === null ? html`<p class="error" role="alert">${mine.refusal.message}</p>` : ''}
    ${mine && mine.refusal.field !== null ? html`<p class="error" role="alert">Your request was not sent: see the field marked below.</p>` : ''}
    <form method="post" action="${forms.action('/requests')}">
      <input type="hidden" name="csrf" value="${forms.csrf}" />
      <input type="hidden" name="policyId" value="${policy.id}" />
      ${field(
        id('duration'),
        'Duration',
        (a) =>
          html`<input
            type="number"
            id="${id('duration')}"
            name="duration"
            min="1"
            step="1"
            required
            value="${value('duration') || String(initial.amount)}"
            ${a}
          />`,
        messageFor('duration'),
      )}
      <label for="${id('unit')}">Unit</label>
      <select id="${id('unit')}" name="unit">
        ${unitOptions(value('unit') || initial.unit)}
      </select>
      ${field(
        id('justification'),
        policy.requireJustification ? 'Justification (required)' : 'Justification (optional)',
        (a) =>
          html`<textarea
            id="${id('justification')}"
            name="justification"
            rows="3"
            cols="30"
            maxlength="2000"
            ${policy.requireJustification ? html`required` : ''}
            ${a}
          >
${value('justification')}</textarea>`,
        messageFor('justification'),
      )}
      ${
        policy.ticketPattern
          ? field(
              id('ticketId'),
              'Ticket',
              (a) => html`<input type="text" id="${id('ticketId')}" name="ticketId" maxlength="200" value="${value('ticketId')}" ${a} />`,
              messageFor('ticketId'),
              ticketHint,
            )
          : ''
      }
      <button type="submit" class="primary">Request access</button>
    </form>
  </section>`;
}

function ownRequest(r: OwnRequest, forms: Forms) {
  const post = (path: string, label: string, extra: Html | string = '') =>
    html`<form method="post" action="${forms.action(path)}">
      <input type="hidden" name="csrf" value="${forms.csrf}" />${extra}<button type="submit">${label}</button>
    </form>`;
  const live = r.grantState && r.state === 'approved' ? GRANT_STATES[r.grantState] : REQUEST_STATES[r.state];
  let next: Html | string = '';
  if (r.state === 'pending')
    next = html`<p>Open until ${timeOf(r.expiresAt)}.</p>
      ${post(`/requests/${r.id}/cancel`, 'Cancel request')}`;
  else if (r.grantState === 'approved' && r.activationDeadline)
    next = html`<p>Activate by ${timeOf(r.activationDeadline)}.</p>
      ${post(`/grants/${r.grantId}/activate`, `Activate for ${durationText(r.durationSeconds)}`)}`;
  else if (r.grantState === 'active' && r.grantExpiresAt)
    next = html`<p>Until ${timeOf(r.grantExpiresAt)}.</p>
      ${post(`/grants/${r.grantId}/revoke`, 'End now')}`;
  return html`<li class="card">
    <h3>${r.policyName}</h3>
    <p>${r.target}, ${durationText(r.durationSeconds)}${r.justification ? html`: “${r.justification}”` : ''}${r.ticketId ? ` (ticket ${r.ticketId})` : ''}</p>
    <p>Status: <strong data-request-state="${r.id}">${live}</strong></p>
    ${r.comments.map((c) => html`<p>Approver’s reason: “${c}”</p>`)} ${next}
  </li>`;
}

export function requesterSections(view: { policies: readonly EligiblePolicy[]; own: readonly OwnRequest[] }, forms: Forms, error: FormError | null) {
  return html`<section aria-labelledby="ask">
      <h2 id="ask">Request access</h2>
      ${view.policies.length === 0 ? html`<p>No policy lets you request access in this environment.</p>` : view.policies.map((p) => policyForm(p, forms, error))}
    </section>
    <section aria-labelledby="mine">
      <h2 id="mine">Your requests</h2>
      ${
        view.own.length === 0
          ? html`<p>You have not requested access yet.</p>`
          : html`<ul class="cards">
              ${view.own.map((r) => ownRequest(r, forms))}
            </ul>`
      }
    </section>`;
}

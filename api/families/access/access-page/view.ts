// The whole page for a signed-in user: who is signed in (and signing out), a live status line, the requester's
// sections and, for an approver, the approver's sections. Server-rendered with the sign-in pages' helpers (escaping
// template, stylesheet, branding, CSP); the one script only follows the state.
import { html } from '../../../oidc/pages/html.ts';
import type { Page } from '../../../oidc/pages/page.ts';
import type { PageUser } from '../../../../db/access/access-page/rows.ts';
import type { PageView } from './service.ts';
import { approverSections } from './view-approver.ts';
import { requesterSections, type FormError, type Forms } from './view-requester.ts';

export const NOTICES = {
  requested: 'Your request was sent to its approvers.',
  granted: 'Your request was approved at once: activate it when you need it.',
  cancelled: 'Your request was cancelled.',
  approved: 'You approved the request.',
  recorded: 'Your approval was recorded; the request needs more approvals.',
  denied: 'You denied the request.',
  activated: 'Your access is active.',
  ended: 'Your access has ended.',
} as const;
export type Notice = keyof typeof NOTICES;

export interface PageInput {
  user: PageUser;
  view: PageView;
  forms: Forms;
  version: string;
  stateUrl: string;
  pollMs: number;
  script: string;
  notice?: string | null | undefined;
  /** A refused action: the request form's (shown at its fields) or another (shown at the top). */
  error?: FormError | null | undefined;
  alert?: string | null | undefined;
}

export function accessPage(input: PageInput): Page {
  const { user, view, forms } = input;
  return {
    title: 'Access requests',
    script: input.script,
    body: html`<p>Signed in as <strong>${user.displayName ?? user.userName}</strong> (${user.userName}).</p>
      <form method="post" action="${forms.action('/sign-out')}">
        <input type="hidden" name="csrf" value="${forms.csrf}" /><button type="submit">Sign out</button>
      </form>
      ${input.alert ? html`<p class="error" role="alert">${input.alert}</p>` : ''}
      <div
        class="${input.notice ? 'notice' : ''}"
        role="status"
        aria-live="polite"
        data-state="${input.stateUrl}"
        data-version="${input.version}"
        data-poll-ms="${String(input.pollMs)}"
      >
        ${input.notice ?? ''}
      </div>
      ${requesterSections(view, forms, input.error ?? null)} ${view.approver ? approverSections(view, forms) : ''}`,
  };
}

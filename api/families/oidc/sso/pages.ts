// What the SSO routes show when they do not redirect. A refusal's reason goes to the audit entry and event; the
// page says what the user can do.
import { messagePage, type Page } from '../../../oidc/pages/page.ts';
import type { SsoOutcome } from '../../../sso/service.ts';

const AGAIN = 'Go back to the application and start again.';

const REFUSED: Record<string, Page> = {
  provisioning_refused: messagePage('No account here', 'There is no account for you here yet. Ask your administrator to give you access.'),
  inactive: messagePage('Sign-in not completed', 'This account cannot sign in. Ask your administrator.'),
  email_conflict: messagePage('Sign-in not completed', 'An account with your email exists already. Sign in to it another way, or ask your administrator.'),
  expired: messagePage('This sign-in expired', `This sign-in expired or is not valid. ${AGAIN}`),
  sso_required: messagePage('Sign-in not completed', `Your organization requires you to sign in with its own sign-in. ${AGAIN} Then enter your work email.`),
};

export function pageOf(outcome: Exclude<SsoOutcome, { redirect: string }>): Page {
  switch (outcome.page) {
    case 'expired':
      return REFUSED.expired!;
    case 'not_found':
      return messagePage('Sign-in not available', 'This sign-in connection does not exist or is not active.');
    case 'unavailable':
      return messagePage('Sign-in not available', 'The identity provider could not be reached. Try again later.');
    case 'start_at_app':
      return messagePage('Start at the application', 'Sign-in must start at the application you want to use: open it and choose to sign in there.');
    case 'refused':
      return REFUSED[outcome.reason ?? ''] ?? messagePage('Sign-in not completed', `The identity provider’s answer could not be accepted. ${AGAIN}`);
  }
}

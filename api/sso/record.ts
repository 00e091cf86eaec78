// The audit entries and events of SSO sign-ins: `user.signed_in` (amr `fed`) and `user.sign_in_failed` with the
// refusal's reason, both with the connection.
import type { CommonQueryMethods } from 'slonik';
import { recordChange, type RequestOrigin } from '../../db/shared/changes.ts';
import type { SsoRefusalReason } from './refusal.ts';

/** What every SSO sign-in uses as its method: a federated assertion (an ID token or a SAML assertion). */
export const SSO_AMR = ['fed'];
/** An SSO sign-in whose upstream says it used more than one factor (lib/sso/upstream-mfa.ts): no second factor here. */
export const SSO_MFA_AMR = ['fed', 'mfa'];

export interface SignInScope {
  environmentId: string;
  tenantId: string;
  origin: RequestOrigin;
  clientId: string;
  connectionId: string | null;
  /** The interaction's ui_locales, when the state named one: the locale of the page a refusal shows. */
  uiLocales?: unknown;
}

export const recordSignedIn = (db: CommonQueryMethods, scope: SignInScope, userId: string, amr: string[]) =>
  recordChange(db, {
    actor: { type: 'user', id: userId },
    origin: scope.origin,
    action: 'user.signed_in',
    resource: { type: 'user', id: userId },
    scope: { tenantId: scope.tenantId, environmentId: scope.environmentId },
    event: {
      type: 'user.signed_in',
      // An upstream that did the second factor: recorded here, with no second factor of ours.
      data: { userId, clientId: scope.clientId, amr, ip: scope.origin.ip ?? null, remember: false, secondFactor: null, connectionId: scope.connectionId },
    },
  });

export const recordRefusal = (
  db: CommonQueryMethods,
  scope: SignInScope,
  refusal: { reason: SsoRefusalReason; userId: string | null; message: string },
  login = '',
) =>
  recordChange(db, {
    actor: { type: 'user', id: refusal.userId },
    origin: scope.origin,
    action: 'user.sign_in_failed',
    resource: { type: 'user', id: refusal.userId },
    scope: { tenantId: scope.tenantId, environmentId: scope.environmentId },
    after: { reason: refusal.reason, detail: refusal.message.slice(0, 500), connectionId: scope.connectionId },
    event: {
      type: 'user.sign_in_failed',
      data: {
        userId: refusal.userId,
        login: login.slice(0, 256),
        clientId: scope.clientId,
        reason: refusal.reason,
        ip: scope.origin.ip ?? null,
        connectionId: scope.connectionId,
      },
    },
  });

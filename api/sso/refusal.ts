// A refused SSO sign-in: its reason goes to the `user.sign_in_failed` event and audit entry, the page says only
// that the sign-in could not be completed (and, for a few reasons, what the user can do).
import type { SsoFailureReason } from '../../db/sso/events.ts';

export type SsoRefusalReason = SsoFailureReason | 'inactive' | 'sso_required';

export class SsoRefusal extends Error {
  readonly reason: SsoRefusalReason;
  /** The user the refusal concerns, when one was found. */
  readonly userId: string | null;
  constructor(reason: SsoRefusalReason, message: string, userId: string | null = null) {
    super(message);
    this.reason = reason;
    this.userId = userId;
  }
}

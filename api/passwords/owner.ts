// Whose password the policy is asked about, from a directory user as the services read it.
import type { PasswordCheck, PasswordPurpose } from './policy.ts';

/** The policy's context for `user`'s password: their id, user name and first email (lower-cased), or null. */
export const passwordCheckOf = (purpose: PasswordPurpose, user: { id: string; userName: string; emails: { value: string }[] }): PasswordCheck => ({
  purpose,
  userId: user.id,
  userName: user.userName,
  email: user.emails[0]?.value.toLowerCase() ?? null,
});

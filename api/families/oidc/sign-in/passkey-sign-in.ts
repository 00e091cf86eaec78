// What a passkey sign-in on the pages records and says: `user.signed_in` (amr `hwk`, plus `user` when the
// authenticator verified the user) in the transaction that records the passkey's use, and the localised message of a
// refusal (whose audit entry and event the ceremony service records).
import type { DatabaseTransactionConnection } from 'slonik';
import type { AuthenticationRefusal, PasskeyEnvironment, VerifiedPasskey } from '../../../passkeys/index.ts';
import type { Messages } from '../../../oidc/pages/i18n/index.ts';
import { recordChange, type RequestOrigin } from '../../../../db/shared/changes.ts';

/** The methods of a passkey sign-in: `hwk` (a key held), plus `user` when the authenticator verified the user (PIN, biometrics): two factors. */
export const passkeyAmr = (userVerified: boolean) => (userVerified ? ['hwk', 'user'] : ['hwk']);

/** Records the sign-in of a verified passkey (the ceremony's `onVerified`). */
export const recordPasskeySignIn = async (
  trx: DatabaseTransactionConnection,
  env: PasskeyEnvironment,
  origin: RequestOrigin,
  clientId: string,
  verified: VerifiedPasskey,
): Promise<void> => {
  await recordChange(trx, {
    actor: { type: 'user', id: verified.userId },
    origin,
    action: 'user.signed_in',
    resource: { type: 'user', id: verified.userId },
    scope: { tenantId: env.tenantId, environmentId: env.environmentId },
    event: {
      type: 'user.signed_in',
      data: {
        userId: verified.userId,
        clientId,
        amr: passkeyAmr(verified.userVerified),
        ip: origin.ip ?? null,
        remember: false,
        passkeyId: verified.passkeyId,
      },
    },
  });
};

/** The status and page message of a refused passkey sign-in. */
export function passkeyRefusal(reason: AuthenticationRefusal, t: Messages): { status: number; message: string } {
  switch (reason) {
    case 'challenge_mismatch':
    case 'origin_mismatch':
    case 'expired':
      return { status: 400, message: t.passkeyWrongChallenge };
    case 'unknown_credential':
      return { status: 401, message: t.passkeyUnknown };
    case 'verification_failed':
      return { status: 400, message: t.passkeyFailed };
    case 'user_inactive':
    case 'counter_regressed':
      return { status: 401, message: t.passkeyFailed };
  }
}

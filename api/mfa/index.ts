// The second-factor services the sign-in pages call: TOTP enrolment and verification, recovery codes, the MFA
// policy's requirement and "remember this device". Each takes the environment (`MfaEnv`: its tenant for the audit
// entry, and the request's origin); a check a person can fail answers `{ ok: false, reason }` and is audited and
// evented (`user.mfa_failed`), never thrown.
import type { DatabasePool } from 'slonik';
import { createMfaPolicyService } from './policy.ts';
import { createRecoveryCodeService } from './recovery-codes.ts';
import { createTotpService } from './totp.ts';

export type { MfaCheck, MfaEnv, MfaFailureReason } from './context.ts';
export type { TotpEnrolment } from './totp.ts';

/** `now` is the clock codes and remembered devices are checked against (tests move it). */
export const createMfaService = (pool: DatabasePool, masterKey: Buffer, now: () => number = Date.now) => ({
  ...createTotpService(pool, masterKey, now),
  ...createRecoveryCodeService(pool),
  ...createMfaPolicyService(pool, masterKey, now),
});

export type MfaService = ReturnType<typeof createMfaService>;

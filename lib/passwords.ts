// Directory passwords: argon2id through @node-rs/argon2 at its defaults (m=19456 KiB, t=2, p=1), the service's
// cost. A sign-in for a user that does not exist (or has no password) verifies against a fixed dummy hash of the same
// cost, so an unknown userName takes as long as a wrong password and the answer time does not tell them apart.
import { hash, verify } from '@node-rs/argon2';

// algorithm 2 is Argon2id (a const enum of the binding, which erasable TypeScript cannot read).
const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/** The service's default password rules (api/passwords/policy.ts), in Unicode code points. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

/** The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`) of a password. */
export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS);

let dummy: Promise<string> | undefined;
/** A hash of a random password at the same cost, made once per process. */
const dummyHash = () => (dummy ??= hash(crypto.randomUUID(), OPTIONS));

/**
 * Whether `password` matches `stored`. With no stored hash (unknown user, no password set) it still runs one
 * verification, against the dummy hash, and answers false. A malformed stored hash answers false too.
 */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    await verify(await dummyHash(), password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}

// Part 2b of bench:sign-in: passkey sign-ins through `createPasskeyCeremonies(...)` against the database (options for a
// user → the software authenticator's assertion → verifyAuthentication) beside the ES256 verification alone
// (node:crypto, over authenticatorData ‖ SHA-256(clientDataJSON), as the ceremony verifies it).
// The authenticator signs in this process (the browser's work): its time is measured apart and reported.
import { createHash, verify } from 'node:crypto';
import { createPasskeyCeremonies, type PasskeyEnvironment } from '../../api/passkeys/index.ts';
import { SoftAuthenticator } from '../../test/helpers/soft-authenticator.ts';
import type { startBenchApp } from '../app.ts';
import { concurrently, insertUsers, loopFor } from './concurrently.ts';

type Service = Awaited<ReturnType<typeof startBenchApp>>;
/** The relying party: a host name (browsers refuse an IP address as RP id); nothing is fetched from it. */
const RP_BASE_URL = 'https://id.bench.example';

export async function preparePasskeys(service: Service, env: PasskeyEnvironment, users: number) {
  const ceremonies = createPasskeyCeremonies(service.pool, RP_BASE_URL);
  const userIds = await insertUsers(service.pool, env.environmentId, 'passkey', users);
  const authenticators = userIds.map(() => new SoftAuthenticator({ origin: RP_BASE_URL }));
  for (const [i, userId] of userIds.entries()) {
    const { challengeId, options } = await ceremonies.registrationOptions(env, userId);
    const registered = await ceremonies.verifyRegistration(env, userId, challengeId, authenticators[i]!.create(options));
    if (!registered.ok) throw new Error(`passkey registration refused: ${registered.reason}`);
  }
  const first = await ceremonies.authenticationOptions(env, userIds[0]!);
  const assertion = authenticators[0]!.get(first.options);
  const publicKey = authenticators[0]!.credentials[0]!.publicKey;
  const authData = Buffer.from(assertion.response.authenticatorData, 'base64url');
  const clientData = Buffer.from(assertion.response.clientDataJSON, 'base64url');
  const signature = Buffer.from(assertion.response.signature, 'base64url');
  return {
    /** Whole sign-ins, `inFlight` at a time; `signMs`: the authenticator's share (synchronous, so exact). */
    service: async (inFlight: number, seconds: number) => {
      let signMs = 0;
      const run = await concurrently(inFlight, seconds, async (i) => {
        const user = i % users;
        const { challengeId, options } = await ceremonies.authenticationOptions(env, userIds[user]!);
        const signing = performance.now();
        const response = authenticators[user]!.get(options);
        signMs += performance.now() - signing;
        const result = await ceremonies.verifyAuthentication(env, challengeId, response);
        if (!result.ok) throw new Error(`verifyAuthentication refused: ${result.reason}`);
      });
      return { ...run, signMsEach: Math.round((signMs / Math.max(1, run.done + run.failures)) * 1000) / 1000 };
    },
    /** The ES256 signature check alone, on one real assertion. */
    raw: (seconds: number) =>
      loopFor(seconds, () => {
        const signed = Buffer.concat([authData, createHash('sha256').update(clientData).digest()]);
        if (!verify('sha256', signed, publicKey, signature)) throw new Error('ES256 verify failed');
      }),
  };
}

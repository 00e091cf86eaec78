// Part 2a of bench:sign-in: `createMfaService(...).verifyTotp` against the database (read the factor, open its sealed
// secret, check the code, move the replay guard) beside otpauth's TOTP.validate alone on the same codes.
// Replay protection accepts a user's code once per 30 s step, so the bench has many users and a virtual clock: round r
// checks every user's code at T0 + r·30 s through a service whose clock stands there (each round a later step).
import { sql } from 'slonik';
import { Secret, TOTP } from 'otpauth';
import { createMfaService, type MfaEnv } from '../../api/mfa/index.ts';
import { encrypt } from '../../lib/crypto.ts';
import { newTotpSecret, totpCode, TOTP_DIGITS, TOTP_PERIOD_SECONDS, TOTP_WINDOW } from '../../lib/mfa/totp.ts';
import type { startBenchApp } from '../app.ts';
import { concurrently, insertUsers, loopFor } from './concurrently.ts';

type Service = Awaited<ReturnType<typeof startBenchApp>>;

export async function prepareTotp(service: Service, env: MfaEnv, users: number, rounds: number) {
  const userIds = await insertUsers(service.pool, env.environmentId, 'totp', users);
  const secrets = userIds.map(() => newTotpSecret());
  await service.pool.query(sql.unsafe`
    INSERT INTO user_totp_factors (user_id, environment_id, secret_encrypted, confirmed_at)
    SELECT u, ${env.environmentId}, s, now()
    FROM unnest(${sql.array(userIds, 'uuid')}::uuid[], ${sql.array(
      secrets.map((s) => encrypt(service.masterKey, s)),
      'text',
    )}::text[]) AS t(u, s)`);
  const t0 = Date.now();
  const at = (round: number) => t0 + round * TOTP_PERIOD_SECONDS * 1000;
  // Made before any timing: the authenticator app's work is not the service's.
  const codes = Array.from({ length: rounds }, (_, r) => secrets.map((s) => totpCode(s, at(r))));
  const services = Array.from({ length: rounds }, (_, r) => createMfaService(service.pool, service.masterKey, () => at(r)));
  const parsed = secrets.map((s) => Secret.fromBase32(s));
  let cursor = 0;
  return {
    /** verifyTotp, `inFlight` at a time, each user's next code; stops early when every round's codes are used. */
    service: (inFlight: number, seconds: number) =>
      concurrently(inFlight, seconds, async () => {
        const i = cursor++;
        const round = Math.floor(i / users);
        if (round >= rounds) return false;
        const result = await services[round]!.verifyTotp(env, userIds[i % users]!, codes[round]![i % users]!);
        if (!result.ok) throw new Error(`verifyTotp refused: ${result.reason}`);
      }),
    /** otpauth's TOTP.validate alone (secrets parsed beforehand), the same codes and window. */
    raw: (seconds: number) =>
      loopFor(seconds, (i) => {
        const round = Math.floor(i / users) % rounds;
        const delta = TOTP.validate({
          token: codes[round]![i % users]!,
          secret: parsed[i % users]!,
          algorithm: 'SHA1',
          digits: TOTP_DIGITS,
          period: TOTP_PERIOD_SECONDS,
          timestamp: at(round),
          window: TOTP_WINDOW,
        });
        if (delta !== 0) throw new Error('TOTP.validate refused a good code');
      }),
  };
}

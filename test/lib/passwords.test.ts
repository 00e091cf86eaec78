import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';

describe('passwords', () => {
  it('hashes with argon2id at the service cost and verifies only the right password', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(stored, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(stored, 'correct horse batterY')).toBe(false);
  });

  it('answers false for no stored hash or a malformed one, after a verification of the same cost', async () => {
    expect(await verifyPassword(null, 'whatever-password')).toBe(false);
    expect(await verifyPassword('not a hash', 'whatever-password')).toBe(false);
  });

  it('costs an unknown user (no stored hash) about what a wrong password costs: one argon2id verification', async () => {
    const stored = await hashPassword('correct horse battery');
    await verifyPassword(null, 'warm up the dummy hash');
    // The fastest of seven interleaved runs of each: the least disturbed by other work on the machine. Without the
    // dummy verification an unknown user costs microseconds (a ratio near 0.001), far below the bound.
    const best = { wrong: Infinity, unknown: Infinity };
    for (let i = 0; i < 7; i++) {
      for (const [kind, hash] of [
        ['wrong', stored],
        ['unknown', null],
      ] as const) {
        const started = performance.now();
        await verifyPassword(hash, 'wrong password');
        best[kind] = Math.min(best[kind], performance.now() - started);
      }
    }
    expect(best.unknown / best.wrong).toBeGreaterThan(0.25);
    expect(best.unknown / best.wrong).toBeLessThan(4);
  });
});

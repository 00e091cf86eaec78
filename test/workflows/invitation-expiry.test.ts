// The invitation expiry logic over a fake ProcessContext whose clock runs ahead of the database's: at the due
// moment the database says "not due yet" and the process waits a floor before asking again, instead of asking
// again and again without a timer.
import { describe, expect, it } from 'vitest';
import { invitationExpiry, RECHECK_FLOOR_MS, type InvitationExpiryTopics } from '../../workflows/invitation-expiry.ts';
import type { ProcessContext } from '../../workflows/port.ts';

describe('invitation expiry logic', () => {
  it('waits a floor between checks while the database clock lags the workflow clock', async () => {
    const expiresAt = 1_000_000;
    const lagMs = 2500; // Postgres now() is this far behind the workflow's clock
    let clock = expiresAt; // the workflow's clock: due now
    const checks: number[] = [];
    const waits: number[] = [];
    const ctx: ProcessContext<InvitationExpiryTopics> = {
      now: () => Promise.resolve(clock),
      patched: () => Promise.resolve(true),
      sleep: (ms) => {
        clock += ms;
        return Promise.resolve();
      },
      receive: (_topic, timeoutMs) => {
        waits.push(timeoutMs);
        clock += timeoutMs;
        return Promise.resolve(undefined);
      },
      run: ((name: string) => {
        expect(name).toBe('expireInvitation');
        checks.push(clock);
        if (checks.length > 20) throw new Error('checks the database again and again without a timer');
        clock += 5; // the activity's own time
        const dbNow = clock - lagMs;
        return Promise.resolve(dbNow >= expiresAt ? { outcome: 'expired' } : { outcome: 'pending', expiresAt });
      }) as ProcessContext['run'],
    };
    expect(await invitationExpiry(ctx, { invitationId: 'i', expiresAt })).toBe('expired');
    // At least the floor between two checks, until the database's clock reaches the due time.
    expect(checks.length).toBe(4);
    for (let i = 1; i < checks.length; i++) expect(checks[i]! - checks[i - 1]!).toBeGreaterThanOrEqual(RECHECK_FLOOR_MS);
    expect(waits.every((w) => w > 0)).toBe(true);
  });
});

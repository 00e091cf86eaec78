// Sign-in outcomes on the hosted pages: succeeded, failed (by the reason `user.sign_in_failed` records), refused by a
// protection (by the protection's verdict: deny or challenge).
import { Counter, type Registry } from 'prom-client';

export interface SignInMetrics {
  succeeded(): void;
  failed(reason: string): void;
  refused(verdict: string): void;
}

export function createSignInMetrics(registry: Registry): SignInMetrics {
  const outcomes = new Counter({
    name: 'iam_sign_ins_total',
    help: 'Sign-in attempts on the hosted pages by outcome (succeeded, failed, refused) and reason (failure reason or protection verdict)',
    labelNames: ['outcome', 'reason'],
    registers: [registry],
  });
  return {
    succeeded: () => outcomes.inc({ outcome: 'succeeded', reason: '' }),
    failed: (reason) => outcomes.inc({ outcome: 'failed', reason }),
    refused: (verdict) => outcomes.inc({ outcome: 'refused', reason: verdict }),
  };
}

// What every sign-in protection records when it acts: an audit entry naming the policy and the event of its outcome
// (`protection.blocked`, `protection.challenged`, `protection.stepped_up`, `protection.warned`), and, for a denial,
// the threat of its category (`sign_in.<policy>`) opened or added to with the attempt's IP, user agent and user.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { recordChange, type RequestOrigin } from '../../db/shared/changes.ts';
import { recordDetection } from '../../db/threats/threats/record-detection.ts';
import type { Severity, ThreatCategory } from '../../db/threats/threats/rows.ts';
import type { ProtectionOutcome, ProtectionPolicy, SignInFlow } from '../../db/protections/events.ts';

export type { ProtectionOutcome, ProtectionPolicy, SignInFlow };

export interface ProtectionDecision {
  environmentId: string;
  tenantId: string;
  policy: ProtectionPolicy;
  flow: SignInFlow;
  outcome: ProtectionOutcome;
  /** A stable code for why (`locked_out`, `disposable_domain`, `unrecognized_device`, …). */
  reason: string;
  userId: string | null;
  /** The identifier typed (an email or user name), cut to 256 characters. */
  login: string | null;
  origin: RequestOrigin;
  /** Opens or adds to a threat of the policy's category (denials at `block`, a denied step-up). */
  threat?: { severity: Severity; summary: string } | undefined;
  /** More for the event and the threat's evidence (counts, distances, country codes; never a secret). */
  details?: Record<string, unknown> | undefined;
}

const ACTIONS: Record<ProtectionOutcome, string> = {
  blocked: 'protection.block',
  challenged: 'protection.challenge',
  stepped_up: 'protection.step_up',
  warned: 'protection.warn',
};

/** Records the decision in the caller's transaction; returns the threat's id when one was opened or added to. */
export async function recordDecisionIn(trx: CommonQueryMethods, d: ProtectionDecision): Promise<string | null> {
  const scope = { tenantId: d.tenantId, environmentId: d.environmentId };
  const ip = d.origin.ip ?? null;
  const userAgent = d.origin.userAgent ?? null;
  const login = d.login === null ? null : d.login.slice(0, 256);
  let threatId: string | null = null;
  if (d.threat) {
    const now = new Date().toISOString();
    const subject = d.userId ? `user:${d.userId}` : `ip:${ip ?? 'unknown'}`;
    const threat = await recordDetection(
      trx,
      scope,
      {
        category: `sign_in.${d.policy}` as ThreatCategory,
        severity: d.threat.severity,
        subject,
        dedupeKey: `sign_in.${d.policy}:${subject}`,
        summary: d.threat.summary,
        evidence: { flow: d.flow, reason: d.reason, ip, userAgent, userId: d.userId, login, ...d.details },
        eventIds: [],
        occurrences: 1,
        firstSeenAt: now,
        lastSeenAt: now,
      },
      d.origin,
    );
    threatId = threat.id;
  }
  await recordChange(trx, {
    actor: { type: 'user', id: d.userId },
    origin: d.origin,
    action: ACTIONS[d.outcome],
    resource: d.userId ? { type: 'user', id: d.userId } : { type: 'environment', id: d.environmentId },
    scope,
    after: { policy: d.policy, flow: d.flow, reason: d.reason },
    event: {
      type: `protection.${d.outcome}`,
      data: { policy: d.policy, flow: d.flow, reason: d.reason, userId: d.userId, login, ip, userAgent, threatId, ...d.details },
    },
  });
  return threatId;
}

/** Records the decision in its own transaction. */
export const recordDecision = (pool: DatabasePool, d: ProtectionDecision) => pool.transaction((trx) => recordDecisionIn(trx, d));

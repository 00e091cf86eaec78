// The signatures of every activity a process may run. Implementations live in activities/ (side effects);
// processes see only these types.
import type { BackChannelLogoutTarget, BillingSyncInput, OidcCleanupInput, RetentionInput, VanityDomainInput } from '../lib/processes/contracts.ts';

/** What one attempt got (absent when no attempt was sent): the status code of the answer, or the error when there was none. */
export interface AttemptGot {
  statusCode?: number | null;
  error?: string | null;
}

export type AttemptResult = ({ done: true; status: 'succeeded' | 'failed' } | { done: false; nextDelayMs: number }) & AttemptGot;

export interface Activities {
  /**
   * Sends one attempt of a delivery (or answers from the record if this attempt already ran), records it,
   * and settles the delivery when it succeeded, cannot succeed (endpoint gone, disabled or deleted) or was
   * the last one. `nextDelayMs` is the schedule's next delay; a Retry-After may lengthen it.
   */
  attemptDelivery(input: { deliveryId: string; attempt: number; nextDelayMs: number | null }): Promise<AttemptResult>;

  /** The first attempt of every pending delivery of a batch, concurrently; returns those to retry, with their delay. */
  attemptBatch(input: { batchId: string; nextDelayMs: number | null }): Promise<{ deliveryId: string; tenantId: string; nextDelayMs: number }[]>;

  /** Starts (through the outbox) a `webhook-delivery` process per delivery to retry, from its second attempt. */
  continueDeliveries(input: { retries: { deliveryId: string; tenantId: string; nextDelayMs: number }[]; scheduleMs: number[] }): Promise<void>;

  /**
   * Checks a tenant domain's TXT record once and marks it verified (emitting tenant.domain.verified) when it holds
   * the token. `done` when the domain is verified (now or before) or was deleted.
   */
  checkDomain(input: { domainId: string }): Promise<{ done: boolean; verified: boolean }>;

  /** Emits tenant.domain.verification_failed (once) for a domain still unverified after `waitedMs`. */
  failDomainVerification(input: { domainId: string; waitedMs: number }): Promise<void>;

  /**
   * Expires an organization invitation if it is still pending and due (recording organization.invitation.expired);
   * `settled` when it is no longer pending, `pending` with its current expiry (ms) when it is not due yet.
   */
  expireInvitation(input: { invitationId: string }): Promise<{ outcome: 'expired' | 'settled' } | { outcome: 'pending'; expiresAt: number }>;

  /**
   * Marks an impersonation grant expired if it is still in force and due (recording impersonation.grant.expired);
   * `settled` when it is revoked, already expired or gone, `pending` with its current expiry (ms) when not due yet.
   */
  expireImpersonationGrant(input: { grantId: string }): Promise<{ outcome: 'expired' | 'settled' } | { outcome: 'pending'; expiresAt: number }>;

  /**
   * Deprovisions the environment's users waiting for it and applies its due lifecycle changes, each in its own
   * transaction after re-reading its row; `more` when it stopped at its batch limit with work left, `nextDueAt` (ms)
   * the next pending lifecycle change.
   */
  syncDirectory(input: { environmentId: string }): Promise<{ deprovisioned: number; applied: number; more: boolean; nextDueAt: number | null }>;

  /**
   * Retires a trust-store key if it is still retiring and its retiresAt has passed (recording mcp.trust_store.key.retired);
   * `settled` when it is no longer retiring (revoked, deleted), `pending` with its current retiresAt (ms) when not due yet.
   */
  retireTrustStoreKey(input: { keyId: string }): Promise<{ outcome: 'retired' | 'settled' } | { outcome: 'pending'; retiresAt: number }>;

  /**
   * Records elevate.request.reminded (or .escalated) for an access request still pending; `settled` when it no longer
   * is (the process ends).
   */
  nudgeElevateRequest(input: { requestId: string; kind: 'reminded' | 'escalated' }): Promise<{ outcome: 'sent' | 'settled' }>;

  /** Expires an access request if it is still pending and due (elevate.request.expired); else like expireInvitation. */
  expireElevateRequest(input: { requestId: string }): Promise<{ outcome: 'expired' | 'settled' } | { outcome: 'pending'; expiresAt: number }>;

  /**
   * Expires a grant whose activation window (approved) or duration (active) is over (elevate.grant.expired);
   * `settled` when it is no longer open, `waiting` with its current end (ms) when not due yet.
   */
  expireElevateGrant(input: { grantId: string }): Promise<{ outcome: 'expired' | 'settled' } | { outcome: 'waiting'; until: number }>;

  /**
   * The OIDC clean-up, across environments, in batches of `batchSize` rows per table (each its own transaction) for at
   * most `budgetMs`: deletes expired provider records, password links and sign-in email codes expired a day ago,
   * superseded sign-up codes, directory sessions ended 30 days ago and keys retired past their grace period, and retires due retiring keys (oidc_signing_key.retired).
   * `more` when the last batch of a table was full.
   */
  cleanUpOidc(input: { batchSize?: number; budgetMs?: number }): Promise<OidcCleanupCounts & { more: boolean }>;

  /** Starts (through the outbox, due after the configured interval) the next run of the OIDC clean-up process. */
  continueOidcCleanup(input: OidcCleanupInput): Promise<void>;

  /**
   * Retention: creates the monthly partitions of each partitioned kind through `monthsAhead` months ahead, and detaches
   * then drops those whose month ended more than its retention ago (their names in `dropped`); on the embedded engine,
   * deletes the records of processes finished longer than `processHistoryMs` ago (how many in `pruned`).
   */
  applyRetention(
    input: Pick<RetentionInput, 'monthsAhead' | 'retentionMs' | 'processHistoryMs'>,
  ): Promise<{ created: number; dropped: string[]; pruned?: number }>;

  /** Starts (through the outbox, due after the configured interval) the next run of the retention process. */
  continueRetention(input: RetentionInput): Promise<void>;

  /**
   * One attempt to send a queued message through `provider`: `sent` (recorded, message.sent), `retry` (a transient
   * failure and not the provider's last attempt), `next` (refused, or the last attempt failed, and `next` is tried:
   * message.failed_over), `failed` (no provider left: message.failed), or `settled` (no longer queued).
   */
  attemptMessage(input: MessageAttempt): Promise<MessageAttemptResult>;

  /**
   * One attempt to log a client out of a revoked session: signs a logout token with the environment's current key
   * (the client's ID token alg) and POSTs it to the client's back-channel logout URI. `sent` (2xx), `retry` (no
   * answer, a timeout, 408, 429 or a 5xx, and not the last attempt), `failed` (a refusal, or the last attempt failed:
   * session.back_channel_logout_failed is recorded), or `settled` (the client is gone, inactive or has no logout URI).
   */
  attemptBackChannelLogout(input: BackChannelLogoutAttempt): Promise<BackChannelLogoutResult>;

  /**
   * One round of a vanity domain, by its status: removing → revoke the certificate and delete (`done`); pending_dns →
   * check the records (issuing when found, failed past the give-up time); issuing or renewing → obtain a certificate
   * over ACME (active, or failed with the CA's reason); active → renewing once due. `waitMs`: until the next round.
   */
  advanceVanityDomain(input: VanityDomainInput): Promise<{ done: boolean; status: string; waitMs: number }>;

  /**
   * One Stripe reconcile of an environment's billing: pushes products and prices Stripe lacks, pulls its subscriptions
   * (updating subscriptions and entitlements, evented), and records the outcome; a Stripe failure is the `error` of
   * the result, not a retry. `configured: false` when the environment has no active `stripe` add-on.
   */
  syncBilling(input: { environmentId: string }): Promise<BillingSyncResult>;

  /** Starts (through the outbox, due after the interval) the next run of an environment's billing sync. */
  continueBillingSync(input: BillingSyncInput): Promise<void>;
}

export type BillingSyncResult =
  { configured: false } | { configured: true; productsPushed: number; pricesPushed: number; subscriptionsPulled: number; error: string | null };

export interface BackChannelLogoutAttempt extends BackChannelLogoutTarget {
  attempt: number;
  /** Attempts in all (the schedule's length): the last one records the failure. */
  attempts: number;
}

export interface BackChannelLogoutResult {
  outcome: 'sent' | 'retry' | 'failed' | 'settled';
  statusCode?: number | null;
  error?: string | null;
}

export interface MessageAttempt {
  messageId: string;
  provider: string;
  attempt: number;
  lastAttempt: boolean;
  next: string | null;
}

export interface MessageAttemptResult {
  outcome: 'sent' | 'retry' | 'next' | 'failed' | 'settled';
  error?: string | null;
}

/** What one batch of the OIDC clean-up removed or retired. */
export interface OidcCleanupCounts {
  payloads: number;
  passwordLinks: number;
  sessions: number;
  /** Absent from the results of histories recorded before sign-in codes were cleaned up (migration 0036). */
  emailCodes?: number;
  signUpCodes?: number;
  /** Brute-force counters past their window and lockout (migration 0047); absent from older histories. */
  signInFailures?: number;
  keysRetired: number;
  keysDeleted: number;
  /** Ended rate-limit windows deleted (migration 0048); absent from results recorded before. */
  rateCounters?: number;
}

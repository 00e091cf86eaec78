// The contracts of the durable processes: each kind, the input it starts with and the messages it receives, by
// topic. Pure types and constants, so that every layer may import them: storage types the process outbox with them
// (db/processes/outbox.ts), the API enqueues starts and messages, and the logic of each kind (workflows/) takes them.
// A new kind adds its line to ProcessContracts (and its definition to the registry, workflows/index.ts).

/** A process that receives no messages. */
export type NoTopics = Record<never, never>;

export interface DeliveryInput {
  deliveryId: string;
  /** Delays before each attempt, in ms: the first is usually 0. */
  scheduleMs: number[];
  /** The attempt to start from (1 unless a batch made the first), and the delay before it. */
  firstAttempt?: number;
  firstDelayMs?: number;
}

export interface DeliveryBatchInput {
  batchId: string;
  scheduleMs: number[];
}

export interface DomainVerificationInput {
  domainId: string;
  /** Delays between checks, in ms; the last one repeats. */
  intervalsMs: number[];
  /** Give up this long after the process started. */
  giveUpAfterMs: number;
}

export interface InvitationExpiryInput {
  invitationId: string;
  /** When the invitation expires, in ms since the epoch. */
  expiresAt: number;
}

/** A message on topic `invitation`: a new expiry (resend), or the end of the invitation (revoked, accepted). */
export interface InvitationMessage {
  expiresAt?: number;
  revoked?: boolean;
  accepted?: boolean;
}

export interface ImpersonationExpiryInput {
  grantId: string;
  /** When the grant expires, in ms since the epoch. */
  expiresAt: number;
}

/** A message on topic `impersonation`: the grant was revoked. */
export interface ImpersonationMessage {
  revoked?: boolean;
}

export interface DirectorySyncInput {
  environmentId: string;
  /** How long to wait for more work before ending (default IDLE_MS in workflows/directory-sync.ts; shorter in recorded histories). */
  idleMs?: number;
}

/** A message on topic `directory`: a user to deprovision (trigger on `users`), or a new lifecycle schedule. */
export type DirectorySyncMessage = { type: 'deprovision'; userId: string } | { type: 'schedule'; dueAt: number };

export interface TrustStoreKeyRetirementInput {
  keyId: string;
  /** When the key stops verifying, in ms since the epoch. */
  retiresAt: number;
}

export interface ElevateRequestInput {
  requestId: string;
  /** When the request was made and when it expires, in ms since the epoch. */
  createdAt: number;
  expiresAt: number;
  escalate: boolean;
}

/** A message on topic `elevate-request`: the request was decided or cancelled. */
export interface ElevateRequestMessage {
  settled: true;
}

export interface ElevateGrantInput {
  grantId: string;
  /** The end of the current phase (ms): the activation deadline of an approved grant, the expiry of an active one. */
  until: number;
}

/** A message on topic `elevate-grant`: a new end (activation, extension), or the revocation. */
export interface ElevateGrantMessage {
  until?: number;
  revoked?: boolean;
}

export interface OidcCleanupInput {
  /** The pause between two rounds of clean-up (OIDC_CLEANUP_INTERVAL_SECONDS), in ms. */
  intervalMs: number;
  /** Rounds per run before the run ends and its next run is started (default ROUNDS_PER_RUN in workflows/oidc-cleanup.ts). */
  rounds?: number;
}

export interface MessageSendInput {
  messageId: string;
  /** The providers (kinds) to try in order: the first, then the failover. */
  providers: string[];
  /** Delays before each attempt at one provider, in ms (the first is usually 0). */
  scheduleMs: number[];
}

/** One client to log out, over the back channel, of one revoked directory session (OpenID Connect Back-Channel Logout 1.0). */
export interface BackChannelLogoutTarget {
  tenantId: string;
  environmentId: string;
  /** The revoked session (directory_sessions.id). */
  sessionId: string;
  clientId: string;
  /** The logout token's `sub` (the user's id) and `sid` (the session's id at that client; null when the provider kept none). */
  sub: string;
  sid: string | null;
  /** The environment's issuer: the logout token's `iss`. */
  issuer: string;
}

export interface BackChannelLogoutInput extends BackChannelLogoutTarget {
  /** Delays before each attempt, in ms (BACK_CHANNEL_LOGOUT_SCHEDULE; the first is usually 0). */
  scheduleMs: number[];
}

export interface VanityDomainInput extends VanityTimings {
  domainId: string;
}

export interface VanityTimings {
  /** The pause between two DNS checks while the records are missing (VANITY_DNS_INTERVAL). */
  dnsIntervalMs: number;
  /** How long DNS checking lasts before the domain fails (VANITY_DNS_GIVE_UP), from its registration or re-check. */
  dnsGiveUpMs: number;
  /** Renew this long before the certificate expires (VANITY_RENEW_BEFORE). */
  renewBeforeMs: number;
}

/** A message on topic `vanity-domain`: look at the row now (a re-check was asked for, or its removal). */
export interface VanityDomainMessage {
  wake: true;
}

export interface BillingSyncInput {
  environmentId: string;
  /** The pause between two syncs (BILLING_SYNC_INTERVAL), in ms; a `billing-sync` message ends a pause early. */
  intervalMs: number;
  /** Syncs per run before the run ends and its next run is started (default ROUNDS_PER_RUN in workflows/billing-sync.ts). */
  rounds?: number;
}

/** A message on topic `billing-sync`: sync now (POST …/billing/sync). */
export interface BillingSyncMessage {
  requestedAt: number;
}

/**
 * Every process kind, with its input and its topics (each topic's message type). A process's id is
 * `<kind>:<entityId>` (processId in db/processes/outbox.ts, through which every process is started and signalled).
 */
export interface RetentionInput {
  /** The pause between two rounds (RETENTION_INTERVAL), in ms. */
  intervalMs: number;
  /** Rounds per run before the run ends and its next run is started (default ROUNDS_PER_RUN in workflows/retention.ts). */
  rounds?: number;
  /** Monthly partitions kept created ahead of the current month. */
  monthsAhead: number;
  /**
   * How long rows of each partitioned kind are kept (EVENTS_RETENTION, AUDIT_LOG_RETENTION, AUTHZEN_DECISION_LOG_RETENTION,
   * DELIVERIES_RETENTION), in ms. A run started before deliveries were partitioned has no `deliveries`: it drops none.
   */
  retentionMs: { events: number; auditLogs: number; decisions: number; deliveries?: number };
  /**
   * How long the embedded engine keeps a finished process's record (PROCESS_HISTORY_RETENTION), in ms; absent in runs
   * started before it was kept by retention. The Temporal namespace's retention period does this there.
   */
  processHistoryMs?: number;
}

export interface ProcessContracts {
  'webhook-delivery': { input: DeliveryInput; topics: NoTopics };
  'delivery-batch': { input: DeliveryBatchInput; topics: NoTopics };
  'domain-verification': { input: DomainVerificationInput; topics: NoTopics };
  'invitation-expiry': { input: InvitationExpiryInput; topics: { invitation: InvitationMessage } };
  'impersonation-expiry': { input: ImpersonationExpiryInput; topics: { impersonation: ImpersonationMessage } };
  'directory-sync': { input: DirectorySyncInput; topics: { directory: DirectorySyncMessage } };
  'trust-store-key-retirement': { input: TrustStoreKeyRetirementInput; topics: NoTopics };
  'elevate-request': { input: ElevateRequestInput; topics: { 'elevate-request': ElevateRequestMessage } };
  'elevate-grant': { input: ElevateGrantInput; topics: { 'elevate-grant': ElevateGrantMessage } };
  'oidc-cleanup': { input: OidcCleanupInput; topics: NoTopics };
  'message-send': { input: MessageSendInput; topics: NoTopics };
  'back-channel-logout': { input: BackChannelLogoutInput; topics: NoTopics };
  'vanity-domain': { input: VanityDomainInput; topics: { 'vanity-domain': VanityDomainMessage } };
  'billing-sync': { input: BillingSyncInput; topics: { 'billing-sync': BillingSyncMessage } };
  retention: { input: RetentionInput; topics: NoTopics };
}

export type ProcessKind = keyof ProcessContracts;
export type ProcessInput<K extends ProcessKind> = ProcessContracts[K]['input'];
/** The topics a process of kind `K` receives on, with the message type of each: the `Topics` of the context its logic takes. */
export type ProcessTopics<K extends ProcessKind> = ProcessContracts[K]['topics'];
/** The topics of kind `K` (over a union of kinds, the topics of each). */
export type TopicOf<K extends ProcessKind> = K extends ProcessKind ? keyof ProcessTopics<K> & string : never;
/** The message on topic `T` of kind `K`. */
export type MessageOf<K extends ProcessKind, T extends TopicOf<K>> = K extends ProcessKind
  ? T extends keyof ProcessTopics<K>
    ? ProcessTopics<K>[T]
    : never
  : never;
/** Every topic of every process (one Temporal signal each, named by the topic: `topicSignals` in workflows/temporal.ts). */
export type Topic = TopicOf<ProcessKind>;

/**
 * Kinds whose process ends when it has nothing left to do: a start of one that completed begins a new run (on both
 * engines), where any other completed process id stays done.
 */
export const RESTARTED_WHEN_COMPLETED: readonly ProcessKind[] = ['directory-sync', 'oidc-cleanup', 'billing-sync', 'retention'];

/** Who and what a process is about (ids only), for the search attributes and the details of its Temporal workflow. */
export interface ProcessScope {
  tenantId: string | null;
  /** The organization the tenant was created in (a tenant may belong to several: the first), or the invitation's. */
  organizationId: string | null;
  /** The environment of processes that work in one (directory sync, grants, trust-store keys). */
  environmentId?: string | null;
  endpointId?: string | null;
  channelId?: string | null;
  domainId?: string;
  invitationId?: string;
}

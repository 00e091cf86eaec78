// The registry of durable process kinds: one line per kind, its definition (workflows/definition.ts) in its own
// module. The engines (worker/embedded-engine.ts, workflows/temporal.ts), the Temporal gateway (summaries, scope),
// the sweeper and the history export all read it. A kind missing here, or a definition missing a piece, does not
// compile (`satisfies`); an activity no kind describes does not either (see `Described` below).
import type { ProcessKind } from '../lib/processes/contracts.ts';
import { backChannelLogoutProcess } from './back-channel-logout.ts';
import { billingSyncProcess } from './billing-sync.ts';
import { deliveryBatchProcess, webhookDeliveryProcess } from './delivery-process.ts';
import type { ProcessDefinition } from './definition.ts';
import { directorySyncProcess } from './directory-sync.ts';
import { domainVerificationProcess } from './domain-verification.ts';
import { elevateGrantProcess, elevateRequestProcess } from './elevate.ts';
import { impersonationExpiryProcess } from './impersonation-expiry.ts';
import { invitationExpiryProcess } from './invitation-expiry.ts';
import { messageSendProcess } from './message-send.ts';
import type { ActivityName } from './port.ts';
import { oidcCleanupProcess } from './oidc-cleanup.ts';
import { retentionProcess } from './retention.ts';
import { trustStoreKeyRetirementProcess } from './trust-store-key-retirement.ts';
import { vanityDomainProcess } from './vanity-domain.ts';

export { RESTARTED_WHEN_COMPLETED } from '../lib/processes/contracts.ts';

export const processes = {
  'webhook-delivery': webhookDeliveryProcess,
  'delivery-batch': deliveryBatchProcess,
  'domain-verification': domainVerificationProcess,
  'invitation-expiry': invitationExpiryProcess,
  'impersonation-expiry': impersonationExpiryProcess,
  'directory-sync': directorySyncProcess,
  'trust-store-key-retirement': trustStoreKeyRetirementProcess,
  'elevate-request': elevateRequestProcess,
  'elevate-grant': elevateGrantProcess,
  'oidc-cleanup': oidcCleanupProcess,
  retention: retentionProcess,
  'message-send': messageSendProcess,
  'vanity-domain': vanityDomainProcess,
  'billing-sync': billingSyncProcess,
  'back-channel-logout': backChannelLogoutProcess,
} satisfies { [K in ProcessKind]: ProcessDefinition<K> };

/** The definition of `kind`, typed by it. */
export const definitionOf = <K extends ProcessKind>(kind: K): ProcessDefinition<K> => processes[kind] as ProcessDefinition<K>;

/** The activities the definitions describe: every activity must be one of them (its summary in Temporal UI). */
type Described = { [K in ProcessKind]: keyof (typeof processes)[K]['activities'] }[ProcessKind];
/** Compiles only while every activity of workflows/activities.ts is described by the kind that runs it. */
export const EVERY_ACTIVITY_DESCRIBED: [Exclude<ActivityName, Described>] extends [never] ? true : { undescribed: Exclude<ActivityName, Described> } = true;

// Every durable process, by kind. A process's id is `<kind>:<entityId>` (processId in db/processes/outbox.ts, through
// which every process is started and signalled).
import { delivery, deliveryBatch } from './delivery.ts';
import { directorySync } from './directory-sync.ts';
import { domainVerification } from './domain-verification.ts';
import { invitationExpiry } from './invitation-expiry.ts';
import { impersonationExpiry } from './impersonation-expiry.ts';
import { trustStoreKeyRetirement } from './trust-store-key-retirement.ts';
import { elevateGrant, elevateRequest } from './elevate.ts';

export const processes = {
  'webhook-delivery': delivery,
  'delivery-batch': deliveryBatch,
  'domain-verification': domainVerification,
  'invitation-expiry': invitationExpiry,
  'impersonation-expiry': impersonationExpiry,
  'directory-sync': directorySync,
  'trust-store-key-retirement': trustStoreKeyRetirement,
  'elevate-request': elevateRequest,
  'elevate-grant': elevateGrant,
};

/**
 * Kinds whose process ends when it has nothing left to do: a start of one that completed begins a new run (on both
 * engines), where any other completed process id stays done.
 */
export const RESTARTED_WHEN_COMPLETED: readonly string[] = ['directory-sync'];

// Every durable process, by kind. A process's id is `<kind>:<entityId>` (processId in db/processes/outbox.ts, through
// which every process is started and signalled).
import { delivery, deliveryBatch } from './delivery.ts';
import { domainVerification } from './domain-verification.ts';
import { invitationExpiry } from './invitation-expiry.ts';
import { elevateGrant, elevateRequest } from './elevate.ts';

export const processes = {
  'webhook-delivery': delivery,
  'delivery-batch': deliveryBatch,
  'domain-verification': domainVerification,
  'invitation-expiry': invitationExpiry,
  'elevate-request': elevateRequest,
  'elevate-grant': elevateGrant,
};

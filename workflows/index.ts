// Every durable process, by kind. The kind is the process id prefix: `<kind>:<entityId>`.
import { delivery, deliveryBatch } from './delivery.ts';
import { domainVerification } from './domain-verification.ts';
import { invitationExpiry } from './invitation-expiry.ts';

export const processes = {
  'webhook-delivery': delivery,
  'delivery-batch': deliveryBatch,
  'domain-verification': domainVerification,
  'invitation-expiry': invitationExpiry,
};

export const processId = (kind: keyof typeof processes, entityId: string) => `${kind}:${entityId}`;

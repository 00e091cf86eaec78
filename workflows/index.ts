// Every durable process, by kind. The kind is the process id prefix: `<kind>:<entityId>`.
import { delivery } from './delivery.ts';

export const processes = {
  'webhook-delivery': delivery,
};

export const processId = (kind: keyof typeof processes, entityId: string) => `${kind}:${entityId}`;

// Changes made through SCIM are recorded like the directory's own (the same audit actions and events), with the
// provisioning token as the actor.
import { recordChange } from '../../../../db/shared/changes.ts';
import type { CallerChange } from '../../../access/caller.ts';
import type { ScimContext } from './descriptor.ts';

export const recordScim = (db: Parameters<typeof recordChange>[0], ctx: ScimContext, change: CallerChange) =>
  recordChange(db, {
    ...change,
    actor: { type: 'provisioning_token', id: ctx.tokenId },
    origin: ctx.origin,
    scope: { organizationId: null, tenantId: ctx.tenantId, environmentId: ctx.environmentId },
  } as Parameters<typeof recordChange>[1]);

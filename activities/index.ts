// Every activity, built over its dependencies. Both engines run these same functions.
import type { Activities } from '../workflows/activities.ts';
import { createDeliveryActivities, type DeliveryDeps } from './deliveries.ts';
import { createDirectorySyncActivities, type DirectorySyncDeps } from './directory-sync.ts';
import { createDomainActivities, type DomainDeps } from './domains.ts';
import { createInvitationActivities, type InvitationDeps } from './invitations.ts';
import { createImpersonationActivities, type ImpersonationDeps } from './impersonation.ts';
import { createElevateActivities, type ElevateDeps } from './elevate.ts';
import { createTrustStoreKeyActivities, type TrustStoreKeyDeps } from './trust-store-keys.ts';

export type ActivityDeps = DeliveryDeps & DomainDeps & InvitationDeps & ImpersonationDeps & DirectorySyncDeps & TrustStoreKeyDeps & ElevateDeps;

export function createActivities(deps: ActivityDeps): Activities {
  return {
    ...createDeliveryActivities(deps),
    ...createDomainActivities(deps),
    ...createInvitationActivities(deps),
    ...createImpersonationActivities(deps),
    ...createDirectorySyncActivities(deps),
    ...createTrustStoreKeyActivities(deps),
    ...createElevateActivities(deps),
  };
}

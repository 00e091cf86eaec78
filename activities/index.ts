// Every activity, built over its dependencies. Both engines run these same functions.
import type { Activities } from '../workflows/activities.ts';
import { refusingDatabaseErrors } from '../db/shared/database-errors.ts';
import { createDeliveryActivities, type DeliveryDeps } from './deliveries.ts';
import { createDirectorySyncActivities, type DirectorySyncDeps } from './directory-sync.ts';
import { createDomainActivities, type DomainDeps } from './domains.ts';
import { createInvitationActivities, type InvitationDeps } from './invitations.ts';
import { createImpersonationActivities, type ImpersonationDeps } from './impersonation.ts';
import { createElevateActivities, type ElevateDeps } from './elevate.ts';
import { createTrustStoreKeyActivities, type TrustStoreKeyDeps } from './trust-store-keys.ts';
import { createOidcCleanupActivities, type OidcCleanupDeps } from './oidc-cleanup.ts';
import { createRetentionActivities, type RetentionDeps } from './retention.ts';
import { createMessageActivities, type MessageDeps } from './messages.ts';
import { createVanityDomainActivities, type VanityDomainDeps } from './vanity-domains.ts';
import { createBillingSyncActivities, type BillingSyncDeps } from './billing-sync.ts';
import { createBackChannelLogoutActivities, type BackChannelLogoutDeps } from './back-channel-logout.ts';

export type ActivityDeps = DeliveryDeps &
  DomainDeps &
  InvitationDeps &
  ImpersonationDeps &
  DirectorySyncDeps &
  TrustStoreKeyDeps &
  ElevateDeps &
  OidcCleanupDeps &
  RetentionDeps &
  MessageDeps &
  VanityDomainDeps &
  BillingSyncDeps &
  BackChannelLogoutDeps;

export function createActivities(deps: ActivityDeps): Activities {
  // An integrity violation fails the same way on every attempt: thrown as a non-retryable DatabaseRefusal.
  return refusingDatabaseErrors({
    ...createDeliveryActivities(deps),
    ...createDomainActivities(deps),
    ...createInvitationActivities(deps),
    ...createImpersonationActivities(deps),
    ...createDirectorySyncActivities(deps),
    ...createTrustStoreKeyActivities(deps),
    ...createElevateActivities(deps),
    ...createOidcCleanupActivities(deps),
    ...createRetentionActivities(deps),
    ...createMessageActivities(deps),
    ...createVanityDomainActivities(deps),
    ...createBillingSyncActivities(deps),
    ...createBackChannelLogoutActivities(deps),
  });
}

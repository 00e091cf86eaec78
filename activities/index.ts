// Every activity, built over its dependencies. Both engines run these same functions.
import type { Activities } from '../workflows/activities.ts';
import { createDeliveryActivities, type DeliveryDeps } from './deliveries.ts';
import { createDomainActivities, type DomainDeps } from './domains.ts';
import { createInvitationActivities, type InvitationDeps } from './invitations.ts';
import { createElevateActivities, type ElevateDeps } from './elevate.ts';

export type ActivityDeps = DeliveryDeps & DomainDeps & InvitationDeps & ElevateDeps;

export function createActivities(deps: ActivityDeps): Activities {
  return { ...createDeliveryActivities(deps), ...createDomainActivities(deps), ...createInvitationActivities(deps), ...createElevateActivities(deps) };
}

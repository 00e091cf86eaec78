// Every activity, built over its dependencies. Both engines run these same functions.
import type { Activities } from '../workflows/activities.ts';
import { createDeliveryActivities, type DeliveryDeps } from './deliveries.ts';

export type ActivityDeps = DeliveryDeps;

export function createActivities(deps: ActivityDeps): Activities {
  return { ...createDeliveryActivities(deps) };
}

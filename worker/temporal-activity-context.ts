// The running Temporal activity's heartbeat and cancellation, handed to activities/ (which import nothing of
// Temporal) as their ActivityProgress: an activity interceptor keeps the activity's Context for the call.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { ActivityProgress } from '../activities/deliveries.ts';

const current = new AsyncLocalStorage<ActivityProgress>();

/** The `progress` dependency of createActivities on a Temporal worker. */
export const temporalActivityProgress = (): ActivityProgress | undefined => current.getStore();

/** For Worker.create({ interceptors: { activity: [activityProgressInterceptor] } }). */
export const activityProgressInterceptor: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    execute: (input, next) => current.run({ heartbeat: (details) => ctx.heartbeat(details), signal: ctx.cancellationSignal }, () => next(input)),
  },
});

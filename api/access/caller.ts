import type { Actor, RequestOrigin } from '../../db/shared/changes.ts';
import type { Principal } from './principals.ts';

/** Who is acting and from where: what every mutation needs for its audit entry and reachability checks. */
export interface Caller {
  principal: Principal;
  actor: Actor;
  origin: RequestOrigin;
}

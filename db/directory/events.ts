// Events of an environment's directory (users, groups, memberships), assembled into db/event-catalog.ts.
// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';
import { Group } from './groups/rows.ts';
import { DirectoryUser } from './users/rows.ts';

const user = z.looseObject({ user: DirectoryUser });
const group = z.looseObject({ group: Group });
const membership = z.looseObject({ groupId: uuid, userId: uuid });

export const DIRECTORY_EVENTS = {
  'directory.user.created': { description: 'A user was created in the directory of an environment.', data: user },
  'directory.user.updated': { description: 'A directory user was changed; `user` is its new state.', data: user },
  'directory.user.deactivated': { description: 'A directory user was deactivated: every decision about it denies, its tokens are refused.', data: user },
  'directory.user.activated': { description: 'A deactivated directory user was activated again.', data: user },
  'directory.user.deleted': { description: 'A directory user was deleted with its memberships and role assignments; `user` is its last state.', data: user },
  'directory.group.created': { description: 'A group was created in the directory of an environment.', data: group },
  'directory.group.updated': { description: 'A directory group was changed; `group` is its new state.', data: group },
  'directory.group.deleted': {
    description: 'A directory group was deleted with its memberships and role assignments; `group` is its last state.',
    data: group,
  },
  'directory.group.member_added': { description: 'A user was added to a group.', data: membership },
  'directory.group.member_removed': { description: 'A user was removed from a group.', data: membership },
} as const satisfies Record<string, EventTypeEntry>;

// Events of an environment's OpenID provider settings kept in this folder. Registered in db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';

const Config = z.record(z.string(), z.unknown());

export const OIDC_SETTINGS_EVENTS = {
  'session_config.updated': {
    description: "An environment's session config was replaced or patched: `config` is what is stored now, `previous` what was.",
    data: z.looseObject({ environmentId: uuid, config: Config, previous: Config }),
  },
} as const satisfies Record<string, EventTypeEntry>;

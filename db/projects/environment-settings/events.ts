// Events of an environment's settings kept in this folder. Registered in db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';
import { DECISION_ENGINES, SUBJECT_IDENTIFIERS } from '../../../lib/authz/model.ts';

export const ENVIRONMENT_SETTINGS_EVENTS = {
  'environment.authzen_settings.saved': {
    description: "An environment's AuthZEN settings were saved (the kind of identifier requests name subjects by, the resource types RBAC or FGA decides).",
    data: z.looseObject({
      environmentId: uuid,
      subjectIdentifier: z.enum(SUBJECT_IDENTIFIERS),
      resourceTypeEngines: z.record(z.string(), z.enum(DECISION_ENGINES)),
      previous: z.enum(SUBJECT_IDENTIFIERS),
      previousResourceTypeEngines: z.record(z.string(), z.enum(DECISION_ENGINES)),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;

// Events of projects, their environments and what lives in an environment's sign-in setup (connections,
// redirect URIs). Registered in db/event-catalog.ts. Loose objects, as in the catalog: later fields never break readers.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';

// The bootstrap emits project.created and environment.created with just these fields; services emit the full shapes.
const project = z.looseObject({ project: z.looseObject({ id: uuid, name: z.string(), type: z.string() }) });
const environment = z.looseObject({ environment: z.looseObject({ id: uuid, projectId: uuid, name: z.string() }) });
const previous = z.record(z.string(), z.unknown()).describe('The former values of the changed fields');
const connection = z.looseObject({
  environmentId: uuid,
  connection: z
    .looseObject({ id: uuid, providerId: z.string(), name: z.string(), rank: z.number().int() })
    .describe('The connection, without its settings or secrets'),
});

/**
 * A project or a connection as its events carry it. Name, type, provider and rank are NOT NULL columns that the public
 * shapes leave nullable, so the events state what the columns guarantee (recordChange still checks at run time).
 */
export const projectEventData = <P extends { name: string | null; type: string | null }>(p: P) => ({ ...p, name: p.name!, type: p.type! });
export const connectionEventData = <C extends { providerId: string | null; name: string | null; rank: number | null }>(c: C) => ({
  ...c,
  providerId: c.providerId!,
  name: c.name!,
  rank: c.rank!,
});

export const PROJECT_EVENTS = {
  'project.created': { description: 'A project (application) was created in a tenant, with its first environments.', data: project },
  'project.updated': { description: 'A project was changed; `previous` holds the former values of the changed fields.', data: project.extend({ previous }) },
  'project.deleted': {
    description: 'A project and its environments (with everything in them) were deleted; `project` is its last state.',
    data: project,
  },
  'project.default_environment_set': {
    description: 'Another environment became the default of a project.',
    data: project.extend({ environmentId: uuid, previousEnvironmentId: uuid.nullable() }),
  },
  'environment.created': { description: 'An environment was created in a project.', data: environment },
  'environment.updated': {
    description: 'An environment was changed; `previous` holds the former values of the changed fields.',
    data: environment.extend({ previous }),
  },
  'environment.deleted': { description: 'An environment and everything in it was deleted; `environment` is its last state.', data: environment },
  'environment.connection.saved': {
    description: 'A sign-in connection of an environment was created (`created` true) or changed.',
    data: connection.extend({ created: z.boolean() }),
  },
  'environment.connection.deleted': { description: 'A sign-in connection was removed from an environment.', data: connection },
  'environment.redirect_uris.saved': {
    description: 'The redirect URIs of an environment were saved.',
    data: z.looseObject({ environmentId: uuid, successRedirectUri: z.string(), errorRedirectUri: z.string().nullable() }),
  },
} as const satisfies Record<string, EventTypeEntry>;

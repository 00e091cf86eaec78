// An environment's AuthZEN settings: the kind of identifier requests name subjects by, and the resource types whose
// decision engine is set explicitly. No row = the defaults (`any`, none).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { DECISION_ENGINES, DEFAULT_SUBJECT_IDENTIFIER, SUBJECT_IDENTIFIERS } from '../../../lib/authz/model.ts';

export const AuthzenSettings = z.object({
  subjectIdentifier: z.enum(SUBJECT_IDENTIFIERS),
  resourceTypeEngines: z.record(z.string(), z.enum(DECISION_ENGINES)),
});
export type AuthzenSettings = z.infer<typeof AuthzenSettings>;

export function createAuthzenSettingsQueries(db: CommonQueryMethods) {
  return {
    find: async (environmentId: string): Promise<AuthzenSettings> =>
      (await db.maybeOne(sql.type(AuthzenSettings)`
        SELECT subject_identifier AS "subjectIdentifier", resource_type_engines AS "resourceTypeEngines"
        FROM authzen_settings WHERE environment_id = ${environmentId}`)) ?? {
        subjectIdentifier: DEFAULT_SUBJECT_IDENTIFIER,
        resourceTypeEngines: {},
      },

    /** Saves the settings; the model trigger drops the environment's compiled model everywhere. */
    save: (environmentId: string, settings: AuthzenSettings) =>
      db.query(sql.unsafe`
        INSERT INTO authzen_settings (environment_id, subject_identifier, resource_type_engines)
        VALUES (${environmentId}, ${settings.subjectIdentifier}, ${sql.jsonb(settings.resourceTypeEngines)})
        ON CONFLICT (environment_id) DO UPDATE
        SET subject_identifier = EXCLUDED.subject_identifier, resource_type_engines = EXCLUDED.resource_type_engines, updated_at = now()`),
  };
}

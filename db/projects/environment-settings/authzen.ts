// An environment's AuthZEN settings: the kind of identifier requests name subjects by. No row = the default (`any`).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { DEFAULT_SUBJECT_IDENTIFIER, SUBJECT_IDENTIFIERS, type SubjectIdentifier } from '../../../lib/authz/model.ts';

export const AuthzenSettings = z.object({ subjectIdentifier: z.enum(SUBJECT_IDENTIFIERS) });
export type AuthzenSettings = z.infer<typeof AuthzenSettings>;

export function createAuthzenSettingsQueries(db: CommonQueryMethods) {
  return {
    find: async (environmentId: string): Promise<AuthzenSettings> =>
      (await db.maybeOne(sql.type(AuthzenSettings)`
        SELECT subject_identifier AS "subjectIdentifier" FROM authzen_settings WHERE environment_id = ${environmentId}`)) ?? {
        subjectIdentifier: DEFAULT_SUBJECT_IDENTIFIER,
      },

    /** Saves the settings; the model trigger drops the environment's compiled model everywhere. */
    save: (environmentId: string, subjectIdentifier: SubjectIdentifier) =>
      db.query(sql.unsafe`
        INSERT INTO authzen_settings (environment_id, subject_identifier) VALUES (${environmentId}, ${subjectIdentifier})
        ON CONFLICT (environment_id) DO UPDATE SET subject_identifier = EXCLUDED.subject_identifier, updated_at = now()`),
  };
}

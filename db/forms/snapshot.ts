// What the Provider snapshot (db/oidc/provider/snapshot.ts) holds of forms: the published version of each enabled
// form attached to `pre_signup`, in rank order, so the sign-up page renders them without a query. The triggers of
// 0044 rebuild the snapshot when an attachment changes or a form is published or deleted.
import { sql } from 'slonik';
import { z } from 'zod';
import type { FormDefinition } from '../../lib/forms/definition.ts';

// The definition was checked when it was saved: taken as stored, so a later, stricter check never breaks a snapshot.
export const SignUpForms = z.array(
  z.object({ formId: z.uuid(), key: z.string(), version: z.number().int(), definition: z.custom<FormDefinition>((v) => typeof v === 'object' && v !== null) }),
);

/** The `signUpForms` column of the snapshot's statement (over `environments e`). */
export const signUpFormsColumn = sql.fragment`coalesce((
  SELECT jsonb_agg(jsonb_build_object('formId', f.id, 'key', f.key, 'version', v.version, 'definition', v.definition)
    ORDER BY a.rank, a.created_at, a.id)
  FROM form_attachments a JOIN forms f ON f.environment_id = a.environment_id AND f.id = a.form_id
    JOIN form_versions v ON v.form_id = f.id AND v.version = f.published_version
  WHERE a.environment_id = e.id AND a.hook_type = 'pre_signup' AND a.enabled), '[]') AS "signUpForms"`;

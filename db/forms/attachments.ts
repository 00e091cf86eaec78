// Where an environment's forms are attached in the hosted sign-in (0044). Every statement is bound to the environment.
import { sql, type CommonQueryMethods } from 'slonik';
import { FormAttachment, type HookType } from './rows.ts';

const columns = sql.fragment`id, environment_id AS "environmentId", form_id AS "formId", hook_type AS "hookType", enabled, rank,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

export interface AttachmentFields {
  formId: string;
  hookType: HookType;
  enabled: boolean;
  rank: number;
}

export function createFormAttachmentQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    list: async (filter: { formId?: string | undefined; hookType?: HookType | undefined } = {}) => [
      ...(await db.any(sql.type(FormAttachment)`
        SELECT ${columns} FROM form_attachments WHERE environment_id = ${environmentId}
          ${filter.formId ? sql.fragment`AND form_id = ${filter.formId}` : sql.fragment``}
          ${filter.hookType ? sql.fragment`AND hook_type = ${filter.hookType}` : sql.fragment``}
        ORDER BY hook_type, rank, created_at, id`)),
    ],

    findOf: (formId: string, hookType: HookType) =>
      db.maybeOne(sql.type(FormAttachment)`
        SELECT ${columns} FROM form_attachments WHERE environment_id = ${environmentId} AND form_id = ${formId} AND hook_type = ${hookType}`),

    create: (f: AttachmentFields) =>
      db.one(sql.type(FormAttachment)`
        INSERT INTO form_attachments (environment_id, form_id, hook_type, enabled, rank)
        VALUES (${environmentId}, ${f.formId}, ${f.hookType}, ${f.enabled}, ${f.rank})
        RETURNING ${columns}`),

    update: (id: string, f: Pick<AttachmentFields, 'enabled' | 'rank'>) =>
      db.one(sql.type(FormAttachment)`
        UPDATE form_attachments SET enabled = ${f.enabled}, rank = ${f.rank}, updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id} RETURNING ${columns}`),

    /** The attachment deleted, or null when there was none. */
    remove: (id: string) =>
      db.maybeOne(sql.type(FormAttachment)`DELETE FROM form_attachments WHERE environment_id = ${environmentId} AND id = ${id} RETURNING ${columns}`),
  };
}

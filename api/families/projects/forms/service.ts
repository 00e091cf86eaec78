// An environment's forms: list, read, save (create, edit a draft, publish a numbered version) and delete. Publishing
// freezes the version in form_versions; the hosted pages render an attached form's latest published version, so
// editing a new draft never changes what people see until it is published.
import { isDeepStrictEqual } from 'node:util';
import type { DatabasePool } from 'slonik';
import { createFormQueries, type FormFields } from '../../../../db/forms/queries.ts';
import { createFormAttachmentQueries } from '../../../../db/forms/attachments.ts';
import type { Form } from '../../../../db/forms/rows.ts';
import { ApiError, orNotFound } from '../../../errors.ts';
import { listPage } from '../../../common/schemas.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import type { FormsQuery, SaveFormBody } from './schemas.ts';

type Db = Parameters<typeof createFormQueries>[0];

/**
 * What a save writes over `before`: a new form is version 1; a draft is edited in place (publishing freezes its
 * number); a published form gets the next number, unless it is published again unchanged (nothing new to freeze).
 */
function fieldsOf(body: SaveFormBody, before: Form | null): FormFields {
  const publish = body.status === 'published';
  const base = { name: body.name, key: body.key, status: body.status, definition: body.definition };
  if (!before) return { ...base, version: 1, publishedVersion: publish ? 1 : null };
  if (before.status === 'draft') return { ...base, version: before.version, publishedVersion: publish ? before.version : before.publishedVersion };
  const unchanged = publish && before.name === body.name && isDeepStrictEqual(before.definition, body.definition);
  if (unchanged) return { ...base, version: before.version, publishedVersion: before.publishedVersion };
  const version = before.version + 1;
  return { ...base, version, publishedVersion: publish ? version : before.publishedVersion };
}

export function createFormService(pool: DatabasePool) {
  const forms = (db: Db, caller: EnvironmentCaller) => createFormQueries(db, caller.scope.environmentId);
  const find = (db: Db, caller: EnvironmentCaller, id: string, lock = false) => orNotFound(forms(db, caller).find(id, { lock }), 'form', id);

  return {
    list: (caller: EnvironmentCaller, query: FormsQuery) => {
      const { status, key, ...page } = query;
      return listPage('forms', page, (p) => forms(pool, caller).list({ status, key }, p));
    },

    find: async (caller: EnvironmentCaller, id: string) => ({ form: await find(pool, caller, id) }),

    versions: async (caller: EnvironmentCaller, id: string) => {
      await find(pool, caller, id);
      return { versions: await forms(pool, caller).versions(id) };
    },

    save: (caller: EnvironmentCaller, body: SaveFormBody) =>
      pool.transaction(async (trx) => {
        const queries = forms(trx, caller);
        const before = body.id ? await find(trx, caller, body.id, true) : null;
        const fields = fieldsOf(body, before);
        const form = before ? await queries.update(before.id, fields) : await queries.create(fields);
        const published = form.publishedVersion !== null && form.publishedVersion !== before?.publishedVersion;
        if (published) await queries.insertVersion(form.id, form.version, form.name, form.definition);
        await record(trx, caller, {
          action: before ? 'form.update' : 'form.create',
          resource: { type: 'form', id: form.id },
          before,
          after: form,
          event: { type: 'form.saved', data: { form, created: !before } },
        });
        if (published) {
          await record(trx, caller, {
            action: 'form.publish',
            resource: { type: 'form', id: form.id },
            after: { version: form.version },
            event: { type: 'form.published', data: { form, version: form.version } },
          });
        }
        return { created: !before, form };
      }),

    /** Refuses (409 `form.attached`) while the form is attached anywhere: detach it first. */
    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const form = await find(trx, caller, id, true);
        const attachments = await createFormAttachmentQueries(trx, caller.scope.environmentId).list({ formId: id });
        if (attachments.length > 0) {
          const details = attachments.map((a) => ({ path: `attachments.${a.id}`, message: `attached to ${a.hookType}` }));
          const where = attachments.map((a) => `${a.hookType} (attachment ${a.id})`).join(', ');
          throw new ApiError(409, 'form.attached', `The form is attached to ${where}: detach it before deleting it.`, { details });
        }
        await forms(trx, caller).remove(id);
        await record(trx, caller, {
          action: 'form.delete',
          resource: { type: 'form', id },
          before: form,
          after: null,
          event: { type: 'form.deleted', data: { form } },
        });
        return { success: true as const };
      }),
  };
}

export type FormService = ReturnType<typeof createFormService>;

// Where an environment's forms are asked in the hosted sign-in: one attachment per form and hook point, with a rank
// and an enabled flag. Saving the same form and hook point again changes that attachment (idempotent).
import type { DatabasePool } from 'slonik';
import { createFormAttachmentQueries } from '../../../../db/forms/attachments.ts';
import { createFormQueries } from '../../../../db/forms/queries.ts';
import { invalidField, orNotFound } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import type { AttachmentsQuery, SaveAttachmentBody } from './schemas.ts';

type Db = Parameters<typeof createFormAttachmentQueries>[0];

export function createFormAttachmentService(pool: DatabasePool) {
  const attachments = (db: Db, caller: EnvironmentCaller) => createFormAttachmentQueries(db, caller.scope.environmentId);

  return {
    list: async (caller: EnvironmentCaller, query: AttachmentsQuery) => ({ attachments: await attachments(pool, caller).list(query) }),

    save: (caller: EnvironmentCaller, body: SaveAttachmentBody) =>
      pool.transaction(async (trx) => {
        // The form's lock orders this against its deletion (which refuses while it is attached) and other saves.
        const form = await createFormQueries(trx, caller.scope.environmentId).find(body.formId, { lock: true });
        if (!form) throw invalidField('body.formId', 'is not a form of this environment');
        const queries = attachments(trx, caller);
        const before = await queries.findOf(body.formId, body.hookType);
        const attachment = before
          ? await queries.update(before.id, { rank: body.rank ?? before.rank, enabled: body.enabled ?? before.enabled })
          : await queries.create({ formId: body.formId, hookType: body.hookType, rank: body.rank ?? 0, enabled: body.enabled ?? true });
        await record(trx, caller, {
          action: before ? 'form_attachment.update' : 'form_attachment.create',
          resource: { type: 'form_attachment', id: attachment.id },
          before,
          after: attachment,
          event: { type: 'form_attachment.saved', data: { attachment, created: !before } },
        });
        return { created: !before, attachment };
      }),

    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const attachment = await orNotFound(attachments(trx, caller).remove(id), 'form_attachment', id);
        await record(trx, caller, {
          action: 'form_attachment.delete',
          resource: { type: 'form_attachment', id },
          before: attachment,
          after: null,
          event: { type: 'form_attachment.deleted', data: { attachment } },
        });
        return { success: true as const };
      }),
  };
}

export type FormAttachmentService = ReturnType<typeof createFormAttachmentService>;

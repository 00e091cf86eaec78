// SCIM Users: the directory's users, written through the directory's queries so the directory's events fire and
// its uniqueness (userName and emails case-insensitively, externalId) holds.
import { isDeepStrictEqual } from 'node:util';
import type { DatabasePool } from 'slonik';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import type { DirectoryUser } from '../../../../db/directory/users/rows.ts';
import { createScimUserQueries, userColumn, type ScimUserRow } from '../../../../db/provisioning/scim/users.ts';
import { COMMON_ATTRIBUTES, ENTERPRISE_USER_SCHEMA, USER_SCHEMA } from '../../../../lib/scim/resource-schemas.ts';
import { withoutOperators } from '../../../../db/directory/users/protected.ts';
import { revokeGrantsOfUser } from '../../../../db/access/impersonation/revoke.ts';
import { isOperator } from '../../../access/protected-operators.ts';
import { userChange } from '../../directory/users/service.ts';
import { recordScim } from './context.ts';
import { checkVersion, isUuid, notFound, type ResourceDescriptor, type ScimContext } from './descriptor.ts';
import { withDatabaseErrors } from '../../../errors.ts';
import { userFromScim, userToScim } from './user-mapping.ts';

/** The directory user of a SCIM row (what directory events carry). */
const directoryUser = ({ rawExternalId: _e, scim: _s, groups: _g, managerName: _m, version: _v, ...user }: ScimUserRow): DirectoryUser => user;
const withoutMeta = ({ meta: _, ...resource }: Record<string, unknown>) => resource;

export function userDescriptor(pool: DatabasePool): ResourceDescriptor {
  const find = async (db: Parameters<typeof createScimUserQueries>[0], ctx: ScimContext, id: string, lock = false) => {
    const row = isUuid(id) ? await createScimUserQueries(db, ctx.environmentId).find(id, lock) : null;
    // The service's operators are no customer's users: a SCIM client neither sees nor changes them.
    if (!row || (await isOperator(db, ctx.environmentId, id))) throw notFound('User', id);
    return row;
  };

  return {
    name: 'User',
    endpoint: '/Users',
    description: 'User Account',
    schemas: { core: USER_SCHEMA, extensions: [ENTERPRISE_USER_SCHEMA], common: COMMON_ATTRIBUTES },
    column: (ctx) => userColumn(ctx.environmentId),

    list: async (ctx, query) => {
      const { rows, total } = await createScimUserQueries(pool, ctx.environmentId).list({ ...query, where: withoutOperators(query.where) });
      return { total, resources: rows.map((row) => userToScim(row, ctx.baseUrl)) };
    },

    get: async (ctx, id) => userToScim(await find(pool, ctx, id), ctx.baseUrl),

    create: (ctx, input) => {
      const { fields, scim } = userFromScim(input, {});
      return withDatabaseErrors(() =>
        pool.transaction(async (trx) => {
          const user = await createDirectoryUserQueries(trx, ctx.environmentId).insertUser({ ...fields, scim });
          await recordScim(trx, ctx, userChange('create', user, null));
          return userToScim(await find(trx, ctx, user.id), ctx.baseUrl);
        }),
      );
    },

    update: (ctx, id, next, ifMatch) =>
      withDatabaseErrors(() =>
        pool.transaction(async (trx) => {
          const row = await find(trx, ctx, id, true);
          checkVersion(ifMatch, row.version);
          const current = userToScim(row, ctx.baseUrl);
          const wanted = next(current);
          const { fields, scim } = userFromScim(wanted, row.attributes);
          if (fields.active === undefined) fields.active = row.active;
          const before = directoryUser(row);
          const users = createDirectoryUserQueries(trx, ctx.environmentId);
          // Compare what the write would give with what is stored: nothing changed means no write and no event.
          const { active, ...others } = fields;
          await users.updateUser(id, { ...others, scim });
          const updated = await find(trx, ctx, id);
          const unchanged = isDeepStrictEqual(withoutMeta(userToScim({ ...updated, active: row.active }, ctx.baseUrl)), withoutMeta(current));
          if (unchanged && active === row.active) {
            // Undo the no-op write's version bump by rolling back: nothing to record.
            throw new Unchanged(current);
          }
          let user = directoryUser(updated);
          if (!unchanged) await recordScim(trx, ctx, userChange('update', user, before));
          if (active !== row.active) {
            const after = await users.updateUser(id, { active });
            await recordScim(trx, ctx, userChange(active ? 'activate' : 'deactivate', after, user));
            const by = {
              actor: { type: 'provisioning_token', id: ctx.tokenId },
              origin: ctx.origin,
              scope: { tenantId: ctx.tenantId, environmentId: ctx.environmentId },
            } as const;
            if (!active) await revokeGrantsOfUser(trx, id, by); // reactivating the user does not revive them
            user = after;
          }
          return userToScim(await find(trx, ctx, id), ctx.baseUrl);
        }),
      ).catch((error: unknown) => {
        if (error instanceof Unchanged) return error.resource;
        throw error;
      }),

    remove: (ctx, id, ifMatch) =>
      pool.transaction(async (trx) => {
        const row = await find(trx, ctx, id, true);
        checkVersion(ifMatch, row.version);
        await createDirectoryUserQueries(trx, ctx.environmentId).deleteUser(id);
        const user = directoryUser(row);
        await recordScim(trx, ctx, userChange('delete', user, user));
      }),
  };
}

/** Thrown out of a transaction that changed nothing, so it rolls back; carries the resource as it is. */
class Unchanged extends Error {
  readonly resource: Record<string, unknown>;
  constructor(resource: Record<string, unknown>) {
    super('unchanged');
    this.resource = resource;
  }
}

// Environments of a project, with what services need besides their public shape (client id, redirect URIs).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { EnvironmentRecord } from '../projects/rows.ts';

const columns = sql.fragment`
  e.id, e.name, e.description, e.created_at AS "createdAt", e.updated_at AS "updatedAt", e.weight, e.is_live AS "isLive",
  coalesce(p.default_environment_id = e.id, false) AS "isDefault", e.tenant_id AS "tenantId", e.project_id AS "projectId",
  p.name AS "projectName", p.type AS "projectType", e.client_id AS "clientId",
  e.success_redirect_uri AS "successRedirectUri", e.error_redirect_uri AS "errorRedirectUri"`;

const from = sql.fragment`FROM environments e JOIN projects p ON p.id = e.project_id`;
const order = sql.fragment`ORDER BY e.weight NULLS LAST, e.created_at, e.id`;

export interface EnvironmentChanges {
  name?: string;
  description?: string | null;
  weight?: number | null;
  isLive?: boolean;
}

const COLUMN: Record<keyof EnvironmentChanges, string> = { name: 'name', description: 'description', weight: 'weight', isLive: 'is_live' };

export function createEnvironmentQueries(db: CommonQueryMethods, tenantId: string) {
  const byId = (id: string) => db.one(sql.type(EnvironmentRecord)`SELECT ${columns} ${from} WHERE e.tenant_id = ${tenantId} AND e.id = ${id}`);
  return {
    byId,

    findByProject: async (projectId: string) => [
      ...(await db.any(sql.type(EnvironmentRecord)`SELECT ${columns} ${from} WHERE e.tenant_id = ${tenantId} AND e.project_id = ${projectId} ${order}`)),
    ],

    /** The environment when it belongs to the tenant (and to the project, when given). */
    find: (id: string, projectId?: string) =>
      db.maybeOne(sql.type(EnvironmentRecord)`
        SELECT ${columns} ${from} WHERE e.id = ${id} AND e.tenant_id = ${tenantId} ${projectId ? sql.fragment`AND e.project_id = ${projectId}` : sql.fragment``}`),

    exists: (id: string) => db.exists(sql.type(z.object({ id: z.uuid() }))`SELECT id FROM environments WHERE id = ${id} AND tenant_id = ${tenantId}`),

    lock: (id: string) => db.query(sql.unsafe`SELECT 1 FROM environments WHERE tenant_id = ${tenantId} AND id = ${id} FOR UPDATE`),

    nameTaken: (projectId: string, name: string, exceptId: string | null = null) =>
      db.exists(sql.type(z.object({ id: z.uuid() }))`
        SELECT id FROM environments WHERE tenant_id = ${tenantId} AND project_id = ${projectId} AND lower(name) = lower(${name}) AND id IS DISTINCT FROM ${exceptId}`),

    update: async (id: string, changes: EnvironmentChanges) => {
      const sets = (Object.keys(COLUMN) as (keyof EnvironmentChanges)[])
        .filter((k) => changes[k] !== undefined)
        .map((k) => sql.fragment`${sql.identifier([COLUMN[k]])} = ${changes[k] ?? null}`);
      await db.query(
        sql.unsafe`UPDATE environments SET ${sql.join([...sets, sql.fragment`updated_at = now()`], sql.fragment`, `)} WHERE tenant_id = ${tenantId} AND id = ${id}`,
      );
      return byId(id);
    },

    /** Deletes the environment and everything in it (ON DELETE CASCADE). */
    delete: (id: string) => db.query(sql.unsafe`DELETE FROM environments WHERE tenant_id = ${tenantId} AND id = ${id}`),

    setRedirectUris: async (id: string, uris: { successRedirectUri: string; errorRedirectUri: string | null }) => {
      await db.query(sql.unsafe`
        UPDATE environments SET success_redirect_uri = ${uris.successRedirectUri}, error_redirect_uri = ${uris.errorRedirectUri}, updated_at = now()
        WHERE tenant_id = ${tenantId} AND id = ${id}`);
      return byId(id);
    },
  };
}

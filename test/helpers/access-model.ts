// An environment's access model (directory and RBAC) and its API secrets, inserted directly: the management APIs
// that make them live in other families.
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { displayPrefix, generateCredential, hashSecret } from '../../lib/crypto.ts';

export interface ModelSeed {
  /** Keyed by userName. */
  users?: { userName: string; externalId?: string; emails?: string[]; displayName?: string; active?: boolean; attributes?: Record<string, unknown> }[];
  groups?: { name: string; externalId?: string; attributes?: Record<string, unknown> }[];
  /** [userName, group name] */
  memberships?: [string, string][];
  resourceTypes?: { key: string; actions: string[]; storedInstancesOnly?: boolean }[];
  resources?: { type: string; id: string; attributes?: Record<string, unknown> }[];
  roles?: { key: string; permissions: { type: string; action: string; condition?: string }[]; inherits?: string[] }[];
  assignments?: { role: string; user?: string; group?: string; resources?: { type: string; id: string }[]; condition?: string }[];
}

export interface SeededModel {
  users: Record<string, string>;
  groups: Record<string, string>;
  roles: Record<string, string>;
  assignments: string[];
}

const json = (value: unknown) => sql.jsonb(value as never);
const Id = z.object({ id: z.string() });

export async function seedModel(pool: DatabasePool, environmentId: string, seed: ModelSeed): Promise<SeededModel> {
  return pool.transaction(async (tx) => {
    const ids: SeededModel = { users: {}, groups: {}, roles: {}, assignments: [] };
    for (const u of seed.users ?? []) {
      const emails = (u.emails ?? []).map((value) => ({ id: crypto.randomUUID(), value, type: null }));
      ids.users[u.userName] = await tx.oneFirst(sql.type(Id)`
        INSERT INTO users (environment_id, user_name, external_id, display_name, active, emails, attributes)
        VALUES (${environmentId}, ${u.userName}, ${u.externalId ?? null}, ${u.displayName ?? null}, ${u.active ?? true}, ${json(emails)}, ${json(u.attributes ?? {})})
        RETURNING id`);
    }
    for (const g of seed.groups ?? []) {
      ids.groups[g.name] = await tx.oneFirst(sql.type(Id)`
        INSERT INTO groups (environment_id, name, external_id, attributes) VALUES (${environmentId}, ${g.name}, ${g.externalId ?? null}, ${json(g.attributes ?? {})})
        RETURNING id`);
    }
    for (const [user, group] of seed.memberships ?? []) {
      await tx.query(
        sql.unsafe`INSERT INTO group_members (group_id, user_id, environment_id) VALUES (${ids.groups[group]!}, ${ids.users[user]!}, ${environmentId})`,
      );
    }
    const types: Record<string, string> = {};
    for (const t of seed.resourceTypes ?? []) {
      types[t.key] = await tx.oneFirst(sql.type(Id)`
        INSERT INTO rbac_resource_types (environment_id, key, stored_instances_only) VALUES (${environmentId}, ${t.key}, ${t.storedInstancesOnly ?? true})
        RETURNING id`);
      for (const action of t.actions) {
        await tx.query(sql.unsafe`INSERT INTO rbac_actions (resource_type_id, environment_id, name) VALUES (${types[t.key]!}, ${environmentId}, ${action})`);
      }
    }
    for (const r of seed.resources ?? []) {
      await tx.query(sql.unsafe`
        INSERT INTO rbac_resources (environment_id, resource_type_id, resource_id, attributes) VALUES (${environmentId}, ${types[r.type]!}, ${r.id}, ${json(r.attributes ?? {})})`);
    }
    for (const r of seed.roles ?? []) {
      ids.roles[r.key] = await tx.oneFirst(sql.type(Id)`INSERT INTO rbac_roles (environment_id, key) VALUES (${environmentId}, ${r.key}) RETURNING id`);
      for (const p of r.permissions) {
        await tx.query(sql.unsafe`
          INSERT INTO rbac_role_permissions (role_id, environment_id, resource_type_id, action, condition)
          VALUES (${ids.roles[r.key]!}, ${environmentId}, ${types[p.type]!}, ${p.action}, ${p.condition ?? null})`);
      }
    }
    for (const r of seed.roles ?? []) {
      for (const inherited of r.inherits ?? []) {
        await tx.query(sql.unsafe`
          INSERT INTO rbac_role_inheritance (role_id, inherits_role_id, environment_id) VALUES (${ids.roles[r.key]!}, ${ids.roles[inherited]!}, ${environmentId})`);
      }
    }
    for (const a of seed.assignments ?? []) {
      ids.assignments.push(
        await tx.oneFirst(sql.type(Id)`
          INSERT INTO rbac_assignments (environment_id, role_id, user_id, group_id, resources, condition)
          VALUES (${environmentId}, ${ids.roles[a.role]!}, ${a.user ? ids.users[a.user]! : null}, ${a.group ? ids.groups[a.group]! : null},
            ${a.resources ? json(a.resources) : null}, ${a.condition ?? null})
          RETURNING id`),
      );
    }
    return ids;
  });
}

/** A new environment API secret of an environment: its value and id. */
export async function createApiSecret(pool: DatabasePool, environmentId: string, purposes: string[] = ['authzen']) {
  const secret = generateCredential('adenv');
  const id = await pool.oneFirst(sql.type(Id)`
    INSERT INTO api_secrets (environment_id, tenant_id, name, purposes, prefix, hint, secret_hash)
    SELECT id, tenant_id, 'test', ${sql.array(purposes, 'text')}, ${displayPrefix(secret)}, ${secret.slice(-4)}, ${sql.binary(hashSecret(secret))}
    FROM environments WHERE id = ${environmentId}
    RETURNING id`);
  return { secret, id };
}

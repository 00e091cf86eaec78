// The benchmark's access model, inserted by SQL in a few statements: 10k users with emails, 100 roles, 100k
// instances of one resource type, one role per user (every other one limited to 10 instances) and an
// owner-conditioned delete permission for everyone.
import { sql, type DatabasePool } from 'slonik';
import { createBenchSecret } from '../environment-secret.ts';

export const USERS = 10_000;
export const ROLES = 100;
export const RESOURCES = 100_000;

export async function seedBenchModel(pool: DatabasePool, environmentId: string) {
  await pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`
      INSERT INTO users (environment_id, user_name, emails)
      SELECT ${environmentId}, 'user' || i, jsonb_build_array(jsonb_build_object('id', gen_random_uuid()::text, 'value', 'user' || i || '@example.com', 'type', 'work'))
      FROM generate_series(1, ${USERS}) i`);
    const typeId = await tx.oneFirst(sql.unsafe`
      INSERT INTO rbac_resource_types (environment_id, key) VALUES (${environmentId}, 'document') RETURNING id`);
    await tx.query(sql.unsafe`
      INSERT INTO rbac_actions (resource_type_id, environment_id, name) SELECT ${typeId as string}, ${environmentId}, unnest(ARRAY['read', 'write', 'delete'])`);
    await tx.query(sql.unsafe`
      INSERT INTO rbac_resources (environment_id, resource_type_id, resource_id, attributes)
      SELECT ${environmentId}, ${typeId as string}, 'doc-' || i, jsonb_build_object('owner', 'user' || (i % ${USERS} + 1))
      FROM generate_series(1, ${RESOURCES}) i`);
    await tx.query(sql.unsafe`INSERT INTO rbac_roles (environment_id, key) SELECT ${environmentId}, 'role-' || i FROM generate_series(1, ${ROLES}) i`);
    await tx.query(sql.unsafe`
      INSERT INTO rbac_role_permissions (role_id, environment_id, resource_type_id, action)
      SELECT r.id, ${environmentId}, ${typeId as string}, a.name FROM rbac_roles r, unnest(ARRAY['read', 'write']) a(name)
      WHERE r.environment_id = ${environmentId} AND (a.name = 'read' OR r.key IN ('role-1', 'role-2', 'role-3'))`);
    await tx.query(sql.unsafe`
      INSERT INTO rbac_role_permissions (role_id, environment_id, resource_type_id, action, condition)
      SELECT id, ${environmentId}, ${typeId as string}, 'delete', 'resource.properties.owner == subject.properties.userName'
      FROM rbac_roles WHERE environment_id = ${environmentId} AND key = ${`role-${ROLES}`}`);
    // user<i>: role-<i % 99 + 1> (odd users: on 10 instances only), and the owner role.
    await tx.query(sql.unsafe`
      INSERT INTO rbac_assignments (environment_id, role_id, user_id, resources)
      SELECT ${environmentId}, r.id, u.id,
        CASE WHEN n % 2 = 1 THEN (SELECT jsonb_agg(jsonb_build_object('type', 'document', 'id', 'doc-' || (n * 10 + k))) FROM generate_series(0, 9) k) END
      FROM (SELECT id, substr(user_name, 5)::int AS n FROM users WHERE environment_id = ${environmentId} AND user_name LIKE 'user%') u
      JOIN rbac_roles r ON r.environment_id = ${environmentId} AND r.key = 'role-' || (u.n % ${ROLES - 1} + 1)`);
    await tx.query(sql.unsafe`
      INSERT INTO rbac_assignments (environment_id, role_id, user_id)
      SELECT ${environmentId}, r.id, u.id FROM users u JOIN rbac_roles r ON r.environment_id = u.environment_id AND r.key = ${`role-${ROLES}`}
      WHERE u.environment_id = ${environmentId} AND u.user_name LIKE 'user%'`);
  });
  return { secret: await createBenchSecret(pool, environmentId, ['authzen']) };
}

// The model loader reads an environment's whole directory and RBAC model in one statement, and only that environment's.
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelQueries } from '../../db/access/model/queries.ts';
import { compileModel } from '../../lib/authz/compile.ts';
import { evaluate } from '../../lib/authz/evaluate.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const id = (q: ReturnType<typeof sql.unsafe>) => t.pool.oneFirst(q) as Promise<string>;

describe('loading an access model', () => {
  it('loads users with emails, groups and attributes, types with actions, instances, roles with inheritance and assignments', async () => {
    const env = t.credentials.environmentId;
    const user = await id(sql.unsafe`
      INSERT INTO users (environment_id, user_name, external_id, emails, attributes)
      VALUES (${env}, 'Ada', 'ext-ada', ${sql.jsonb([{ id: 'e1', value: 'Ada@Example.com', type: 'work' }])}, ${sql.jsonb({ level: 3 })}) RETURNING id`);
    const group = await id(sql.unsafe`INSERT INTO groups (environment_id, name) VALUES (${env}, 'Writers') RETURNING id`);
    await t.pool.query(sql.unsafe`INSERT INTO group_members (group_id, user_id, environment_id) VALUES (${group}, ${user}, ${env})`);
    const type = await id(sql.unsafe`INSERT INTO rbac_resource_types (environment_id, key) VALUES (${env}, 'doc') RETURNING id`);
    await t.pool.query(
      sql.unsafe`INSERT INTO rbac_actions (resource_type_id, environment_id, name) VALUES (${type}, ${env}, 'read'), (${type}, ${env}, 'write')`,
    );
    await t.pool.query(
      sql.unsafe`INSERT INTO rbac_resources (environment_id, resource_type_id, resource_id, attributes) VALUES (${env}, ${type}, 'd1', ${sql.jsonb({ owner: 'x' })})`,
    );
    const reader = await id(sql.unsafe`INSERT INTO rbac_roles (environment_id, key) VALUES (${env}, 'reader') RETURNING id`);
    const writer = await id(sql.unsafe`INSERT INTO rbac_roles (environment_id, key) VALUES (${env}, 'writer') RETURNING id`);
    await t.pool.query(
      sql.unsafe`INSERT INTO rbac_role_permissions (role_id, environment_id, resource_type_id, action) VALUES (${reader}, ${env}, ${type}, 'read')`,
    );
    await t.pool.query(sql.unsafe`
      INSERT INTO rbac_role_permissions (role_id, environment_id, resource_type_id, action, condition)
      VALUES (${writer}, ${env}, ${type}, 'write', 'subject.properties.level >= 3')`);
    await t.pool.query(sql.unsafe`INSERT INTO rbac_role_inheritance (role_id, inherits_role_id, environment_id) VALUES (${writer}, ${reader}, ${env})`);
    await t.pool.query(sql.unsafe`
      INSERT INTO rbac_assignments (environment_id, role_id, group_id, resources) VALUES (${env}, ${writer}, ${group}, ${sql.jsonb([{ type: 'doc', id: 'd1' }])})`);

    await t.pool.query(sql.unsafe`INSERT INTO authzen_settings (environment_id, subject_identifier) VALUES (${env}, 'externalId')`);
    const stored = await createModelQueries(t.pool).loadModel(env);
    expect(stored.subjectIdentifier).toBe('externalId');
    expect(stored.users.find((u) => u.id === user)).toEqual({
      id: user,
      userName: 'Ada',
      externalId: 'ext-ada',
      displayName: null,
      active: true,
      emails: ['ada@example.com'],
      attributes: { level: 3 },
      groupIds: [group],
    });
    expect(stored.resourceTypes).toEqual([{ id: type, key: 'doc', storedInstancesOnly: true, actions: ['read', 'write'] }]);
    expect(stored.resources).toEqual([{ typeId: type, id: 'd1', attributes: { owner: 'x' } }]);
    expect(stored.roles.find((r) => r.key === 'writer')).toEqual({
      id: writer,
      key: 'writer',
      permissions: [{ typeId: type, action: 'write', condition: 'subject.properties.level >= 3' }],
      inherits: [reader],
    });

    const model = compileModel(env, stored);
    const ask = (action: string, resource = 'd1') =>
      evaluate(model, { subject: { type: 'user', id: 'ext-ada' }, action: { name: action }, resource: { type: 'doc', id: resource } }).decision;
    expect([ask('read'), ask('write'), ask('read', 'd2')]).toEqual([true, true, false]);
    // By externalId only: the userName is another kind.
    expect(evaluate(model, { subject: { type: 'user', id: 'Ada' }, action: { name: 'read' }, resource: { type: 'doc', id: 'd1' } }).decision).toBe(false);

    const empty = await createModelQueries(t.pool).loadModel('00000000-0000-4000-8000-000000000000');
    expect(empty).toEqual({ users: [], groups: [], resourceTypes: [], resources: [], roles: [], assignments: [], agents: [] });
  });
});

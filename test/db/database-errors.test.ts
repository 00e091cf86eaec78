// One translator of database errors (db/shared/database-errors.ts): each mapped constraint exists in the schema and
// answers its own code; real violations (unique, foreign key, check) come out as the refusal the API answers, and
// activities throw it as an error neither engine retries.
import { sql, UniqueIntegrityConstraintViolationError, type QuerySqlToken } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusingDatabaseErrors, translateDatabaseError, UNIQUE_CONSTRAINTS } from '../../db/shared/database-errors.ts';
import { isRetryable } from '../../workflows/port.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const SCOPE = '6f1c1f9e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

/** What the API answers for a violation of each mapped constraint, with the `detail` Postgres gives. */
const ANSWERS: Record<keyof typeof UNIQUE_CONSTRAINTS, { detail: string; code: string; message: string; path?: string }> = {
  users__environment_user_name: {
    detail: `Key (environment_id, lower(user_name))=(${SCOPE}, ada) already exists.`,
    code: 'directory.user_name_taken',
    message: 'Conflict: body.userName ada is already the userName of another user in this environment.',
    path: 'body.userName',
  },
  user_emails_pkey: {
    detail: `Key (environment_id, email)=(${SCOPE}, ada@example.com) already exists.`,
    code: 'directory.email_taken',
    message: 'Conflict: body.emails ada@example.com is already an email of another user in this environment.',
    path: 'body.emails',
  },
  users__environment_external_id: {
    detail: `Key (environment_id, external_id)=(${SCOPE}, e-1) already exists.`,
    code: 'directory.external_id_taken',
    message: 'Conflict: body.externalId e-1 is already the externalId of another user in this environment.',
    path: 'body.externalId',
  },
  groups__environment_name: {
    detail: `Key (environment_id, lower(name))=(${SCOPE}, writers) already exists.`,
    code: 'directory.group_name_taken',
    message: 'Conflict: body.name writers is already the name of another group in this environment.',
    path: 'body.name',
  },
  users__environment_identifier_external_id: {
    detail: `Key (environment_id, external_id)=(${SCOPE}, ada) already exists.`,
    code: 'directory.identifier_taken',
    message: 'Conflict: body.externalId ada is already the userName or id of another user in this environment.',
    path: 'body.externalId',
  },
  users__environment_identifier_user_name: {
    detail: `Key (environment_id, user_name)=(${SCOPE}, e-1) already exists.`,
    code: 'directory.identifier_taken',
    message: 'Conflict: body.userName e-1 is already the externalId or id of another user in this environment.',
    path: 'body.userName',
  },
  groups__environment_identifier_external_id: {
    detail: `Key (environment_id, external_id)=(${SCOPE}, writers) already exists.`,
    code: 'directory.identifier_taken',
    message: 'Conflict: body.externalId writers is already the name or id of another group in this environment.',
    path: 'body.externalId',
  },
  groups__environment_identifier_name: {
    detail: `Key (environment_id, name)=(${SCOPE}, g-1) already exists.`,
    code: 'directory.identifier_taken',
    message: 'Conflict: body.name g-1 is already the externalId or id of another group in this environment.',
    path: 'body.name',
  },
  groups__environment_external_id: {
    detail: `Key (environment_id, external_id)=(${SCOPE}, g-1) already exists.`,
    code: 'directory.group_external_id_taken',
    message: 'Conflict: body.externalId g-1 is already the externalId of another group in this environment.',
    path: 'body.externalId',
  },
  hris_employees__environment_employee_number: {
    detail: `Key (environment_id, employee_number)=(${SCOPE}, 42) already exists.`,
    code: 'hris.employee_number_taken',
    message: 'Conflict: employeeNumber 42 is already the employeeNumber of another employee in this environment.',
    path: 'employeeNumber',
  },
  rbac_roles__environment_key: {
    detail: `Key (environment_id, key)=(${SCOPE}, admin) already exists.`,
    code: 'role.already_exists',
    message: 'The environment already has a role admin.',
  },
  rbac_resource_types__environment_key: {
    detail: `Key (environment_id, key)=(${SCOPE}, doc) already exists.`,
    code: 'resource_type.already_exists',
    message: 'The environment already has a resource type doc.',
  },
  elevate_policies__environment_name: {
    detail: `Key (environment_id, name)=(${SCOPE}, prod) already exists.`,
    code: 'elevate.policy_name_taken',
    message: 'A policy of this environment already has this name.',
  },
  trust_store_keys__entry_kid: {
    detail: `Key (entry_id, kid)=(${SCOPE}, k1) already exists.`,
    code: 'trust_store.kid_taken',
    message: 'Conflict: the entry already has a key with this kid (body.jwk.kid).',
  },
  trust_store_entries__environment_subject: {
    detail: `Key (environment_id, subject)=(${SCOPE}, spiffe://x) already exists.`,
    code: 'trust_store.subject_taken',
    message: 'Conflict: body.subject already names another entry of this environment.',
  },
  threats__open_dedupe: {
    detail: `Key (environment_id, dedupe_key)=(${SCOPE}, d) already exists.`,
    code: 'threat.already_open',
    message: 'An open threat with the same category and subject exists: it gets the new occurrences.',
  },
  jwt_claim_mappings__environment_claim: {
    detail: `Key (environment_id, claim_name)=(${SCOPE}, department) already exists.`,
    code: 'jwt_claim_mapping.claim_name_taken',
    message: 'Conflict: body.claimName department is already the claimName of another mapping in this environment.',
    path: 'body.claimName',
  },
  forms__environment_key: {
    detail: `Key (environment_id, key)=(${SCOPE}, signup_extra) already exists.`,
    code: 'form.key_taken',
    message: 'Conflict: body.key signup_extra is already the key of another form in this environment.',
    path: 'body.key',
  },
  tenant_domains__tenant_domain: {
    detail: `Key (tenant_id, domain)=(${SCOPE}, example.com) already exists.`,
    code: 'tenant_domain.already_exists',
    message: 'The domain example.com is already added to this tenant.',
  },
  vanity_domains__hostname: {
    detail: 'Key (hostname)=(login.example.com) already exists.',
    code: 'vanity_domain.already_exists',
    message: 'The host login.example.com is already a vanity domain.',
  },
  user_totp_factors__user_confirmed: {
    detail: `Key (user_id)=(${SCOPE}) already exists.`,
    code: 'mfa.already_enrolled',
    message: 'The user already has a TOTP authenticator: remove it first.',
  },
};

const uniqueViolation = (constraint: string, detail: string) =>
  new UniqueIntegrityConstraintViolationError(Object.assign(new Error('duplicate key value violates unique constraint'), { constraint, detail }) as never);

/** The error `query` fails with (it must fail). */
async function failure(query: QuerySqlToken | ReturnType<typeof sql.unsafe>): Promise<unknown> {
  try {
    await t.pool.query(query);
  } catch (error) {
    return error;
  }
  throw new Error('the statement succeeded');
}

const answer = (error: unknown) => {
  const refusal = translateDatabaseError(error);
  return refusal && { status: refusal.statusCode, code: refusal.code, message: refusal.message, details: refusal.details };
};

describe('translating database errors', () => {
  it.each(Object.keys(ANSWERS) as (keyof typeof UNIQUE_CONSTRAINTS)[])('%s is a unique index of the schema and has its own answer', async (name) => {
    const index = await t.pool.maybeOneFirst(sql.unsafe`
      SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indisunique AND c.relname = ${name}`);
    // The identifiers across kinds are unique by a trigger (0026), which raises the constraint `<table>__environment_identifier_<column>`.
    const byTrigger = name.includes('__environment_identifier_')
      ? await t.pool.exists(sql.unsafe`SELECT 1 FROM pg_proc WHERE prosrc LIKE '%__environment_identifier_%'`)
      : false;
    expect(byTrigger ? name : index).toBe(name);
    const { detail, code, message, path } = ANSWERS[name];
    expect(answer(uniqueViolation(name, detail))).toEqual({
      status: 409,
      code,
      message,
      details: path ? [{ path, message: message.slice(`Conflict: ${path} `.length, -1) }] : undefined,
    });
  });

  it('maps every constraint it names, and no other', () => {
    expect(Object.keys(UNIQUE_CONSTRAINTS).sort()).toEqual(Object.keys(ANSWERS).sort());
  });

  it('answers real unique violations with the value that collided', async () => {
    const env = t.credentials.environmentId;
    await t.pool.query(sql.unsafe`INSERT INTO rbac_roles (environment_id, key) VALUES (${env}, 'auditor')`);
    expect(answer(await failure(sql.unsafe`INSERT INTO rbac_roles (environment_id, key) VALUES (${env}, 'auditor')`))).toEqual({
      status: 409,
      code: 'role.already_exists',
      message: 'The environment already has a role auditor.',
      details: undefined,
    });
    await t.pool.query(sql.unsafe`INSERT INTO users (environment_id, user_name) VALUES (${env}, 'Grace')`);
    expect(answer(await failure(sql.unsafe`INSERT INTO users (environment_id, user_name) VALUES (${env}, 'grace')`))).toEqual({
      status: 409,
      code: 'directory.user_name_taken',
      message: 'Conflict: body.userName grace is already the userName of another user in this environment.',
      details: [{ path: 'body.userName', message: 'grace is already the userName of another user in this environment' }],
    });
  });

  it('answers an unmapped unique violation, a foreign key and a check violation without a 5xx', async () => {
    const kid = `kid-${Date.now()}`;
    const key = (status: string) => sql.unsafe`INSERT INTO signing_keys (kid, public_jwk, private_key_encrypted, status) VALUES (${kid}, '{}', 'x', ${status})`;
    expect(answer(await failure(key('bogus')))).toMatchObject({ status: 400, code: 'request.invalid' });
    await t.pool.query(key('retired'));
    expect(answer(await failure(key('retired')))).toEqual({
      status: 409,
      code: 'resource.conflict',
      message: 'A resource with the same unique value already exists.',
      details: undefined,
    });
    expect(answer(await failure(sql.unsafe`INSERT INTO rbac_roles (environment_id, key) VALUES (${SCOPE}, 'x')`))).toMatchObject({
      status: 409,
      code: 'resource.reference_conflict',
    });
    expect(answer(new Error('connection reset'))).toBeUndefined();
  });

  it('makes an activity that hits a violation fail for good, and leaves other failures retryable', async () => {
    const env = t.credentials.environmentId;
    await t.pool.query(sql.unsafe`INSERT INTO groups (environment_id, name) VALUES (${env}, 'Ops')`);
    const activities = refusingDatabaseErrors({
      addGroup: async (_: never) => t.pool.query(sql.unsafe`INSERT INTO groups (environment_id, name) VALUES (${env}, 'ops')`),
      unreachable: async (_: never) => {
        throw new Error('ECONNREFUSED');
      },
    });
    const thrown = await activities.addGroup(undefined as never).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toMatchObject({ name: 'DatabaseRefusal', code: 'directory.group_name_taken', statusCode: 409 });
    expect(isRetryable(thrown)).toBe(false);
    const outage = await activities.unreachable(undefined as never).catch((error: unknown) => error);
    expect(isRetryable(outage)).toBe(true);
  });
});

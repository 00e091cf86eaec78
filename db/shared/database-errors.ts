// The one translator of database errors: a unique, foreign-key or check violation becomes a refusal naming what
// collided, looked up by constraint name. The API's error handler (api/plugins/errors.ts, api/errors.ts
// `databaseApiError`) answers it as `{ error, code, requestId, details? }`; activities throw it as a
// non-retryable error (the same statement fails the same way on every attempt). Renaming a mapped constraint
// changes the API: test/db/database-errors.test.ts checks that each one exists.
import {
  CheckIntegrityConstraintViolationError,
  ForeignKeyIntegrityConstraintViolationError,
  IntegrityConstraintViolationError,
  UniqueIntegrityConstraintViolationError,
} from 'slonik';

export interface RefusalDetail {
  path: string;
  message: string;
}

/** A change the database refused because of the request's data (never retried). */
export class DatabaseRefusal extends Error {
  override readonly name = 'DatabaseRefusal';
  readonly statusCode: number;
  readonly code: string;
  readonly constraint: string | null;
  readonly details: RefusalDetail[] | undefined;

  constructor(statusCode: number, code: string, message: string, constraint: string | null, details?: RefusalDetail[]) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.constraint = constraint;
    this.details = details;
  }
}

interface Mapping {
  code: string;
  /** The message, given the value that collided when the database names it. */
  message: (value: string | undefined) => string;
  /** The field the constraint guards: answered as the error's detail. */
  field?: { path: string; what: string };
}

/** A 409 naming the field and the value already taken: `Conflict: body.userName alice is already …`. */
const taken = (code: string, path: string, what: string): Mapping => ({ code, field: { path, what }, message: () => '' });
const fixed = (code: string, message: string): Mapping => ({ code, message: () => message });

/** Every unique constraint (or unique index) whose violation the API answers with its own code. */
export const UNIQUE_CONSTRAINTS = {
  users__environment_user_name: taken('directory.user_name_taken', 'body.userName', 'the userName of another user'),
  user_emails_pkey: taken('directory.email_taken', 'body.emails', 'an email of another user'),
  users__environment_external_id: taken('directory.external_id_taken', 'body.externalId', 'the externalId of another user'),
  groups__environment_name: taken('directory.group_name_taken', 'body.name', 'the name of another group'),
  groups__environment_external_id: taken('directory.group_external_id_taken', 'body.externalId', 'the externalId of another group'),
  // An AuthZEN subject id names one subject whatever its kind (lib/authz/subjects.ts, `any`): 0026's triggers.
  users__environment_identifier_external_id: taken('directory.identifier_taken', 'body.externalId', 'the userName or id of another user'),
  users__environment_identifier_user_name: taken('directory.identifier_taken', 'body.userName', 'the externalId or id of another user'),
  groups__environment_identifier_external_id: taken('directory.identifier_taken', 'body.externalId', 'the name or id of another group'),
  groups__environment_identifier_name: taken('directory.identifier_taken', 'body.name', 'the externalId or id of another group'),
  hris_employees__environment_employee_number: taken('hris.employee_number_taken', 'employeeNumber', 'the employeeNumber of another employee'),
  rbac_roles__environment_key: { code: 'role.already_exists', message: (key) => `The environment already has a role ${key}.` },
  rbac_resource_types__environment_key: { code: 'resource_type.already_exists', message: (key) => `The environment already has a resource type ${key}.` },
  elevate_policies__environment_name: fixed('elevate.policy_name_taken', 'A policy of this environment already has this name.'),
  trust_store_keys__entry_kid: fixed('trust_store.kid_taken', 'Conflict: the entry already has a key with this kid (body.jwk.kid).'),
  trust_store_entries__environment_subject: fixed('trust_store.subject_taken', 'Conflict: body.subject already names another entry of this environment.'),
  threats__open_dedupe: fixed('threat.already_open', 'An open threat with the same category and subject exists: it gets the new occurrences.'),
  jwt_claim_mappings__environment_claim: taken('jwt_claim_mapping.claim_name_taken', 'body.claimName', 'the claimName of another mapping'),
  forms__environment_key: taken('form.key_taken', 'body.key', 'the key of another form'),
  // Unreachable through the services (they lock the user and refuse a second enrolment), kept as the answer if it is.
  user_totp_factors__user_confirmed: fixed('mfa.already_enrolled', 'The user already has a TOTP authenticator: remove it first.'),
  tenant_domains__tenant_domain: { code: 'tenant_domain.already_exists', message: (domain) => `The domain ${domain} is already added to this tenant.` },
  vanity_domains__hostname: { code: 'vanity_domain.already_exists', message: (hostname) => `The host ${hostname} is already a vanity domain.` },
} satisfies Record<string, Mapping>;

// `Key (environment_id, lower(user_name))=(<uuid>, alice) already exists.`: the value after the leading scope id
// (or the whole value of a one-column key).
const KEY = /^Key \(.*?\)=\((.*)\) already exists\.?$/s;
const SCOPED = /^[0-9a-f-]{36}, (.*)$/s;

function collidingValue(detail: string | null | undefined): string | undefined {
  const value = KEY.exec(detail ?? '')?.[1];
  return value === undefined ? undefined : (SCOPED.exec(value)?.[1] ?? value);
}

function uniqueRefusal(error: UniqueIntegrityConstraintViolationError): DatabaseRefusal {
  const constraint = error.constraint ?? null;
  const mapping = constraint && Object.hasOwn(UNIQUE_CONSTRAINTS, constraint) ? (UNIQUE_CONSTRAINTS as Record<string, Mapping>)[constraint] : undefined;
  if (!mapping) return new DatabaseRefusal(409, 'resource.conflict', 'A resource with the same unique value already exists.', constraint);
  const value = collidingValue(error.detail);
  if (!mapping.field) return new DatabaseRefusal(409, mapping.code, mapping.message(value), constraint);
  const { path, what } = mapping.field;
  const message = value === undefined ? `is already ${what} in this environment` : `${value} is already ${what} in this environment`;
  return new DatabaseRefusal(409, mapping.code, `Conflict: ${path} ${message}.`, constraint, [{ path, message }]);
}

/** The refusal a database error stands for, or undefined when it is no integrity violation (an outage, a bug). */
export function translateDatabaseError(error: unknown): DatabaseRefusal | undefined {
  if (error instanceof DatabaseRefusal) return error;
  if (!(error instanceof IntegrityConstraintViolationError)) return undefined;
  if (error instanceof UniqueIntegrityConstraintViolationError) return uniqueRefusal(error);
  const constraint = error.constraint ?? null;
  if (error instanceof ForeignKeyIntegrityConstraintViolationError) {
    return new DatabaseRefusal(
      409,
      'resource.reference_conflict',
      'The change refers to a resource that no longer exists, or removes one still referred to.',
      constraint,
    );
  }
  if (error instanceof CheckIntegrityConstraintViolationError) {
    return new DatabaseRefusal(400, 'request.invalid', `Invalid request: a value is outside what the service stores (${constraint ?? 'check'}).`, constraint);
  }
  return undefined;
}

/** Activities: an integrity violation is thrown as its refusal, which neither engine retries (PROGRAMMING_ERRORS). */
export function refusingDatabaseErrors<T extends Record<string, (input: never) => Promise<unknown>>>(activities: T): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, run]) => [
      name,
      async (input: never) => {
        try {
          return await run(input);
        } catch (error) {
          throw translateDatabaseError(error) ?? error;
        }
      },
    ]),
  ) as T;
}

// An environment's forms and their published versions (0044). Every statement is bound to the environment.
import { sql, type CommonQueryMethods } from 'slonik';
import { selectPage, type PageRequest } from '../shared/pages.ts';
import { Form, FormVersion, type FormStatus } from './rows.ts';

const columns = sql.fragment`id, environment_id AS "environmentId", name, key, status, definition, version,
  published_version AS "publishedVersion", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** What a save writes: the working copy, and whether it publishes `version`. */
export interface FormFields {
  name: string;
  key: string;
  status: FormStatus;
  definition: Record<string, unknown>;
  version: number;
  publishedVersion: number | null;
}

export interface FormFilter {
  status?: FormStatus | undefined;
  key?: string | undefined;
}

export function createFormQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    list: (filter: FormFilter, page: PageRequest) =>
      selectPage(
        db,
        Form,
        sql.fragment`SELECT ${columns} FROM forms WHERE environment_id = ${environmentId}
          ${filter.status ? sql.fragment`AND status = ${filter.status}` : sql.fragment``}
          ${filter.key ? sql.fragment`AND key = ${filter.key}` : sql.fragment``}`,
        sql.fragment`created_at, id`,
        page,
      ),

    find: (id: string, options: { lock?: boolean } = {}) =>
      db.maybeOne(sql.type(Form)`
        SELECT ${columns} FROM forms WHERE environment_id = ${environmentId} AND id = ${id}
        ${options.lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    create: (f: FormFields) =>
      db.one(sql.type(Form)`
        INSERT INTO forms (environment_id, name, key, status, definition, version, published_version)
        VALUES (${environmentId}, ${f.name}, ${f.key}, ${f.status}, ${sql.jsonb(f.definition as never)}, ${f.version}, ${f.publishedVersion})
        RETURNING ${columns}`),

    update: (id: string, f: FormFields) =>
      db.one(sql.type(Form)`
        UPDATE forms SET name = ${f.name}, key = ${f.key}, status = ${f.status}, definition = ${sql.jsonb(f.definition as never)},
          version = ${f.version}, published_version = ${f.publishedVersion}, updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}
        RETURNING ${columns}`),

    remove: (id: string) => db.query(sql.unsafe`DELETE FROM forms WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** Freezes a version of the form (its name and definition as published). */
    insertVersion: (formId: string, version: number, name: string, definition: Record<string, unknown>) =>
      db.one(sql.type(FormVersion)`
        INSERT INTO form_versions (form_id, environment_id, version, name, definition)
        VALUES (${formId}, ${environmentId}, ${version}, ${name}, ${sql.jsonb(definition as never)})
        RETURNING form_id AS "formId", version, name, definition, published_at AS "publishedAt"`),

    versions: async (formId: string) => [
      ...(await db.any(sql.type(FormVersion)`
        SELECT form_id AS "formId", version, name, definition, published_at AS "publishedAt"
        FROM form_versions WHERE environment_id = ${environmentId} AND form_id = ${formId} ORDER BY version DESC`)),
    ],
  };
}

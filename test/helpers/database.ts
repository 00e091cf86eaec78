import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export const adminDatabaseUrl = () => inject('adminDatabaseUrl');

/** A fresh database cloned from the migrated template; one per test file (or per test that needs one). */
export async function createTestDatabase(options: { template?: string } = {}): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${options.template ?? 'iam_template'}`);
  } finally {
    await admin.end();
  }
  return adminDatabaseUrl().replace(/\/postgres$/, `/${name}`);
}

/** An empty database (no migrations), for migration tests. */
export async function createEmptyDatabase(): Promise<string> {
  return createTestDatabase({ template: 'template0' });
}

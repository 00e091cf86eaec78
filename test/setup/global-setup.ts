// One embedded Postgres per test run; a migrated template database that each test file clones.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../db/embedded.ts';
import { migrate } from '../../db/migrate.ts';

export const TEMPLATE = 'iam_template';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-test-pg-'));
  await fs.chmod(dir, 0o711);
  const db = await startEmbeddedPostgres({ dir });
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE}`);
  await admin.end();
  await migrate(db.url.replace(/\/postgres$/, `/${TEMPLATE}`));
  project.provide('adminDatabaseUrl', db.url);
  return async () => {
    await db.stop();
    await fs.rm(dir, { recursive: true, force: true });
  };
}

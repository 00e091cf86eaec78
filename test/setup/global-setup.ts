// One embedded Postgres per test run; a migrated template database that each test file clones. It lives in the run's
// folder and is stopped on any exit of the run, an interrupted one included (run-cleanup.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../db/embedded.ts';
import { migrate } from '../../db/migrate.ts';
import { cleanUpRun, ownFolder, ownPostgres, testRunRoot } from './run-cleanup.ts';

export const TEMPLATE = 'iam_template';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = await fs.mkdtemp(path.join(testRunRoot(), 'pg-'));
  ownFolder(project.tmpDir);
  await fs.chmod(dir, 0o711);
  const release = ownPostgres(path.join(dir, 'data'));
  const db = await startEmbeddedPostgres({ dir });
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE}`);
  await admin.end();
  await migrate(db.url.replace(/\/postgres$/, `/${TEMPLATE}`));
  project.provide('adminDatabaseUrl', db.url);
  // The first setup of the run: its teardown runs last, and removes the run's folder.
  return async () => {
    await db.stop();
    release();
    cleanUpRun();
  };
}

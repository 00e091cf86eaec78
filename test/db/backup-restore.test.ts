// db:backup / db:restore round trip: rows made through the API, backed up, restored into an empty database, compared
// table by table; a service started on the restored database answers the same GET with the restored credentials.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { dumpDatabase } from '../../db/backup/dump.ts';
import { readBackupHeader, restoreDatabase } from '../../db/backup/restore.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { createEmptyDatabase } from '../helpers/database.ts';
import { newEnvironments } from '../helpers/fixtures.ts';

const apps: TestApp[] = [];
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-backup-'));
afterAll(async () => {
  for (const app of apps.reverse()) await app.close();
  await fs.rm(dir, { recursive: true, force: true });
});

async function snapshot(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = (await client.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows;
    const counts: Record<string, number> = {};
    for (const { name } of tables) counts[name] = Number((await client.query(`SELECT count(*) AS n FROM public."${name}"`)).rows[0].n);
    const sample = async (sql: string) => (await client.query(sql)).rows;
    return {
      counts,
      events: await sample('SELECT * FROM events ORDER BY sequence'),
      tenants: await sample('SELECT * FROM tenants ORDER BY id'),
      users: await sample('SELECT * FROM users ORDER BY id'),
      sequence: (await client.query(`SELECT nextval(pg_get_serial_sequence('events', 'sequence')) AS n`)).rows[0].n as string,
    };
  } finally {
    await client.end();
  }
}

it('restores every row of a backup into an empty database, and a service on it answers the same', async () => {
  const t = await startTestApp();
  apps.push(t);
  const token = await t.token();
  const { tenantId, environmentIds } = await newEnvironments(t, token);
  const url = `/v1/tenants/${tenantId}/environments/${environmentIds[0]}/directory/users`;
  const created = await t.app.inject({ method: 'POST', url, headers: bearer(token), payload: { userName: 'ada@example.com', externalId: 'hr-1' } });
  expect(created.statusCode, created.body).toBe(201);
  const userUrl = `${url}/${created.json<{ user: { id: string } }>().user.id}`;
  const before = await t.app.inject({ method: 'GET', url: userUrl, headers: bearer(token) });
  expect(before.statusCode, before.body).toBe(200);

  const file = path.join(dir, 'backup.ndjson.gz');
  const { tables } = await dumpDatabase(t.databaseUrl, file);
  expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
  expect(await readBackupHeader(file)).toMatchObject({ format: 'iam-backup', version: 1, masterKey: null });
  const target = await createEmptyDatabase();
  const restored = await restoreDatabase(target, file);
  expect(restored.tables).toEqual(tables);

  const [a, b] = [await snapshot(t.databaseUrl), await snapshot(target)];
  expect(b.counts).toEqual(a.counts);
  expect(a.counts.events).toBeGreaterThan(0);
  expect(b.events).toEqual(a.events);
  expect(b.tenants).toEqual(a.tenants);
  expect(b.users).toEqual(a.users);
  // Sequences continue after the restored rows: a new event does not reuse a number.
  expect(BigInt(b.sequence)).toBeGreaterThan(BigInt(a.events.at(-1)!.sequence as string));

  await expect(restoreDatabase(target, file)).rejects.toThrow(/not empty.*--clean/);

  const t2 = await startTestApp({ DATA_DIR: t.config.dataDir, MASTER_KEY: t.masterKey.toString('hex') }, { databaseUrl: target });
  apps.push(t2);
  const after = await t2.app.inject({ method: 'GET', url: userUrl, headers: bearer(await t2.token()) });
  expect(after.statusCode, after.body).toBe(200);
  expect(after.json()).toEqual(before.json());
});

// db:backup: `pg_dump --format=custom` of the whole database (every schema: the service's tables and the embedded
// engine's `dbos`), one consistent snapshot while the service writes. The file is created 0600 before pg_dump
// writes into it: it holds every tenant's data.
import fs from 'node:fs/promises';
import { connection, run, type PgClient } from './client-process.ts';

export interface DumpResult {
  /** Tables whose rows the archive holds (its TABLE DATA entries: partitions counted one by one). */
  tables: number;
  bytes: number;
}

export async function dumpDatabase(databaseUrl: string, file: string, client: PgClient): Promise<DumpResult> {
  const { dbname, env } = connection(databaseUrl);
  const handle = await fs.open(file, 'w', 0o600);
  try {
    await handle.chmod(0o600); // a file that was there keeps its mode on open
    await run(client.pgDump, ['--format=custom', '--no-password', `--dbname=${dbname}`], { env, stdout: handle.fd });
  } catch (error) {
    await handle.close();
    await fs.rm(file, { force: true });
    throw error;
  }
  await handle.close();
  const list = await run(client.pgRestore, ['--list', file]);
  return { tables: list.split('\n').filter((line) => / TABLE DATA /.test(line)).length, bytes: (await fs.stat(file)).size };
}

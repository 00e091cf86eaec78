// `npm run db:restore <file> [--clean]`: pg_restore of a db:backup file into an empty database (DATABASE_URL or the
// embedded one, which must not be in use), then the migrations, then every table's row count (db/backup/restore.ts);
// --clean drops what the database holds first. A `<file>.master-key` beside it is written to DATA_DIR/master.key when
// neither MASTER_KEY nor that file is there; a different key stops the restore before it starts.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { serverMajor } from '../db/backup/queries.ts';
import { restoreDatabase } from '../db/backup/restore.ts';
import { loadConfig } from '../lib/config.ts';
import { loadMasterKey } from '../lib/crypto.ts';
import { databaseTarget } from './db-target.ts';
import { findOrInstallPgTools } from './pg-tools.ts';

async function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { clean: { type: 'boolean', default: false } } });
  const file = positionals[0];
  if (!file) throw new Error('usage: npm run db:restore -- <file> [--clean]');
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  const config = loadConfig();

  const backupKeyFile = `${file}.master-key`;
  const keyFile = path.join(config.dataDir, 'master.key');
  const backupKey = existsSync(backupKeyFile) ? Buffer.from((await fs.readFile(backupKeyFile, 'utf8')).trim(), 'hex') : undefined;
  if (backupKey && backupKey.length !== 32) throw new Error(`${backupKeyFile} is not a master key (64 hex characters)`);
  const have = config.masterKey || existsSync(keyFile) ? await loadMasterKey(config.masterKey, config.dataDir) : undefined;
  if (backupKey && have && !have.equals(backupKey))
    throw new Error(`${backupKeyFile} is not this service's master key (MASTER_KEY or DATA_DIR/master.key): use the matching key`);

  const target = await databaseTarget(config, 'restore');
  try {
    const tools = await findOrInstallPgTools(await serverMajor(target.url), { binDir: config.pgBinDir, log: (line) => console.log(line) });
    const { archived, applied, tables } = await restoreDatabase(target.url, file, tools, { clean: values.clean });
    console.log(`restored ${file} (pg_restore ${tools.version}), made at migration ${archived.at(-1)}`);
    console.log(applied.length ? `then applied ${applied.length} migrations: ${applied.join(', ')}` : 'no migration to apply');
    const width = Math.max(...Object.keys(tables).map((name) => name.length));
    for (const [name, rows] of Object.entries(tables)) console.log(`  ${name.padEnd(width)}  ${rows}`);
    console.log(`${Object.keys(tables).length} tables, ${Object.values(tables).reduce((a, b) => a + b, 0)} rows`);
  } finally {
    await target.release();
  }
  if (backupKey && !have) {
    await fs.mkdir(config.dataDir, { recursive: true });
    await fs.writeFile(keyFile, backupKey.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    console.log(`wrote the backup's master key to ${keyFile}`);
  } else if (!backupKey) console.log(`note: no ${backupKeyFile}: sealed secrets are readable only with the master key the backed-up service used`);
}

try {
  await main();
} catch (error) {
  console.error(`db:restore failed: ${(error as Error).message}`);
  process.exitCode = 1;
}

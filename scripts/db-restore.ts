// `npm run db:restore <file> [--clean]`: restores a db:backup file into an empty database (DATABASE_URL or the
// embedded one, which must not be in use); --clean drops what the database holds first. A master key in the file
// is written to DATA_DIR/master.key when neither MASTER_KEY nor that file is there; a different key stops the restore.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readBackupHeader, restoreDatabase } from '../db/backup/restore.ts';
import { loadConfig } from '../lib/config.ts';
import { loadMasterKey } from '../lib/crypto.ts';
import { databaseTarget } from './db-target.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { clean: { type: 'boolean', default: false } } });
const file = positionals[0];
if (!file) throw new Error('usage: npm run db:restore -- <file> [--clean]');
const config = loadConfig();
const header = await readBackupHeader(file);
const keyFile = path.join(config.dataDir, 'master.key');
if (header.masterKey) {
  const theirs = Buffer.from(header.masterKey, 'base64');
  const have = config.masterKey || existsSync(keyFile) ? await loadMasterKey(config.masterKey, config.dataDir) : undefined;
  if (have && !have.equals(theirs))
    throw new Error('the backup carries a master key different from this one (MASTER_KEY or DATA_DIR/master.key): use the matching key');
  if (!have) {
    await fs.mkdir(config.dataDir, { recursive: true });
    await fs.writeFile(keyFile, theirs.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    console.log(`wrote the backup's master key to ${keyFile}`);
  }
} else console.log(`note: ${header.masterKeyNote}`);
const target = await databaseTarget(config, 'restore');
try {
  const { tables } = await restoreDatabase(target.url, file, { clean: values.clean });
  const rows = Object.values(tables).reduce((a, b) => a + b, 0);
  console.log(`restored ${file} (made ${header.createdAt}): ${Object.keys(tables).length} tables, ${rows} rows`);
} finally {
  await target.release();
}

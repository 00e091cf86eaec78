// `npm run db:backup [file] [--include-master-key]`: `pg_dump --format=custom` of the service's database
// (db/backup/dump.ts) to `file` (default ./iam-backup-<UTC timestamp>.dump), mode 0600. The master key is not in
// it; --include-master-key writes it beside it, to `<file>.master-key` (mode 0600), which db:restore picks up.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { dumpDatabase } from '../db/backup/dump.ts';
import { serverMajor } from '../db/backup/queries.ts';
import { loadConfig } from '../lib/config.ts';
import { loadMasterKey } from '../lib/crypto.ts';
import { databaseTarget } from './db-target.ts';
import { findOrInstallPgTools } from './pg-tools.ts';

async function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'include-master-key': { type: 'boolean', default: false } } });
  const file = positionals[0] ?? `iam-backup-${new Date().toISOString().replace(/[-:]|\.\d+/g, '')}.dump`;
  const config = loadConfig();
  if (values['include-master-key'] && !config.masterKey && !existsSync(path.join(config.dataDir, 'master.key')))
    throw new Error('--include-master-key: neither MASTER_KEY nor DATA_DIR/master.key is set here, so there is no key to include');
  const target = await databaseTarget(config, 'backup');
  try {
    const tools = await findOrInstallPgTools(await serverMajor(target.url), { binDir: config.pgBinDir, log: (line) => console.log(line) });
    const { tables, bytes } = await dumpDatabase(target.url, file, tools);
    console.log(`wrote ${file} (pg_dump ${tools.version}, custom format, ${(bytes / 1_048_576).toFixed(1)} MiB): ${tables} tables' data`);
  } finally {
    await target.release();
  }
  if (values['include-master-key']) {
    const keyFile = `${file}.master-key`;
    const key = await loadMasterKey(config.masterKey, config.dataDir);
    await fs.writeFile(keyFile, key.toString('hex') + '\n', { mode: 0o600 });
    await fs.chmod(keyFile, 0o600);
    console.log(`wrote the master key to ${keyFile}: keep it as secret as the key, and apart from the backup if you can`);
  } else console.log('the master key is NOT in the backup: keep MASTER_KEY or DATA_DIR/master.key, sealed secrets need it after a restore');
}

try {
  await main();
} catch (error) {
  console.error(`db:backup failed: ${(error as Error).message}`);
  process.exitCode = 1;
}

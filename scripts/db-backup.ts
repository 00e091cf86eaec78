// `npm run db:backup [file] [--include-master-key]`: a logical backup of the service's database (db/backup/dump.ts)
// to `file` (default ./iam-backup-<UTC timestamp>.ndjson.gz), mode 0600. The master key is left out unless asked.
import { parseArgs } from 'node:util';
import { dumpDatabase } from '../db/backup/dump.ts';
import { loadConfig } from '../lib/config.ts';
import { loadMasterKey } from '../lib/crypto.ts';
import { databaseTarget } from './db-target.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'include-master-key': { type: 'boolean', default: false } } });
const file = positionals[0] ?? `iam-backup-${new Date().toISOString().replace(/[-:]|\.\d+/g, '')}.ndjson.gz`;
const config = loadConfig();
const target = await databaseTarget(config, 'backup');
try {
  const masterKey = values['include-master-key'] ? await loadMasterKey(config.masterKey, config.dataDir) : undefined;
  const { tables } = await dumpDatabase(target.url, file, { masterKey });
  const rows = Object.values(tables).reduce((a, b) => a + b, 0);
  console.log(`wrote ${file}: ${Object.keys(tables).length} tables, ${rows} rows`);
  console.log(
    masterKey
      ? 'the master key is IN this file: keep the file as secret as the key'
      : 'the master key is NOT in this file: keep MASTER_KEY or DATA_DIR/master.key with it, sealed secrets need it after a restore',
  );
} finally {
  await target.release();
}

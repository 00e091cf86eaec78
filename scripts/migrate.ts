// `npm run db:migrate`: apply pending migrations and exit (DATABASE_URL, or the embedded database in DATA_DIR).
import path from 'node:path';
import { loadConfig } from '../lib/config.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';

const config = loadConfig();
const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dir: path.join(config.dataDir, 'pg') });
try {
  const { applied } = await migrate(config.databaseUrl ?? embedded!.url);
  console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
} finally {
  await embedded?.stop();
}

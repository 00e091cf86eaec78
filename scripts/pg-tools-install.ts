// `npm run pg-tools:install`: finds a pg_dump and pg_restore at least as new as the server (DATABASE_URL's, else the
// embedded Postgres's version) in PG_BIN_DIR, .pg-tools/ or PATH, or installs Debian's into the git-ignored
// .pg-tools/ (scripts/pg-tools.ts), and prints where they are.
import { serverMajor } from '../db/backup/queries.ts';
import { loadConfig } from '../lib/config.ts';
import { embeddedMajor, findOrInstallPgTools } from './pg-tools.ts';

const config = loadConfig();
try {
  const major = config.databaseUrl ? await serverMajor(config.databaseUrl) : embeddedMajor();
  const tools = await findOrInstallPgTools(major, { binDir: config.pgBinDir, log: (line) => console.log(line) });
  console.log(`pg_dump ${tools.version} (from ${tools.from}): ${tools.pgDump}`);
  console.log(`pg_restore: ${tools.pgRestore}`);
} catch (error) {
  console.error(`PostgreSQL client not available: ${(error as Error).message}`);
  process.exit(1);
}

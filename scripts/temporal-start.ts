// `npm run temporal:start`: a local Temporal server (`temporal server start-dev`) for PROCESS_ENGINE=temporal,
// with its data in DATA_DIR/temporal.db (default ./.data), gRPC on TEMPORAL_PORT (default 7233), the Web UI on
// 8233 and the project's search attributes registered. Installs the CLI first if needed. Ctrl-C stops it.
import fs from 'node:fs';
import path from 'node:path';
import { findOrInstallTemporal, startDevServer } from './temporal-cli.ts';

const dataDir = path.resolve(process.env.DATA_DIR || './.data');
fs.mkdirSync(dataDir, { recursive: true });
let cli: string;
try {
  cli = findOrInstallTemporal((line) => console.log(line));
} catch (error) {
  console.error(`Temporal CLI not available: ${(error as Error).message}`);
  process.exit(1);
}
const server = await startDevServer({
  cli,
  port: Number(process.env.TEMPORAL_PORT || 7233),
  uiPort: 8233,
  dbFilename: path.join(dataDir, 'temporal.db'),
  output: 'inherit',
});
console.log(`Temporal server at ${server.address} (namespace ${server.namespace}), Web UI at ${server.uiUrl}; data in ${path.join(dataDir, 'temporal.db')}`);
console.log(`Run the API and worker with PROCESS_ENGINE=temporal TEMPORAL_ADDRESS=${server.address}. Ctrl-C stops the server.`);
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopping = true;
    void server.stop().then(() => process.exit(0));
  });
}
// Ctrl-C in a terminal signals the server too: its exit then is the stop asked for, not a failure.
server.process.once('exit', (code) => process.exit(stopping ? 0 : (code ?? 1)));

// Runs pg_dump or pg_restore against a postgres:// URL. The password goes in PGPASSWORD, not in the arguments
// (which other users of the machine can read in `ps`).
import { spawn, type StdioOptions } from 'node:child_process';

/** The pg_dump and pg_restore to run (scripts/pg-tools.ts finds or installs them). */
export interface PgClient {
  pgDump: string;
  pgRestore: string;
}

/** `--dbname` (the URL without its password) and the environment carrying the password. */
export function connection(databaseUrl: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return { dbname: url.toString(), env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) } };
}

/** Runs the command to its end; resolves with its standard output (when piped), rejects with its last error lines. */
export function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; stdout?: number } = {}): Promise<string> {
  const stdio: StdioOptions = ['ignore', options.stdout ?? 'pipe', 'pipe'];
  const child = spawn(command, args, { env: options.env ?? process.env, stdio });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-8000)));
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`${command} did not start: ${error.message}`)));
    child.once('close', (code, signal) => {
      if (code === 0) return resolve(stdout);
      const lines = stderr.trim().split('\n').filter(Boolean).slice(-3).join(' / ');
      reject(new Error(`${command.split('/').at(-1)} failed (${signal ?? `exit ${code}`}): ${lines || 'no output'}`));
    });
  });
}

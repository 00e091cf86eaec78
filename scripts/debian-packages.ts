// Debian's archive as the source of a program the host's own release has too old (scripts/pg-tools.ts: a PostgreSQL
// client): a suite's InRelease checked with gpgv against the Debian archive keyring, the Packages index checked
// against the InRelease (SHA256 and size), every .deb against the index, then extracted with dpkg-deb (or, without
// dpkg-deb, its ar container read here and its data member unpacked by tar). Nothing is installed system-wide.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

export const DEBIAN_MIRROR = 'https://deb.debian.org/debian';
export const DEBIAN_KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg';

export interface DebianPackage {
  name: string;
  version: string;
  /** Its path on the mirror, from the index. */
  filename: string;
  sha256: string;
  size: number;
  /** Depends and Pre-Depends: each entry lists alternatives, package names without version or architecture. */
  depends: string[][];
  provides: string[];
  suite: string;
}

export interface SuiteIndex {
  suite: string;
  /** How the index is known to be Debian's: the InRelease signature, or only HTTPS to the mirror (see release()). */
  verifiedBy: string;
  packages: Map<string, DebianPackage>;
}

const fetchBytes = async (url: string): Promise<Buffer> => {
  const response = await fetch(url, { signal: AbortSignal.timeout(120_000) });
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
};

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * The suite's Release text, from InRelease whose signature gpgv checks against the Debian archive keyring: a bad
 * signature stops; without gpgv, the keyring or a key in it that signed, the text is taken on HTTPS's word and
 * `verifiedBy` says so, as it says a Release past its Valid-Until.
 */
async function release(suite: string, temp: string): Promise<{ text: string; verifiedBy: string }> {
  const signed = path.join(temp, `${suite}.InRelease`);
  await fs.writeFile(signed, await fetchBytes(`${DEBIAN_MIRROR}/dists/${suite}/InRelease`));
  const plain = path.join(temp, `${suite}.Release`);
  let verifiedBy: string;
  const gpgv = existsSync(DEBIAN_KEYRING)
    ? spawnSync('gpgv', ['--status-fd', '1', '--keyring', DEBIAN_KEYRING, '--output', plain, signed], { encoding: 'utf8' })
    : undefined;
  const status = gpgv?.stdout ?? '';
  if (/^\[GNUPG:\] (BADSIG|EXPSIG|REVKEYSIG)/m.test(status)) throw new Error(`the signature of ${DEBIAN_MIRROR}/dists/${suite}/InRelease is bad`);
  const good = [...status.matchAll(/^\[GNUPG:\] VALIDSIG (\w+)/gm)].map((m) => m[1]);
  if (good.length && existsSync(plain)) verifiedBy = `InRelease signed by ${good.join(', ')} (gpgv, ${DEBIAN_KEYRING})`;
  else {
    // The clear-signed text between the armour lines, dash-escaping undone: read, not verified.
    const raw = await fs.readFile(signed, 'utf8');
    const body = /-----BEGIN PGP SIGNED MESSAGE-----\r?\n(?:.+\r?\n)*?\r?\n([\s\S]*?)\r?\n-----BEGIN PGP SIGNATURE-----/.exec(raw)?.[1];
    if (body === undefined) throw new Error(`${DEBIAN_MIRROR}/dists/${suite}/InRelease is not a clear-signed Release file`);
    await fs.writeFile(plain, body.replace(/^- /gm, '') + '\n');
    const why = !existsSync(DEBIAN_KEYRING) ? `no ${DEBIAN_KEYRING}` : gpgv?.error ? 'no gpgv' : 'no signing key of it in the keyring';
    verifiedBy = `HTTPS to ${new URL(DEBIAN_MIRROR).host} only (signature not checked: ${why})`;
  }
  const text = await fs.readFile(plain, 'utf8');
  // apt refuses a Release past its Valid-Until (an old index replayed); a mirror that stopped syncing has one too,
  // and its packages are still Debian's (their SHA256 is checked): said, not refused.
  const validUntil = /^Valid-Until: (.+)$/m.exec(text)?.[1];
  if (validUntil && Date.parse(validUntil) < Date.now()) verifiedBy += `; but this Release expired on ${validUntil} (a mirror that stopped syncing?)`;
  return { text, verifiedBy };
}

/** `Field: value` stanzas separated by blank lines; continuation lines (leading space) are dropped. */
function* stanzas(text: string): Generator<Map<string, string>> {
  for (const block of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      const match = /^([\w-]+):\s*(.*)$/.exec(line);
      if (match) fields.set(match[1]!, match[2]!);
    }
    if (fields.size) yield fields;
  }
}

const names = (list: string | undefined) =>
  (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const bareName = (entry: string) => entry.trim().split(/[\s(:]/)[0]!;

/** The suite's main/binary-<arch> Packages index, checked against its Release (SHA256 and size). */
export async function suiteIndex(suite: string, arch: string): Promise<SuiteIndex> {
  const temp = await fs.mkdtemp(path.join(os.tmpdir(), 'debian-index-'));
  try {
    const { text, verifiedBy } = await release(suite, temp);
    const sums = new Map<string, { sha256: string; size: number }>();
    const section = /^SHA256:\n((?: .*\n?)*)/m.exec(text)?.[1] ?? '';
    for (const line of section.split('\n')) {
      const [hash, size, name] = line.trim().split(/\s+/);
      if (hash && size && name) sums.set(name, { sha256: hash, size: Number(size) });
    }
    // Node reads gzip itself; an index published only as .xz goes through the xz command.
    const candidates = [`main/binary-${arch}/Packages.gz`, `main/binary-${arch}/Packages.xz`];
    const name = candidates.find((c) => sums.has(c));
    if (!name) throw new Error(`the ${suite} Release lists no ${candidates.join(' or ')}`);
    const compressed = await fetchBytes(`${DEBIAN_MIRROR}/dists/${suite}/${name}`);
    const expected = sums.get(name)!;
    if (compressed.length !== expected.size || sha256(compressed) !== expected.sha256)
      throw new Error(`${DEBIAN_MIRROR}/dists/${suite}/${name} does not match the SHA256 its Release lists`);
    let index: string;
    if (name.endsWith('.gz')) index = gunzipSync(compressed).toString('utf8');
    else {
      const xz = spawnSync('xz', ['-dc'], { input: compressed, maxBuffer: 1 << 30 });
      if (xz.error || xz.status !== 0) throw new Error(`xz -dc ${name} failed: ${xz.error?.message ?? xz.stderr.toString().trim()}`);
      index = xz.stdout.toString('utf8');
    }
    const packages = new Map<string, DebianPackage>();
    for (const f of stanzas(index)) {
      const pkg: DebianPackage = {
        name: f.get('Package') ?? '',
        version: f.get('Version') ?? '',
        filename: f.get('Filename') ?? '',
        sha256: f.get('SHA256') ?? '',
        size: Number(f.get('Size')),
        depends: [...names(f.get('Pre-Depends')), ...names(f.get('Depends'))].map((group) => group.split('|').map(bareName)),
        provides: names(f.get('Provides')).map(bareName),
        suite,
      };
      if (pkg.name && pkg.filename && pkg.sha256 && !packages.has(pkg.name)) packages.set(pkg.name, pkg);
    }
    return { suite, verifiedBy, packages };
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
}

/**
 * `roots` and every package they depend on, recursively, as far as `follow` admits (the shared libraries, not
 * the maintainer scripts' helpers); for an alternative, the first that the index has (or that one of its packages
 * provides). Packages of an earlier index win over a later one's (a backports suite over its base suite).
 */
export function dependencyClosure(indexes: SuiteIndex[], roots: string[], follow: (name: string) => boolean): DebianPackage[] {
  const byName = new Map<string, DebianPackage>();
  const providers = new Map<string, DebianPackage>();
  for (const { packages } of [...indexes].reverse())
    for (const pkg of packages.values()) {
      byName.set(pkg.name, pkg);
      for (const virtual of pkg.provides) providers.set(virtual, pkg);
    }
  const lookUp = (name: string) => byName.get(name) ?? providers.get(name);
  const chosen = new Map<string, DebianPackage>();
  const visit = (name: string) => {
    const pkg = lookUp(name);
    if (!pkg) throw new Error(`${name} is in none of ${indexes.map((i) => i.suite).join(', ')}`);
    if (chosen.has(pkg.name)) return;
    chosen.set(pkg.name, pkg);
    for (const alternatives of pkg.depends) {
      const pick = alternatives.find((a) => lookUp(a));
      if (pick && follow(lookUp(pick)!.name)) visit(pick);
    }
  };
  for (const root of roots) visit(root);
  return [...chosen.values()];
}

/** Downloads the .deb into `dir` and checks it against the index's SHA256 and size. */
export async function downloadPackage(pkg: DebianPackage, dir: string): Promise<string> {
  const bytes = await fetchBytes(`${DEBIAN_MIRROR}/${pkg.filename}`);
  if (bytes.length !== pkg.size || sha256(bytes) !== pkg.sha256) throw new Error(`${pkg.filename} does not match the SHA256 the ${pkg.suite} index lists`);
  const file = path.join(dir, path.basename(pkg.filename));
  await fs.writeFile(file, bytes);
  return file;
}

/** Unpacks the .deb's files under `root` (its maintainer scripts do not run). */
export async function extractPackage(deb: string, root: string): Promise<void> {
  const dpkg = spawnSync('dpkg-deb', ['-x', deb, root], { encoding: 'utf8' });
  if (!dpkg.error) {
    if (dpkg.status !== 0) throw new Error(`dpkg-deb -x ${path.basename(deb)} failed: ${dpkg.stderr.trim()}`);
    return;
  }
  const member = arMember(await fs.readFile(deb), /^data\.tar(\.\w+)?$/);
  const tarball = `${deb}.${member.name}`;
  await fs.writeFile(tarball, member.data);
  // tar recognises the member's compression (xz, zstd, gzip) by its content.
  const tar = spawnSync('tar', ['-xf', tarball, '-C', root], { encoding: 'utf8' });
  await fs.rm(tarball, { force: true });
  if (tar.error || tar.status !== 0) throw new Error(`tar -xf ${member.name} of ${path.basename(deb)} failed: ${tar.error?.message ?? tar.stderr.trim()}`);
}

/** The first member of an ar archive (a .deb's container) whose name matches. */
export function arMember(archive: Buffer, name: RegExp): { name: string; data: Buffer } {
  if (archive.subarray(0, 8).toString('latin1') !== '!<arch>\n') throw new Error('not an ar archive');
  for (let offset = 8; offset + 60 <= archive.length;) {
    const header = archive.subarray(offset, offset + 60).toString('latin1');
    const memberName = header.slice(0, 16).trim().replace(/\/$/, '');
    const size = Number(header.slice(48, 58).trim());
    const start = offset + 60;
    if (name.test(memberName)) return { name: memberName, data: archive.subarray(start, start + size) };
    offset = start + size + (size % 2);
  }
  throw new Error(`no member matching ${name} in the ar archive`);
}

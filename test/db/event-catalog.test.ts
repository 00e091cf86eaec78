// The event catalog cannot drift from the code: every type the source emits is catalogued (a static scan),
// and recordChange refuses a type missing from the catalog or data that does not match it (at run time,
// so every test that exercises a mutation fails on an uncatalogued event).
import fs from 'node:fs/promises';
import path from 'node:path';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCatalog, EVENT_CATALOG, eventTypeSchema, isKnownEventType } from '../../db/event-catalog.ts';
import { recordChange, type Change } from '../../db/shared/changes.ts';
import { createDatabasePool } from '../../db/pool.ts';
import { createTestDatabase } from '../helpers/database.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCES = ['api', 'activities', 'worker', 'db'];

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((e) => {
      const full = path.join(dir, e.name);
      return e.isDirectory() ? sourceFiles(full) : Promise.resolve(/\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : []);
    }),
  );
  return nested.flat();
}

// Where code names the type of an event it emits: `event: { type: '…' }`, `event: { type: \`…\` }`, and
// `event: '…'` (a table of changes recorded in a loop, as the bootstrap does).
const PATTERNS = [/\bevent:\s*\{\s*type:\s*'([^']+)'/g, /\bevent:\s*\{\s*type:\s*`([^`]+)`/g, /\bevent:\s*'([^']+)'/g];

async function emittedTypes() {
  const found: { file: string; literal: string }[] = [];
  for (const file of (await Promise.all(SOURCES.map((s) => sourceFiles(path.join(ROOT, s))))).flat()) {
    const text = await fs.readFile(file, 'utf8');
    for (const pattern of PATTERNS) {
      for (const match of text.matchAll(pattern)) found.push({ file: path.relative(ROOT, file), literal: match[1]! });
    }
  }
  return found;
}

describe('the event catalog', () => {
  it('lists every event type the source emits', async () => {
    const found = await emittedTypes();
    expect(found.length).toBeGreaterThan(10);
    const missing = found.filter(({ literal }) => {
      // A template literal is checked by its fixed prefix: some catalogued type must start with it.
      const prefix = literal.split('${')[0]!;
      return literal.includes('${') ? !Object.keys(EVENT_CATALOG).some((type) => type.startsWith(prefix)) : !isKnownEventType(literal);
    });
    expect(missing).toEqual([]);
  });

  it('names types `<resource>.<past verb>`, describes each, and publishes a JSON Schema of each data', () => {
    for (const [type, entry] of Object.entries(EVENT_CATALOG)) {
      expect(type).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
      expect(entry.description).toMatch(/^[A-Z].*\.$/);
    }
    const described = describeCatalog();
    expect(described.map((d) => d.type)).toEqual(Object.keys(EVENT_CATALOG).sort());
    for (const d of described) expect(d.schema, d.type).toMatchObject({ type: 'object' });
    expect(isKnownEventType('toString')).toBe(false);
    expect(eventTypeSchema('tenant.nope')).toBeUndefined();
  });
});

describe('recordChange', () => {
  let pool: DatabasePool;
  beforeAll(async () => {
    pool = await createDatabasePool(await createTestDatabase(), { maxPoolSize: 2 });
  });
  afterAll(() => pool.end());

  const change = (event: Change['event']): Change => ({
    actor: { type: 'system', id: 'test' },
    action: 'test.record',
    resource: { type: 'test', id: null },
    scope: {},
    event,
  });
  const count = () =>
    pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT ((SELECT count(*) FROM events) + (SELECT count(*) FROM audit_logs))::int AS n`);

  it('records a catalogued event with matching data, with its audit entry', async () => {
    const before = await count();
    const { eventId } = await pool.transaction((trx) => recordChange(trx, change({ type: 'signing_key.rotated', data: { kid: 'k1' } })));
    expect(eventId).toEqual(expect.any(String));
    expect(await count()).toBe(before + 2);
  });

  it('refuses a type missing from the catalog, and data that does not match it, writing nothing', async () => {
    const before = await count();
    await expect(pool.transaction((trx) => recordChange(trx, change({ type: 'tenant.renamed', data: {} })))).rejects.toThrow(
      'event type tenant.renamed is not in the event catalog',
    );
    await expect(pool.transaction((trx) => recordChange(trx, change({ type: 'tenant.created', data: { tenant: { id: 'x' } } })))).rejects.toThrow(
      /^event data of tenant\.created does not match the catalog: tenant\.id: Invalid UUID/,
    );
    await expect(pool.transaction((trx) => recordChange(trx, change({ type: 'webhook.test', data: { text: 'hi' } })))).rejects.toThrow(
      'event data of webhook.test does not match the catalog: message: Invalid input: expected string, received undefined',
    );
    expect(await count()).toBe(before);
  });
});

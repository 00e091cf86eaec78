// The event catalog cannot drift from the code. At compile time, recordChange takes only catalogued types with
// the data of their type. Here, a static scan finds each type's emitter as a whole literal (an event object
// `{ type: '…', data }`, or a value of an `EVENT_OF` map of verbs to types), so a type nobody emits any more
// fails; each family's events.ts declares its types once and is assembled into the catalog; and at run time
// recordChange refuses data that does not match the schema of its type.
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
/** The files that declare event types (db/event-catalog.ts and the events.ts of each family under db/), not emit them. */
const isCatalogFile = (file: string) => file === 'db/event-catalog.ts' || (file.startsWith('db/') && file.endsWith('/events.ts'));

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

/** The text without its comments, so that an emitter commented out does not count. */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');

// Where code names the type of an event it emits: an event object `{ type: '…', data … }`, or the values of a
// `const EVENT_OF = { verb: '…' } as const satisfies Record<…, EventType>` map.
const EVENT_OBJECT = /\{\s*type:\s*'([^']+)',\s*data\b/g;
const EVENT_MAP = /\bEVENT_OF\s*=\s*\{([^}]*)\}\s*as const satisfies Record<[^>]*\bEventType>/g;

async function scan() {
  const emitted: { file: string; type: string }[] = [];
  const declared: { file: string; type: string }[] = [];
  const templates: string[] = [];
  for (const full of (await Promise.all(SOURCES.map((s) => sourceFiles(path.join(ROOT, s))))).flat()) {
    const file = path.relative(ROOT, full);
    const text = await fs.readFile(full, 'utf8');
    const code = withoutComments(text);
    if (isCatalogFile(file)) {
      for (const m of code.matchAll(/^ {2}'([^']+)':/gm)) declared.push({ file, type: m[1]! });
      continue;
    }
    for (const m of code.matchAll(EVENT_OBJECT)) emitted.push({ file, type: m[1]! });
    for (const m of code.matchAll(EVENT_MAP)) for (const v of m[1]!.matchAll(/:\s*'([^']+)'/g)) emitted.push({ file, type: v[1]! });
    // An event type built from a template literal (`organization.${verb}d`) cannot be found by its name.
    if (/\btype:\s*`/.test(text)) templates.push(file);
  }
  return { emitted, declared, templates };
}

describe('the event catalog', () => {
  it('has an emitter for every type, each naming its type as a whole literal, and only catalogued types', async () => {
    const { emitted, templates } = await scan();
    const types = new Set(emitted.map((e) => e.type));
    expect(Object.keys(EVENT_CATALOG).filter((type) => !types.has(type))).toEqual([]);
    expect(emitted.filter(({ type }) => !isKnownEventType(type))).toEqual([]);
    expect(templates).toEqual([]);
  });

  it('is assembled from the events.ts of each family, each type declared once', async () => {
    const { declared } = await scan();
    const families = declared.filter((d) => d.file !== 'db/event-catalog.ts');
    expect(families.map((d) => d.type).sort()).toEqual(Object.keys(EVENT_CATALOG).sort());
    expect(new Set(families.map((d) => d.file)).size).toBeGreaterThan(5);
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
    // Each of these fails `tsc` too (hence the directives): recordChange checks again at run time.
    // @ts-expect-error an uncatalogued type
    await expect(pool.transaction((trx) => recordChange(trx, change({ type: 'tenant.renamed', data: {} })))).rejects.toThrow(
      'event type tenant.renamed is not in the event catalog',
    );
    // @ts-expect-error data of another shape than its type's
    await expect(pool.transaction((trx) => recordChange(trx, change({ type: 'tenant.created', data: { tenant: { id: 'x' } } })))).rejects.toThrow(
      /^event data of tenant\.created does not match the catalog: tenant\.id: Invalid UUID/,
    );
    // @ts-expect-error data of another shape than its type's
    await expect(pool.transaction((trx) => recordChange(trx, change({ type: 'webhook.test', data: { text: 'hi' } })))).rejects.toThrow(
      'event data of webhook.test does not match the catalog: message: Invalid input: expected string, received undefined',
    );
    expect(await count()).toBe(before);
  });
});

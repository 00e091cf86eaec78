import { describe, expect, it } from 'vitest';
import { batchCheck, check } from '../../../lib/fga/check.ts';
import { expand } from '../../../lib/fga/expand.ts';
import { listObjects } from '../../../lib/fga/list-objects.ts';
import { listUsers } from '../../../lib/fga/list-users.ts';
import { compileModel, parseModelDsl } from '../../../lib/fga/model.ts';
import { FGA_LIMITS } from '../../../lib/fga/types.ts';
import { MemoryReader } from '../../helpers/fga-memory-reader.ts';

const hierarchy = compileModel(
  await parseModelDsl(`model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member]
type folder
  relations
    define parent: [folder]
    define viewer: [user, group#member] or viewer from parent
type document
  relations
    define parent: [folder]
    define editor: [user]
    define viewer: [user] or editor or viewer from parent
`),
);

describe('check', () => {
  it('answers the granting path from the checked object to the user', async () => {
    const reader = new MemoryReader(['document:1#parent@folder:x', 'folder:x#viewer@group:eng#member', 'group:eng#member@user:anne']);
    expect(await check(hierarchy, reader, { user: 'user:anne', relation: 'viewer', object: 'document:1' })).toEqual({
      allowed: true,
      path: ['document:1#viewer', 'folder:x#viewer', 'group:eng#member', 'user:anne'],
    });
    expect(await check(hierarchy, reader, { user: 'user:bob', relation: 'viewer', object: 'document:1' })).toEqual({ allowed: false, path: null });
  });

  it('names computed relations in the path', async () => {
    const reader = new MemoryReader(['document:1#editor@user:anne']);
    expect((await check(hierarchy, reader, { user: 'user:anne', relation: 'viewer', object: 'document:1' })).path).toEqual([
      'document:1#viewer',
      'document:1#editor',
      'user:anne',
    ]);
  });

  it('reads a 3-level hierarchy in batched calls: one per step, every pending object of a type at once', async () => {
    const tuples = ['folder:a#viewer@user:anne'];
    // Each document has three parents, each folder two more levels of three parents: 1 + 3 + 9 + 27 objects.
    for (let i = 0; i < 3; i++) {
      tuples.push(`document:1#parent@folder:p${i}`);
      for (let j = 0; j < 3; j++) {
        tuples.push(`folder:p${i}#parent@folder:p${i}${j}`);
        for (let k = 0; k < 3; k++) tuples.push(`folder:p${i}${j}#parent@folder:p${i}${j}${k}`);
      }
    }
    tuples.push('folder:p222#parent@folder:a');
    const reader = new MemoryReader(tuples);
    expect((await check(hierarchy, reader, { user: 'user:anne', relation: 'viewer', object: 'document:1' })).allowed).toBe(true);
    // One call per level (the document; three levels of folders; the folder that grants): its direct tuples and
    // parents of every object of the level together.
    expect(reader.totalCalls).toBe(5);
    expect(reader.log.map((c) => c.ids!.length)).toEqual([1, 3, 9, 27, 1]);
    const folderReads = reader.log.filter((c) => c.objectType === 'folder');
    expect(Math.max(...folderReads.map((c) => c.ids!.length))).toBeGreaterThanOrEqual(9);
  });

  it('short-circuits a union at a direct grant', async () => {
    const reader = new MemoryReader(['document:1#viewer@user:anne', 'document:1#parent@folder:x']);
    await check(hierarchy, reader, { user: 'user:anne', relation: 'viewer', object: 'document:1' });
    expect(reader.log.some((c) => c.objectType === 'folder')).toBe(false);
  });

  it('does not look up relations the subject cannot hold', async () => {
    const reader = new MemoryReader(['document:1#parent@folder:x']);
    expect((await check(hierarchy, reader, { user: 'group:eng', relation: 'viewer', object: 'document:1' })).allowed).toBe(false);
    expect(reader.totalCalls).toBe(0);
  });

  it('refuses unknown types and relations and malformed users', async () => {
    const reader = new MemoryReader();
    await expect(check(hierarchy, reader, { user: 'user:anne', relation: 'nope', object: 'document:1' })).rejects.toMatchObject({ code: 'relation_not_found' });
    await expect(check(hierarchy, reader, { user: 'user:anne', relation: 'viewer', object: 'nope:1' })).rejects.toMatchObject({ code: 'type_not_found' });
    await expect(check(hierarchy, reader, { user: 'robot:r', relation: 'viewer', object: 'document:1' })).rejects.toMatchObject({ code: 'type_not_found' });
    await expect(check(hierarchy, reader, { user: 'anne', relation: 'viewer', object: 'document:1' })).rejects.toMatchObject({ code: 'validation_error' });
  });

  it('validates contextual tuples like written ones', async () => {
    const reader = new MemoryReader();
    await expect(
      check(hierarchy, reader, {
        user: 'user:anne',
        relation: 'viewer',
        object: 'document:1',
        contextualTuples: [{ user: 'group:eng#member', relation: 'editor', object: 'document:1' }],
      }),
    ).rejects.toMatchObject({ code: 'invalid_tuple', message: expect.stringMatching(/^Invalid tuple 'document:1#editor@group:eng#member'/) });
    const many = Array.from({ length: FGA_LIMITS.contextualTuples + 1 }, (_, i) => ({ user: 'user:anne', relation: 'editor', object: `document:${i}` }));
    await expect(check(hierarchy, reader, { user: 'user:anne', relation: 'viewer', object: 'document:1', contextualTuples: many })).rejects.toMatchObject({
      code: 'validation_error',
    });
  });

  it('evaluates ipaddress conditions with in_cidr', async () => {
    const model = compileModel(
      await parseModelDsl(`model
  schema 1.1
type user
type document
  relations
    define viewer: [user with office]
condition office(ip: ipaddress, cidr: string) {
  ip.in_cidr(cidr)
}
`),
    );
    const reader = new MemoryReader([
      { user: 'user:anne', relation: 'viewer', object: 'document:1', condition: { name: 'office', context: { cidr: '10.0.0.0/8' } } },
    ]);
    const at = (ip: string) => check(model, reader, { user: 'user:anne', relation: 'viewer', object: 'document:1', context: { ip } });
    expect((await at('10.1.2.3')).allowed).toBe(true);
    expect((await at('192.168.0.1')).allowed).toBe(false);
    expect((await at('::ffff:10.1.2.3')).allowed).toBe(true);
    await expect(at('not-an-ip')).rejects.toMatchObject({ code: 'condition_evaluation_error', message: expect.stringContaining("parameter 'ip'") });
  });

  it('names the condition and every missing parameter', async () => {
    const model = compileModel(
      await parseModelDsl(`model
  schema 1.1
type user
type document
  relations
    define viewer: [user with window]
condition window(now: timestamp, from: timestamp, length: duration) {
  now >= from && now < from + length
}
`),
    );
    const reader = new MemoryReader([
      { user: 'user:anne', relation: 'viewer', object: 'document:1', condition: { name: 'window', context: { length: '1h30m' } } },
    ]);
    await expect(check(model, reader, { user: 'user:anne', relation: 'viewer', object: 'document:1' })).rejects.toMatchObject({
      code: 'condition_missing_parameters',
      message: expect.stringMatching(/condition 'window'.*missing context parameters 'from, now'/),
    });
    const inside = await check(model, reader, {
      user: 'user:anne',
      relation: 'viewer',
      object: 'document:1',
      context: { now: '2024-05-01T11:00:00+02:00', from: '2024-05-01T08:00:00Z' },
    });
    expect(inside.allowed).toBe(true);
  });
});

describe('expand', () => {
  it('answers one level of the userset tree in OpenFGA shape', async () => {
    const reader = new MemoryReader(['document:1#viewer@user:anne', 'document:1#viewer@group:eng#member', 'document:1#parent@folder:x']);
    const tree = await expand(hierarchy, reader, { object: 'document:1', relation: 'viewer' });
    expect(tree).toEqual({
      root: {
        name: 'document:1#viewer',
        union: {
          nodes: [
            { name: 'document:1#viewer', leaf: { users: { users: ['user:anne', 'group:eng#member'] } } },
            { name: 'document:1#viewer', leaf: { computed: { userset: 'document:1#editor' } } },
            { name: 'document:1#viewer', leaf: { tupleToUserset: { tupleset: 'document:1#parent', computed: [{ userset: 'folder:x#viewer' }] } } },
          ],
        },
      },
    });
  });

  it('shows intersections and exclusions', async () => {
    const model = compileModel(
      await parseModelDsl(`model
  schema 1.1
type user
type document
  relations
    define a: [user]
    define b: [user]
    define both: a and b
    define a_not_b: a but not b
`),
    );
    const reader = new MemoryReader();
    expect((await expand(model, reader, { object: 'document:1', relation: 'both' })).root.intersection!.nodes).toHaveLength(2);
    expect((await expand(model, reader, { object: 'document:1', relation: 'a_not_b' })).root.difference).toEqual({
      base: { name: 'document:1#a_not_b', leaf: { computed: { userset: 'document:1#a' } } },
      subtract: { name: 'document:1#a_not_b', leaf: { computed: { userset: 'document:1#b' } } },
    });
  });
});

describe('list-objects and list-users', () => {
  it('list-objects walks the reverse index, stops at the limit and streams each object', async () => {
    const tuples = ['group:eng#member@user:anne'];
    for (let i = 0; i < 50; i++) tuples.push(`folder:f${i}#viewer@group:eng#member`, `document:d${i}#parent@folder:f${i}`);
    tuples.push('document:other#viewer@user:bob');
    const reader = new MemoryReader(tuples);
    const streamed: string[] = [];
    const all = await listObjects(hierarchy, reader, { type: 'document', relation: 'viewer', user: 'user:anne' }, { onObject: (o) => streamed.push(o) });
    expect(all).toHaveLength(50);
    expect(streamed).toEqual(all);
    expect(reader.calls.byObjects).toBe(0);
    const some = await listObjects(hierarchy, reader, { type: 'document', relation: 'viewer', user: 'user:anne' }, { limit: 7 });
    expect(some).toHaveLength(7);
  });

  it('list-users answers usersets for a filter with a relation, and the object itself', async () => {
    const reader = new MemoryReader(['group:eng#member@group:platform#member', 'group:platform#member@user:anne']);
    const users = await listUsers(hierarchy, reader, {
      object: { type: 'group', id: 'eng' },
      relation: 'member',
      userFilters: [{ type: 'group', relation: 'member' }, { type: 'user' }],
    });
    expect(users).toEqual(
      expect.arrayContaining([
        { userset: { type: 'group', id: 'eng', relation: 'member' } },
        { userset: { type: 'group', id: 'platform', relation: 'member' } },
        { object: { type: 'user', id: 'anne' } },
      ]),
    );
    expect(users).toHaveLength(3);
  });
});

describe('batchCheck', () => {
  it('answers each item, errors per item, reading the items’ look-ups together', async () => {
    const reader = new MemoryReader(['document:1#viewer@user:anne', 'document:2#editor@user:bob']);
    const results = await batchCheck(hierarchy, reader, [
      { user: 'user:anne', relation: 'viewer', object: 'document:1' },
      { user: 'user:bob', relation: 'viewer', object: 'document:2' },
      { user: 'user:anne', relation: 'nope', object: 'document:1' },
      { user: 'user:carl', relation: 'viewer', object: 'document:1', contextualTuples: [{ user: 'user:carl', relation: 'viewer', object: 'document:1' }] },
    ]);
    expect(results.slice(0, 2).map((r) => 'allowed' in r && r.allowed)).toEqual([true, true]);
    expect(results[2]).toMatchObject({ code: 'relation_not_found' });
    expect(results[3]).toMatchObject({ allowed: true });
    expect(reader.log.filter((c) => c.objectType === 'document')[0]!.ids).toEqual(['1', '2']);
  });
});

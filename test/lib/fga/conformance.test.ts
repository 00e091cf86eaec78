import { describe, expect, it } from 'vitest';
import { check } from '../../../lib/fga/check.ts';
import { listObjects } from '../../../lib/fga/list-objects.ts';
import { listUsers } from '../../../lib/fga/list-users.ts';
import { compileModel, parseModelDsl, type CompiledModel } from '../../../lib/fga/model.ts';
import { FgaError, type ListedUser } from '../../../lib/fga/types.ts';
import { MemoryReader } from '../../helpers/fga-memory-reader.ts';
import { conformanceCases, type ConformanceCase } from './conformance-cases.ts';

const listed = (u: ListedUser) =>
  'object' in u ? `${u.object.type}:${u.object.id}` : 'wildcard' in u ? `${u.wildcard.type}:*` : `${u.userset.type}:${u.userset.id}#${u.userset.relation}`;

async function setUp(c: ConformanceCase) {
  const model = compileModel(await parseModelDsl(c.model));
  const reader = new MemoryReader(c.tuples);
  return { model, reader };
}

/** The objects and plain users a case's tuples mention, plus a user of each type no tuple names. */
function universe(c: ConformanceCase, model: CompiledModel, reader: MemoryReader) {
  const objects = new Map<string, Set<string>>();
  const users = new Set<string>();
  const add = (type: string, id: string) => {
    if (!objects.has(type)) objects.set(type, new Set());
    objects.get(type)!.add(`${type}:${id}`);
  };
  for (const t of reader.tuples) {
    add(t.objectType, t.objectId);
    if (t.userId !== '*') add(t.userType, t.userId);
    if (!t.userRelation && t.userId !== '*') users.add(`${t.userType}:${t.userId}`);
  }
  for (const type of model.types.keys()) users.add(`${type}:nobody-named`);
  void c;
  return { objects, users: [...users] };
}

describe('FGA conformance (OpenFGA semantics)', () => {
  for (const c of conformanceCases) {
    describe(c.name, () => {
      it('checks answer as documented', async () => {
        const { model, reader } = await setUp(c);
        for (const q of c.checks) {
          const run = check(model, reader, q);
          const label = `${q.object}#${q.relation}@${q.user}`;
          if (typeof q.expected === 'boolean') {
            expect((await run).allowed, label).toBe(q.expected);
          } else {
            await expect(run, label).rejects.toMatchObject({ code: q.expected.error });
          }
        }
      });

      if (c.listObjects) {
        it('list-objects answers as documented', async () => {
          const { model, reader } = await setUp(c);
          for (const q of c.listObjects!) {
            expect((await listObjects(model, reader, q)).sort(), `${q.type}#${q.relation}@${q.user}`).toEqual([...q.expected].sort());
          }
        });
      }

      if (c.listUsers) {
        it('list-users answers as documented', async () => {
          const { model, reader } = await setUp(c);
          for (const q of c.listUsers!) {
            const [type, id] = [q.object.slice(0, q.object.indexOf(':')), q.object.slice(q.object.indexOf(':') + 1)];
            const users = await listUsers(model, reader, { ...q, object: { type, id }, userFilters: q.filters });
            expect(users.map(listed).sort(), `${q.object}#${q.relation}`).toEqual([...q.expected].sort());
          }
        });
      }

      if (c.sweep !== false) {
        it('list-objects and list-users agree with check on every object, relation and user', async () => {
          const { model, reader } = await setUp(c);
          const { objects, users } = universe(c, model, reader);
          const context = c.sweepContext;
          let compared = 0;
          for (const [type, definition] of model.types) {
            for (const relation of definition.relations.keys()) {
              const ofType = [...(objects.get(type) ?? [])];
              for (const user of users) {
                const listedObjects = new Set(await listObjects(model, reader, { type, relation, user, context }));
                for (const object of ofType) {
                  const { allowed } = await check(model, reader, { user, relation, object, context });
                  expect(listedObjects.has(object), `list-objects ${object}#${relation}@${user}`).toBe(allowed);
                  compared++;
                }
                for (const object of listedObjects) expect(ofType, `list-objects listed an unknown ${object}`).toContain(object);
              }
              for (const object of ofType) {
                const userTypes = [...new Set(users.map((u) => u.slice(0, u.indexOf(':'))))];
                const answer = await listUsers(model, reader, {
                  object: { type, id: object.slice(type.length + 1) },
                  relation,
                  userFilters: userTypes.map((t) => ({ type: t })),
                  context,
                });
                const names = new Set(answer.map(listed));
                for (const user of users) {
                  const { allowed } = await check(model, reader, { user, relation, object, context });
                  const userType = user.slice(0, user.indexOf(':'));
                  const explicit = names.has(user);
                  const viaWildcard = names.has(`${userType}:*`);
                  if (explicit) expect(allowed, `list-users listed ${user} on ${object}#${relation}`).toBe(true);
                  if (allowed) expect(explicit || viaWildcard, `list-users misses ${user} on ${object}#${relation}`).toBe(true);
                  if (viaWildcard && !explicit && !c.wildcardMayExclude) expect(allowed, `wildcard on ${object}#${relation} for ${user}`).toBe(true);
                  compared++;
                }
              }
            }
          }
          expect(compared).toBeGreaterThan(0);
        });
      }
    });
  }

  it('errors are FgaErrors with OpenFGA codes', async () => {
    const c = conformanceCases.find((x) => x.name.startsWith('the resolution depth'))!;
    const { model, reader } = await setUp(c);
    const error = await check(model, reader, { user: 'user:anne', relation: 'member', object: 'group:g0' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FgaError);
  });
});

// Seeded random stores over one model that uses every rewrite: check, list-objects and list-users must agree on
// every object, relation and user.
import { describe, expect, it } from 'vitest';
import { check } from '../../../lib/fga/check.ts';
import { listObjects } from '../../../lib/fga/list-objects.ts';
import { listUsers } from '../../../lib/fga/list-users.ts';
import { compileModel, parseModelDsl } from '../../../lib/fga/model.ts';
import type { ListedUser } from '../../../lib/fga/types.ts';
import { MemoryReader } from '../../helpers/fga-memory-reader.ts';

const model = compileModel(
  await parseModelDsl(`model
  schema 1.1
type user
type group
  relations
    define member: [user, user:*, group#member]
    define blocked: [user]
    define active: member but not blocked
type folder
  relations
    define parent: [folder]
    define owner: [user, group#member]
    define viewer: [user, user:*, group#active] or owner or viewer from parent
type document
  relations
    define parent: [folder]
    define editor: [user, group#member]
    define banned: [user, group#member]
    define viewer: ([user] or editor or viewer from parent) but not banned
    define both: editor and viewer from parent
`),
);

/** mulberry32 */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const USERS = ['user:a', 'user:b', 'user:c', 'user:d'];
const GROUPS = ['group:g1', 'group:g2', 'group:g3'];
const FOLDERS = ['folder:f1', 'folder:f2', 'folder:f3'];
const DOCUMENTS = ['document:d1', 'document:d2', 'document:d3'];

function store(seed: number): string[] {
  const next = random(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
  const tuples = new Set<string>();
  for (let i = 0; i < 22; i++) {
    const kind = Math.floor(next() * 10);
    if (kind === 0) tuples.add(`${pick(GROUPS)}#member@${next() < 0.15 ? 'user:*' : pick(USERS)}`);
    else if (kind === 1) tuples.add(`${pick(GROUPS)}#member@${pick(GROUPS)}#member`);
    else if (kind === 2) tuples.add(`${pick(GROUPS)}#blocked@${pick(USERS)}`);
    else if (kind === 3) tuples.add(`${pick(FOLDERS)}#parent@${pick(FOLDERS)}`);
    else if (kind === 4) tuples.add(`${pick(FOLDERS)}#owner@${next() < 0.5 ? pick(USERS) : `${pick(GROUPS)}#member`}`);
    else if (kind === 5) tuples.add(`${pick(FOLDERS)}#viewer@${next() < 0.2 ? 'user:*' : next() < 0.5 ? pick(USERS) : `${pick(GROUPS)}#active`}`);
    else if (kind === 6) tuples.add(`${pick(DOCUMENTS)}#parent@${pick(FOLDERS)}`);
    else if (kind === 7) tuples.add(`${pick(DOCUMENTS)}#editor@${next() < 0.5 ? pick(USERS) : `${pick(GROUPS)}#member`}`);
    else if (kind === 8) tuples.add(`${pick(DOCUMENTS)}#banned@${next() < 0.6 ? pick(USERS) : `${pick(GROUPS)}#member`}`);
    else tuples.add(`${pick(DOCUMENTS)}#viewer@${pick(USERS)}`);
  }
  return [...tuples];
}

const listed = (u: ListedUser) =>
  'object' in u ? `${u.object.type}:${u.object.id}` : 'wildcard' in u ? `${u.wildcard.type}:*` : `${u.userset.type}:${u.userset.id}#${u.userset.relation}`;

describe('check, list-objects and list-users agree on random stores', () => {
  for (let seed = 1; seed <= 12; seed++) {
    it(`seed ${seed}`, async () => {
      const reader = new MemoryReader(store(seed));
      const subjects = [...USERS, 'user:*', ...GROUPS.map((g) => `${g}#member`)];
      for (const [type, objects] of [
        ['group', GROUPS],
        ['folder', FOLDERS],
        ['document', DOCUMENTS],
      ] as const) {
        for (const relation of model.types.get(type)!.relations.keys()) {
          const allowed = new Map<string, boolean>();
          for (const user of subjects) {
            const found = new Set(await listObjects(model, reader, { type, relation, user }));
            for (const object of objects) {
              const answer = (await check(model, reader, { user, relation, object })).allowed;
              allowed.set(`${object}@${user}`, answer);
              expect(found.has(object), `list-objects ${object}#${relation}@${user} (seed ${seed})`).toBe(answer);
            }
          }
          for (const object of objects) {
            const users = new Set(
              (
                await listUsers(model, reader, {
                  object: { type, id: object.slice(type.length + 1) },
                  relation,
                  userFilters: [{ type: 'user' }, { type: 'group', relation: 'member' }],
                })
              ).map(listed),
            );
            for (const user of subjects) {
              const answer = allowed.get(`${object}@${user}`)!;
              const plain = !user.includes('#');
              const covered = users.has(user) || (plain && user !== 'user:*' && users.has('user:*'));
              if (users.has(user)) expect(answer, `list-users listed ${user} on ${object}#${relation} (seed ${seed})`).toBe(true);
              if (answer) expect(covered, `list-users misses ${user} on ${object}#${relation} (seed ${seed})`).toBe(true);
            }
          }
        }
      }
    });
  }
});

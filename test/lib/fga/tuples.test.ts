import { describe, expect, it } from 'vitest';
import { compileModel, parseModelDsl } from '../../../lib/fga/model.ts';
import { checkTuple, formatTuple, parseTupleKey } from '../../../lib/fga/tuples.ts';
import { FgaError, type TupleKey } from '../../../lib/fga/types.ts';

const model = compileModel(
  await parseModelDsl(`model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member]
type folder
  relations
    define viewer: [user]
type document
  relations
    define parent: [folder]
    define owner: [user]
    define viewer: [user, user:*, group#member, user with fresh] or viewer from parent
    define editor: [user with fresh]
condition fresh(now: timestamp, until: timestamp) {
  now < until
}
`),
);

const key = (object: string, relation: string, user: string, condition?: TupleKey['condition']): TupleKey => ({ object, relation, user, condition });

describe('tuple keys', () => {
  it('parses objects, users, wildcards and usersets, and formats them back', () => {
    for (const k of [
      key('document:1', 'viewer', 'user:anne'),
      key('document:1', 'viewer', 'user:*'),
      key('document:1', 'viewer', 'group:eng#member'),
      key('document:a/b|c:d', 'viewer', 'user:anne@example.com'),
      key('document:1', 'editor', 'user:anne', { name: 'fresh', context: { until: '2030-01-01T00:00:00Z' } }),
    ]) {
      expect(formatTuple(parseTupleKey(k))).toEqual(k.condition ? k : { object: k.object, relation: k.relation, user: k.user });
    }
    expect(parseTupleKey(key('document:1', 'viewer', 'group:eng#member'))).toMatchObject({ userType: 'group', userId: 'eng', userRelation: 'member' });
  });

  const malformed: [string, TupleKey][] = [
    ['an empty object id', key('document:', 'viewer', 'user:anne')],
    ['an object without a type', key('1', 'viewer', 'user:anne')],
    ['a wildcard object', key('document:*', 'viewer', 'user:anne')],
    ['a # in the object', key('document:1#x', 'viewer', 'user:anne')],
    ['whitespace in an id', key('document:a b', 'viewer', 'user:anne')],
    ['an id over 256 characters', key(`document:${'x'.repeat(257)}`, 'viewer', 'user:anne')],
    ['an empty user id', key('document:1', 'viewer', 'user:')],
    ['a partial wildcard', key('document:1', 'viewer', 'user:a*')],
    ['a wildcard userset', key('document:1', 'viewer', 'group:*#member')],
    ['an empty relation', key('document:1', '', 'user:anne')],
  ];
  for (const [name, k] of malformed) {
    it(`refuses ${name}`, () => {
      expect(() => parseTupleKey(k)).toThrow(FgaError);
      expect(() => parseTupleKey(k)).toThrow(/^Invalid tuple '/);
    });
  }
});

describe('checkTuple: the tuple must fit the model', () => {
  const ok: [string, TupleKey][] = [
    ['a direct user', key('document:1', 'viewer', 'user:anne')],
    ['a wildcard the relation allows', key('document:1', 'viewer', 'user:*')],
    ['a userset the relation allows', key('document:1', 'viewer', 'group:eng#member')],
    ['a conditioned user', key('document:1', 'editor', 'user:anne', { name: 'fresh', context: { until: '2030-01-01T00:00:00Z' } })],
    ['a parent object', key('document:1', 'parent', 'folder:x')],
  ];
  for (const [name, k] of ok) it(`accepts ${name}`, () => expect(() => checkTuple(model, k)).not.toThrow());

  const refused: [string, TupleKey, RegExp][] = [
    ['an unknown object type', key('nope:1', 'viewer', 'user:anne'), /type 'nope' is not defined/],
    ['an unknown relation', key('document:1', 'nope', 'user:anne'), /relation 'document#nope' is not defined/],
    ['an unknown user type', key('document:1', 'viewer', 'robot:r2'), /type 'robot' is not defined/],
    [
      'a user type the relation does not allow',
      key('document:1', 'owner', 'group:eng#member'),
      /'group#member' is not an allowed type restriction of 'document#owner'/,
    ],
    ['a wildcard the relation does not allow', key('document:1', 'owner', 'user:*'), /'user:\*' is not an allowed type restriction/],
    ['a userset on an undefined relation', key('document:1', 'viewer', 'group:eng#nope'), /relation 'group#nope' is not defined/],
    ['a missing required condition', key('document:1', 'editor', 'user:anne'), /requires a condition/],
    ['an undefined condition', key('document:1', 'viewer', 'user:anne', { name: 'nope' }), /condition 'nope' is not defined/],
    ['a context key the condition has no parameter for', key('document:1', 'editor', 'user:anne', { name: 'fresh', context: { x: 1 } }), /no parameter 'x'/],
    ['a context value of the wrong type', key('document:1', 'editor', 'user:anne', { name: 'fresh', context: { until: 'tomorrow' } }), /not a valid timestamp/],
    [
      'a condition context over 32 KiB',
      key('document:1', 'editor', 'user:anne', { name: 'fresh', context: { until: '2030-01-01T00:00:00Z', x: 'y'.repeat(33 * 1024) } }),
      /over 32 KiB/,
    ],
    ['a userset on a tupleset relation', key('document:1', 'parent', 'group:eng#member'), /tupleset relation/],
  ];
  for (const [name, k, reason] of refused) {
    it(`refuses ${name}`, () => {
      const run = () => checkTuple(model, k);
      expect(run).toThrow(reason);
      expect(run).toThrow(`Invalid tuple '${k.object}#${k.relation}@${k.user}': `);
      try {
        run();
      } catch (error) {
        expect((error as FgaError).code).toBe('invalid_tuple');
      }
    });
  }
});

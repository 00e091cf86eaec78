// PatchOp application on canonical resources, without a database: the shapes real clients send.
import { describe, expect, it } from 'vitest';
import { applyPatch, patchOperations } from '../../../lib/scim/patch.ts';
import { COMMON_ATTRIBUTES, ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from '../../../lib/scim/resource-schemas.ts';
import { canonicalResource } from '../../../lib/scim/values.ts';

const users = { core: USER_SCHEMA, extensions: [ENTERPRISE_USER_SCHEMA], common: COMMON_ATTRIBUTES };
const groups = { core: GROUP_SCHEMA, extensions: [], common: COMMON_ATTRIBUTES };
const ENTERPRISE = ENTERPRISE_USER_SCHEMA.id;
const apply = (schemas: typeof users, resource: Record<string, unknown>, ...Operations: object[]) =>
  applyPatch(schemas, resource, patchOperations({ Operations }));

describe('applyPatch', () => {
  it('reads a pathless value with an extension object, dotted keys and PascalCase names', () => {
    const result = apply(
      users,
      { userName: 'a' },
      {
        op: 'Add',
        value: { [ENTERPRISE]: { Department: 'R&D', manager: 'm-1' }, 'Name.GivenName': 'Ada', Active: 'False', id: 'ignored', meta: {} },
      },
    );
    expect(result).toEqual({ userName: 'a', [ENTERPRISE]: { department: 'R&D', manager: { value: 'm-1' } }, name: { givenName: 'Ada' }, active: false });
  });

  it('creates a value-filtered item when absent, updates it when present, and removes it by filter', () => {
    let user = apply(users, { emails: [{ value: 'a@x', type: 'work' }] }, { op: 'replace', path: 'emails[type eq "home"].value', value: 'h@x' });
    expect(user.emails).toEqual([
      { value: 'a@x', type: 'work' },
      { type: 'home', value: 'h@x' },
    ]);
    user = apply(users, user, { op: 'replace', path: 'emails[TYPE eq "WORK"].value', value: 'b@x' });
    expect(user.emails).toEqual([
      { value: 'b@x', type: 'work' },
      { type: 'home', value: 'h@x' },
    ]);
    user = apply(users, user, { op: 'remove', path: 'emails[type eq "home"]' });
    expect(user.emails).toEqual([{ value: 'b@x', type: 'work' }]);
  });

  it('manages members: add without duplicates, remove listed values, remove by filter, replace with []', () => {
    let group: Record<string, unknown> = { displayName: 'g', members: [{ value: 'u1' }] };
    group = apply(groups, group, { op: 'add', path: 'members', value: [{ value: 'u1' }, { value: 'u2', $ref: null }, { value: 'u3' }] });
    expect(group.members).toEqual([{ value: 'u1' }, { value: 'u2' }, { value: 'u3' }]);
    group = apply(groups, group, { op: 'remove', path: 'members', value: [{ value: 'u1' }] });
    expect(group.members).toEqual([{ value: 'u2' }, { value: 'u3' }]);
    group = apply(groups, group, { op: 'remove', path: 'members[value eq "u3"]' });
    expect(group.members).toEqual([{ value: 'u2' }]);
    group = apply(groups, group, { op: 'replace', value: { id: 'g1', displayName: 'renamed' } });
    expect(group).toEqual({ displayName: 'renamed', members: [{ value: 'u2' }] });
    expect(apply(groups, group, { op: 'replace', path: 'members', value: [] }).members).toEqual([]);
  });

  it('removes the manager with an empty replace and replaces it whole with a new id', () => {
    const user = { [ENTERPRISE]: { manager: { value: 'm-1', displayName: 'M' } } };
    expect(apply(users, user, { op: 'replace', path: `${ENTERPRISE}:manager`, value: 'm-2' })).toEqual({ [ENTERPRISE]: { manager: { value: 'm-2' } } });
    expect(apply(users, user, { op: 'replace', path: `${ENTERPRISE}:manager`, value: '' })).toEqual({ [ENTERPRISE]: {} });
  });

  it('makes request bodies canonical: unknown and read-only attributes dropped, one object for a list', () => {
    expect(canonicalResource(users, { ID: null, USERNAME: 'u', groups: [], emails: { value: 'e@x' }, [`${ENTERPRISE}:employeeNumber`]: 7, junk: 1 })).toEqual({
      userName: 'u',
      emails: [{ value: 'e@x' }],
      [ENTERPRISE]: { employeeNumber: '7' },
    });
  });

  it('acts on the enterprise extension as a whole when the path is its URN', () => {
    const user = { userName: 'a', [ENTERPRISE]: { department: 'Eng', employeeNumber: '7' } };
    expect(apply(users, user, { op: 'add', path: ENTERPRISE, value: { costCenter: 'CC', unknown: 1 } })[ENTERPRISE]).toEqual({
      department: 'Eng',
      employeeNumber: '7',
      costCenter: 'CC',
    });
    expect(apply(users, user, { op: 'replace', path: ENTERPRISE, value: { division: 'R&D' } })[ENTERPRISE]).toEqual({ division: 'R&D' });
    expect(apply(users, user, { op: 'remove', path: ENTERPRISE })).toEqual({ userName: 'a' });
  });

  it('refuses a path naming no attribute (invalidPath) and a remove filter matching nothing (noTarget)', () => {
    expect(() => apply(users, { userName: 'a' }, { op: 'replace', path: 'shoeSize', value: 42 })).toThrow(expect.objectContaining({ scimType: 'invalidPath' }));
    expect(() => apply(users, { userName: 'a' }, { op: 'remove', path: `${ENTERPRISE}:badge` })).toThrow(expect.objectContaining({ scimType: 'invalidPath' }));
    expect(() => apply(groups, { members: [] }, { op: 'remove', path: 'members[value eq "x"]' })).toThrow(expect.objectContaining({ scimType: 'noTarget' }));
  });

  it('keeps one primary value: the one the operation set', () => {
    const user = {
      roles: [{ value: 'a', primary: true }],
      emails: [
        { value: 'w@x', type: 'work', primary: true },
        { value: 'h@x', type: 'home' },
      ],
    };
    expect(apply(users, user, { op: 'add', path: 'roles', value: [{ value: 'b', primary: true }] }).roles).toEqual([
      { value: 'a', primary: false },
      { value: 'b', primary: true },
    ]);
    expect(apply(users, user, { op: 'replace', path: 'emails[type eq "home"].primary', value: true }).emails).toEqual([
      { value: 'w@x', type: 'work', primary: false },
      { value: 'h@x', type: 'home', primary: true },
    ]);
    expect(() =>
      canonicalResource(users, {
        roles: [
          { value: 'a', primary: true },
          { value: 'b', primary: 'True' },
        ],
      }),
    ).toThrow(/roles/);
  });
});

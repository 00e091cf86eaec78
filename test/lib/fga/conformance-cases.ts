// Conformance cases written from OpenFGA's documented semantics (modelling guides, conditions, list-objects,
// list-users). Plain data, so the same cases can run through the HTTP API against Postgres: a model in DSL, its
// tuples, then checks (allowed, or the error code a check answers) and list expectations. Every case also runs the
// agreement sweep: for every relation of the model, every object and every user of the case, check == membership in
// list-objects and in list-users (cases that expect errors opt out with `sweep: false`).
import type { TupleKey } from '../../../lib/fga/types.ts';

export interface ConformanceCheck {
  user: string;
  relation: string;
  object: string;
  context?: Record<string, unknown>;
  contextualTuples?: TupleKey[];
  /** true/false, or the FgaError code the check raises. */
  expected: boolean | { error: string };
}

export interface ConformanceCase {
  name: string;
  model: string;
  /** `object#relation@user`, or a full key (with a condition). */
  tuples: (string | TupleKey)[];
  checks: ConformanceCheck[];
  listObjects?: { user: string; type: string; relation: string; context?: Record<string, unknown>; contextualTuples?: TupleKey[]; expected: string[] }[];
  listUsers?: {
    object: string;
    relation: string;
    filters: { type: string; relation?: string }[];
    context?: Record<string, unknown>;
    contextualTuples?: TupleKey[];
    /** `user:anne`, `user:*`, `group:eng#member` */
    expected: string[];
  }[];
  /** The context the agreement sweep passes (defaults to none). */
  sweepContext?: Record<string, unknown>;
  /** Whether the agreement sweep runs (false where some check raises an error). */
  sweep?: boolean;
  /** A wildcard list-users lists though check excludes some of its users (`user:*` less `user:anne`, OpenFGA's documented behaviour). */
  wildcardMayExclude?: boolean;
}

export const conformanceCases: ConformanceCase[] = [
  {
    name: 'direct relation (this)',
    model: `model
  schema 1.1
type user
type document
  relations
    define viewer: [user]
`,
    tuples: ['document:1#viewer@user:anne'],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:bob', relation: 'viewer', object: 'document:1', expected: false },
      { user: 'user:anne', relation: 'viewer', object: 'document:2', expected: false },
      { user: 'user:*', relation: 'viewer', object: 'document:1', expected: false },
    ],
    listObjects: [{ user: 'user:anne', type: 'document', relation: 'viewer', expected: ['document:1'] }],
    listUsers: [{ object: 'document:1', relation: 'viewer', filters: [{ type: 'user' }], expected: ['user:anne'] }],
  },
  {
    name: 'computed usersets (roles that imply roles)',
    model: `model
  schema 1.1
type user
type document
  relations
    define owner: [user]
    define editor: [user] or owner
    define viewer: [user] or editor
`,
    tuples: ['document:1#owner@user:anne', 'document:1#editor@user:bob', 'document:1#viewer@user:carl'],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:anne', relation: 'editor', object: 'document:1', expected: true },
      { user: 'user:bob', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:bob', relation: 'owner', object: 'document:1', expected: false },
      { user: 'user:carl', relation: 'editor', object: 'document:1', expected: false },
    ],
    listUsers: [{ object: 'document:1', relation: 'viewer', filters: [{ type: 'user' }], expected: ['user:anne', 'user:bob', 'user:carl'] }],
  },
  {
    name: 'tuple-to-userset (parent folders, three levels)',
    model: `model
  schema 1.1
type user
type folder
  relations
    define parent: [folder]
    define viewer: [user] or viewer from parent
type document
  relations
    define parent: [folder]
    define viewer: [user] or viewer from parent
`,
    tuples: [
      'folder:root#viewer@user:anne',
      'folder:mid#parent@folder:root',
      'folder:leaf#parent@folder:mid',
      'document:1#parent@folder:leaf',
      'document:2#viewer@user:bob',
    ],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:anne', relation: 'viewer', object: 'folder:mid', expected: true },
      { user: 'user:bob', relation: 'viewer', object: 'document:1', expected: false },
      { user: 'user:anne', relation: 'viewer', object: 'document:2', expected: false },
    ],
    listObjects: [
      { user: 'user:anne', type: 'document', relation: 'viewer', expected: ['document:1'] },
      { user: 'user:anne', type: 'folder', relation: 'viewer', expected: ['folder:root', 'folder:mid', 'folder:leaf'] },
    ],
  },
  {
    name: 'tuple-to-userset skips parent types that do not define the relation',
    model: `model
  schema 1.1
type user
type team
  relations
    define lead: [user]
type folder
  relations
    define viewer: [user]
type document
  relations
    define parent: [folder, team]
    define viewer: [user] or viewer from parent
`,
    tuples: ['document:1#parent@team:a', 'document:1#parent@folder:x', 'folder:x#viewer@user:anne', 'team:a#lead@user:bob'],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:bob', relation: 'viewer', object: 'document:1', expected: false },
    ],
  },
  {
    name: 'union, intersection and exclusion',
    model: `model
  schema 1.1
type user
type document
  relations
    define allowed: [user]
    define member: [user]
    define blocked: [user]
    define either: allowed or member
    define both: allowed and member
    define can_view: member but not blocked
`,
    tuples: [
      'document:1#allowed@user:anne',
      'document:1#member@user:anne',
      'document:1#member@user:bob',
      'document:1#blocked@user:bob',
      'document:1#allowed@user:carl',
    ],
    checks: [
      { user: 'user:anne', relation: 'both', object: 'document:1', expected: true },
      { user: 'user:bob', relation: 'both', object: 'document:1', expected: false },
      { user: 'user:carl', relation: 'both', object: 'document:1', expected: false },
      { user: 'user:carl', relation: 'either', object: 'document:1', expected: true },
      { user: 'user:anne', relation: 'can_view', object: 'document:1', expected: true },
      { user: 'user:bob', relation: 'can_view', object: 'document:1', expected: false },
      { user: 'user:carl', relation: 'can_view', object: 'document:1', expected: false },
    ],
    listObjects: [
      { user: 'user:bob', type: 'document', relation: 'can_view', expected: [] },
      { user: 'user:anne', type: 'document', relation: 'both', expected: ['document:1'] },
    ],
    listUsers: [
      { object: 'document:1', relation: 'both', filters: [{ type: 'user' }], expected: ['user:anne'] },
      { object: 'document:1', relation: 'can_view', filters: [{ type: 'user' }], expected: ['user:anne'] },
    ],
  },
  {
    name: 'wildcards (public access)',
    model: `model
  schema 1.1
type user
type employee
type document
  relations
    define viewer: [user, user:*, employee]
`,
    tuples: ['document:1#viewer@user:*', 'document:2#viewer@user:anne', 'document:3#viewer@employee:zoe'],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:someone-new', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:*', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:*', relation: 'viewer', object: 'document:2', expected: false },
      { user: 'employee:zoe', relation: 'viewer', object: 'document:1', expected: false },
      { user: 'employee:zoe', relation: 'viewer', object: 'document:3', expected: true },
    ],
    listObjects: [
      { user: 'user:anne', type: 'document', relation: 'viewer', expected: ['document:1', 'document:2'] },
      { user: 'user:*', type: 'document', relation: 'viewer', expected: ['document:1'] },
    ],
    listUsers: [
      { object: 'document:1', relation: 'viewer', filters: [{ type: 'user' }], expected: ['user:*'] },
      { object: 'document:2', relation: 'viewer', filters: [{ type: 'user' }, { type: 'employee' }], expected: ['user:anne'] },
    ],
  },
  {
    name: 'usersets in tuples and as subjects (groups, nested)',
    model: `model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member]
type document
  relations
    define viewer: [user, group#member]
`,
    tuples: ['group:eng#member@user:anne', 'group:platform#member@user:bob', 'group:eng#member@group:platform#member', 'document:1#viewer@group:eng#member'],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:bob', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:carl', relation: 'viewer', object: 'document:1', expected: false },
      { user: 'group:eng#member', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'group:platform#member', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'group:eng#member', relation: 'member', object: 'group:eng', expected: true },
      { user: 'group:eng#member', relation: 'member', object: 'group:platform', expected: false },
    ],
    listObjects: [
      { user: 'user:bob', type: 'document', relation: 'viewer', expected: ['document:1'] },
      { user: 'group:platform#member', type: 'group', relation: 'member', expected: ['group:eng', 'group:platform'] },
    ],
    listUsers: [
      { object: 'document:1', relation: 'viewer', filters: [{ type: 'user' }], expected: ['user:anne', 'user:bob'] },
      { object: 'document:1', relation: 'viewer', filters: [{ type: 'group', relation: 'member' }], expected: ['group:eng#member', 'group:platform#member'] },
    ],
  },
  {
    name: 'conditions: true, false, tuple context over request context, timestamps and durations',
    model: `model
  schema 1.1
type user
type document
  relations
    define viewer: [user, user with non_expired_grant]
    define editor: [user with in_region]
condition non_expired_grant(current_time: timestamp, grant_time: timestamp, grant_duration: duration) {
  current_time < grant_time + grant_duration
}
condition in_region(region: string, allowed: list<string>) {
  region in allowed
}
`,
    tuples: [
      {
        user: 'user:anne',
        relation: 'viewer',
        object: 'document:1',
        condition: { name: 'non_expired_grant', context: { grant_time: '2023-01-01T00:00:00Z', grant_duration: '10m' } },
      },
      { user: 'user:bob', relation: 'editor', object: 'document:1', condition: { name: 'in_region', context: { region: 'eu', allowed: ['eu', 'us'] } } },
      { user: 'user:carl', relation: 'editor', object: 'document:1', condition: { name: 'in_region', context: { allowed: ['eu'] } } },
    ],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:1', context: { current_time: '2023-01-01T00:09:50Z' }, expected: true },
      { user: 'user:anne', relation: 'viewer', object: 'document:1', context: { current_time: '2023-01-01T00:10:01Z' }, expected: false },
      { user: 'user:anne', relation: 'viewer', object: 'document:1', expected: { error: 'condition_missing_parameters' } },
      // The tuple's region ('eu') wins over the request's.
      { user: 'user:bob', relation: 'editor', object: 'document:1', context: { region: 'mars' }, expected: true },
      { user: 'user:carl', relation: 'editor', object: 'document:1', context: { region: 'eu' }, expected: true },
      { user: 'user:carl', relation: 'editor', object: 'document:1', context: { region: 'us' }, expected: false },
      { user: 'user:carl', relation: 'editor', object: 'document:1', expected: { error: 'condition_missing_parameters' } },
    ],
    listObjects: [
      { user: 'user:anne', type: 'document', relation: 'viewer', context: { current_time: '2023-01-01T00:09:50Z' }, expected: ['document:1'] },
      { user: 'user:anne', type: 'document', relation: 'viewer', context: { current_time: '2023-01-01T00:10:01Z' }, expected: [] },
    ],
    listUsers: [
      { object: 'document:1', relation: 'editor', filters: [{ type: 'user' }], context: { region: 'us' }, expected: ['user:bob'] },
      { object: 'document:1', relation: 'editor', filters: [{ type: 'user' }], context: { region: 'eu' }, expected: ['user:bob', 'user:carl'] },
    ],
    sweepContext: { current_time: '2023-01-01T00:05:00Z', region: 'eu' },
  },
  {
    name: 'a condition on a tupleset tuple and an int parameter from a numeric string',
    model: `model
  schema 1.1
type user
type folder
  relations
    define viewer: [user]
type document
  relations
    define parent: [folder with small]
    define viewer: viewer from parent
condition small(size: int) {
  size < 10
}
`,
    tuples: ['folder:x#viewer@user:anne', { user: 'folder:x', relation: 'parent', object: 'document:1', condition: { name: 'small', context: {} } }],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:1', context: { size: '3' }, expected: true },
      { user: 'user:anne', relation: 'viewer', object: 'document:1', context: { size: 30 }, expected: false },
      { user: 'user:anne', relation: 'viewer', object: 'document:1', context: { size: 'three' }, expected: { error: 'condition_evaluation_error' } },
    ],
    sweepContext: { size: 1 },
  },
  {
    name: 'contextual tuples overlay the stored ones',
    model: `model
  schema 1.1
type user
type group
  relations
    define member: [user]
type document
  relations
    define viewer: [group#member]
`,
    tuples: ['document:1#viewer@group:eng#member'],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:1', expected: false },
      {
        user: 'user:anne',
        relation: 'viewer',
        object: 'document:1',
        contextualTuples: [{ user: 'user:anne', relation: 'member', object: 'group:eng' }],
        expected: true,
      },
    ],
    listObjects: [
      {
        user: 'user:anne',
        type: 'document',
        relation: 'viewer',
        contextualTuples: [{ user: 'user:anne', relation: 'member', object: 'group:eng' }],
        expected: ['document:1'],
      },
    ],
    listUsers: [
      {
        object: 'document:1',
        relation: 'viewer',
        filters: [{ type: 'user' }],
        contextualTuples: [{ user: 'user:anne', relation: 'member', object: 'group:eng' }],
        expected: ['user:anne'],
      },
    ],
  },
  {
    name: 'exclusion and intersection with wildcards',
    model: `model
  schema 1.1
type user
type document
  relations
    define public: [user:*]
    define blocked: [user, user:*]
    define member: [user]
    define viewer: public but not blocked
    define insider: public and member
`,
    tuples: ['document:1#public@user:*', 'document:1#blocked@user:anne', 'document:1#member@user:bob', 'document:2#public@user:*', 'document:2#blocked@user:*'],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:1', expected: false },
      { user: 'user:bob', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:bob', relation: 'viewer', object: 'document:2', expected: false },
      { user: 'user:bob', relation: 'insider', object: 'document:1', expected: true },
      { user: 'user:anne', relation: 'insider', object: 'document:1', expected: false },
      { user: 'user:*', relation: 'viewer', object: 'document:1', expected: true },
      { user: 'user:*', relation: 'viewer', object: 'document:2', expected: false },
    ],
    listObjects: [
      { user: 'user:bob', type: 'document', relation: 'viewer', expected: ['document:1'] },
      { user: 'user:anne', type: 'document', relation: 'viewer', expected: [] },
    ],
    listUsers: [
      { object: 'document:1', relation: 'insider', filters: [{ type: 'user' }], expected: ['user:bob'] },
      { object: 'document:1', relation: 'viewer', filters: [{ type: 'user' }], expected: ['user:*'] },
      { object: 'document:2', relation: 'viewer', filters: [{ type: 'user' }], expected: [] },
    ],
    wildcardMayExclude: true,
  },
  {
    name: 'cycles resolve to false, not a hang',
    model: `model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member]
`,
    tuples: ['group:a#member@group:b#member', 'group:b#member@group:c#member', 'group:c#member@group:a#member', 'group:c#member@user:anne'],
    checks: [
      { user: 'user:anne', relation: 'member', object: 'group:a', expected: true },
      { user: 'user:bob', relation: 'member', object: 'group:a', expected: false },
      { user: 'user:bob', relation: 'member', object: 'group:c', expected: false },
    ],
    listObjects: [{ user: 'user:anne', type: 'group', relation: 'member', expected: ['group:a', 'group:b', 'group:c'] }],
  },
  {
    name: 'intersection and exclusion over parents and groups',
    model: `model
  schema 1.1
type user
type group
  relations
    define member: [user, user:*, group#member]
    define banned: [user]
    define active: member but not banned
type folder
  relations
    define parent: [folder]
    define viewer: [user, group#active] or viewer from parent
    define licensed: [user, group#member]
type document
  relations
    define parent: [folder]
    define owner: [user]
    define viewer: (viewer from parent and licensed from parent) or owner
    define restricted: [user]
    define can_read: viewer but not restricted
`,
    tuples: [
      'group:all#member@user:*',
      'group:all#banned@user:eve',
      'group:eng#member@user:anne',
      'group:eng#member@group:ops#member',
      'group:ops#member@user:olga',
      'folder:root#viewer@group:all#active',
      'folder:root#licensed@group:eng#member',
      'folder:sub#parent@folder:root',
      'folder:sub#licensed@user:eve',
      'document:1#parent@folder:sub',
      'document:1#owner@user:zed',
      'document:1#restricted@user:olga',
      'document:2#parent@folder:root',
    ],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:2', expected: true },
      { user: 'user:olga', relation: 'can_read', object: 'document:2', expected: true },
      { user: 'user:eve', relation: 'viewer', object: 'document:1', expected: false },
      { user: 'user:anne', relation: 'viewer', object: 'document:1', expected: false },
      { user: 'user:sam', relation: 'viewer', object: 'folder:sub', expected: true },
      { user: 'user:zed', relation: 'can_read', object: 'document:1', expected: true },
      { user: 'user:olga', relation: 'can_read', object: 'document:1', expected: false },
    ],
    listObjects: [{ user: 'user:anne', type: 'document', relation: 'viewer', expected: ['document:2'] }],
    wildcardMayExclude: true,
  },
  {
    name: 'a wildcard in an intersection with specific users (OpenFGA list-users: the specific users)',
    model: `model
  schema 1.1
type user
type document
  relations
    define b: [user:*] but not b1
    define b1: [user]
    define a: [user]
    define viewer: a and b
`,
    tuples: ['document:1#b@user:*', 'document:1#b1@user:anne', 'document:1#a@user:anne', 'document:1#a@user:bob'],
    checks: [
      { user: 'user:anne', relation: 'viewer', object: 'document:1', expected: false },
      { user: 'user:bob', relation: 'viewer', object: 'document:1', expected: true },
    ],
    listUsers: [{ object: 'document:1', relation: 'viewer', filters: [{ type: 'user' }], expected: ['user:bob'] }],
    wildcardMayExclude: true,
  },
  {
    name: 'a computed relation over a userset relation of another type, subject as userset',
    model: `model
  schema 1.1
type user
type team
  relations
    define lead: [user]
    define member: [user, team#member] or lead
type project
  relations
    define team: [team]
    define contributor: [team#member, team#lead]
    define viewer: contributor or member from team
`,
    tuples: [
      'team:a#lead@user:lee',
      'team:a#member@team:b#member',
      'team:b#member@user:bea',
      'project:p#contributor@team:c#lead',
      'team:c#lead@user:cal',
      'project:q#team@team:a',
    ],
    checks: [
      { user: 'user:lee', relation: 'viewer', object: 'project:q', expected: true },
      { user: 'user:bea', relation: 'viewer', object: 'project:q', expected: true },
      { user: 'team:b#member', relation: 'viewer', object: 'project:q', expected: true },
      { user: 'team:c#lead', relation: 'viewer', object: 'project:p', expected: true },
      { user: 'team:c#member', relation: 'viewer', object: 'project:p', expected: false },
      { user: 'user:cal', relation: 'viewer', object: 'project:p', expected: true },
      { user: 'user:cal', relation: 'viewer', object: 'project:q', expected: false },
    ],
    listObjects: [
      { user: 'team:b#member', type: 'project', relation: 'viewer', expected: ['project:q'] },
      { user: 'team:c#lead', type: 'project', relation: 'viewer', expected: ['project:p'] },
    ],
    listUsers: [
      { object: 'project:p', relation: 'viewer', filters: [{ type: 'team', relation: 'lead' }], expected: ['team:c#lead'] },
      { object: 'project:q', relation: 'viewer', filters: [{ type: 'user' }], expected: ['user:lee', 'user:bea'] },
    ],
  },
  {
    name: 'the resolution depth limit answers an error',
    model: `model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member]
`,
    tuples: [...Array.from({ length: 30 }, (_, i) => `group:g${i}#member@group:g${i + 1}#member`), 'group:g30#member@user:anne', 'group:g3#member@user:bob'],
    checks: [
      { user: 'user:anne', relation: 'member', object: 'group:g0', expected: { error: 'authorization_model_resolution_too_complex' } },
      { user: 'user:anne', relation: 'member', object: 'group:g20', expected: true },
      { user: 'user:bob', relation: 'member', object: 'group:g0', expected: true },
    ],
    sweep: false,
  },
];

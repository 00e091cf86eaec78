// The FGA benchmark's store: 1 000 000 tuples in one environment, loaded with set-based SQL (the write API takes
// 100 tuples a request). Teams of users; a three-level folder hierarchy (roots, sections, leaves) whose roots teams
// may view and whose sections some users may view; documents in the leaves with an owner and, for some, a viewer.
// A document's viewer is a direct viewer, its owner, or a viewer of its folder (inherited up three levels).
import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { createBenchSecret } from '../environment-secret.ts';

export const FGA_MODEL_DSL = `model
  schema 1.1
type user
type team
  relations
    define member: [user]
type folder
  relations
    define parent: [folder]
    define viewer: [user, team#member] or viewer from parent
type document
  relations
    define parent: [folder]
    define owner: [user]
    define viewer: [user, team#member] or owner or viewer from parent`;

export const SHAPE = {
  users: 10_000,
  teams: 1_000,
  membersPerTeam: 20,
  roots: 100,
  sectionsPerRoot: 10,
  leavesPerSection: 10,
  teamsPerRoot: 5,
  viewersPerSection: 2,
  documents: 390_000,
  /** Documents 0, 2, 4, …: a direct viewer each. */
  directViewerEvery: 2,
} as const;

const sections = SHAPE.roots * SHAPE.sectionsPerRoot;
const leaves = sections * SHAPE.leavesPerSection;

/** The tuples the seed writes, by kind; their sum is the store's size. */
export const TUPLES = {
  memberships: SHAPE.teams * SHAPE.membersPerTeam,
  folderParents: sections + leaves,
  rootViewers: SHAPE.roots * SHAPE.teamsPerRoot,
  sectionViewers: sections * SHAPE.viewersPerSection,
  documentParents: SHAPE.documents,
  owners: SHAPE.documents,
  directViewers: Math.ceil(SHAPE.documents / SHAPE.directViewerEvery),
};
export const TUPLE_COUNT = Object.values(TUPLES).reduce((a, b) => a + b, 0);

/** The leaf folder of document `d`, the section of leaf `l`, the root of section `s`. */
export const leafOf = (d: number) => d % leaves;
export const sectionOf = (l: number) => Math.floor(l / SHAPE.leavesPerSection);
export const rootOf = (s: number) => Math.floor(s / SHAPE.sectionsPerRoot);
/** Team `t`'s members: users t*20 … t*20+19 (mod users); root `r`'s viewers: teams r*5 … r*5+4. */
export const memberOf = (t: number, i: number) => (t * SHAPE.membersPerTeam + i) % SHAPE.users;
/** The owner of document `d`, and its direct viewer (even `d` only). */
export const ownerOf = (d: number) => (d * 31) % SHAPE.users;
export const directViewerOf = (d: number) => (d * 17 + 5) % SHAPE.users;
export const teamOfRoot = (r: number, i: number) => r * SHAPE.teamsPerRoot + i;

export async function seedFgaStore(pool: DatabasePool, environmentId: string) {
  // On one connection without the pool's statement timeout: on a busy host a statement of the seed can take minutes.
  await pool.connect(async (db) => {
    await db.query(sql.unsafe`SET statement_timeout = 0`);
    try {
      await seed(db, environmentId);
    } finally {
      await db.query(sql.unsafe`RESET statement_timeout`);
    }
  });
  return { secret: await createBenchSecret(pool, environmentId, ['fga']) };
}

async function seed(db: CommonQueryMethods, environmentId: string) {
  const insert = (select: ReturnType<typeof sql.fragment>) =>
    db.query(sql.unsafe`
      INSERT INTO fga_tuples (environment_id, object_type, object_id, relation, user_type, user_id, user_relation)
      SELECT ${environmentId}::uuid, t.* FROM (${select}) t`);
  const S = SHAPE;
  await insert(sql.fragment`
    SELECT 'team', 't' || (g / ${S.membersPerTeam}), 'member', 'user', 'u' || (g % ${S.users}), '' FROM generate_series(0, ${TUPLES.memberships - 1}) g`);
  await insert(sql.fragment`
    SELECT 'folder', 's' || g, 'parent', 'folder', 'r' || (g / ${S.sectionsPerRoot}), '' FROM generate_series(0, ${sections - 1}) g
    UNION ALL
    SELECT 'folder', 'l' || g, 'parent', 'folder', 's' || (g / ${S.leavesPerSection}), '' FROM generate_series(0, ${leaves - 1}) g`);
  await insert(sql.fragment`
    SELECT 'folder', 'r' || (g / ${S.teamsPerRoot}), 'viewer', 'team', 't' || g, 'member' FROM generate_series(0, ${TUPLES.rootViewers - 1}) g
    UNION ALL
    SELECT 'folder', 's' || (g / ${S.viewersPerSection}), 'viewer', 'user', 'u' || ((g * 7919) % ${S.users}), '' FROM generate_series(0, ${TUPLES.sectionViewers - 1}) g`);
  await insert(sql.fragment`
    SELECT 'document', 'd' || g, 'parent', 'folder', 'l' || (g % ${leaves}), '' FROM generate_series(0, ${S.documents - 1}) g
    UNION ALL
    SELECT 'document', 'd' || g, 'owner', 'user', 'u' || ((g * 31) % ${S.users}), '' FROM generate_series(0, ${S.documents - 1}) g
    UNION ALL
    SELECT 'document', 'd' || g, 'viewer', 'user', 'u' || ((g * 17 + 5) % ${S.users}), ''
    FROM generate_series(0, ${S.documents - 1}, ${S.directViewerEvery}) g`);
  // Vacuumed as well as analysed: a freshly loaded million rows would have autovacuum compete with the measurements.
  await db.query(sql.unsafe`VACUUM ANALYZE fga_tuples`);
}

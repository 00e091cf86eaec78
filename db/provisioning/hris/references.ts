// The display names of the departments and people an HRIS resource references (department.display,
// manager.displayName, parent.display), read in one statement for a whole page.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Name = z.object({ id: z.uuid(), name: z.string() });

export async function referenceNames(db: CommonQueryMethods, environmentId: string, ids: (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db.any(sql.type(Name)`
    SELECT id, name FROM groups WHERE environment_id = ${environmentId} AND id = ANY(${sql.array(wanted, 'uuid')})
    UNION ALL
    SELECT id, coalesce(display_name, user_name) FROM users WHERE environment_id = ${environmentId} AND id = ANY(${sql.array(wanted, 'uuid')})`);
  return new Map(rows.map((r) => [r.id, r.name]));
}

// Who a notice goes to: directory users' addresses, bound to one environment.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Email = z.object({ email: z.string() });
const Label = z.object({ label: z.string() });

export function createRecipientQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /**
     * The address of each active user among `userIds` and the members of `groupIds`, but `exceptUserId`: their primary
     * email, else their first one; users without an email are left out.
     */
    emailsOf: async (userIds: string[], groupIds: string[], exceptUserId: string) => [
      ...(await db.anyFirst(sql.type(Email)`
        SELECT DISTINCT lower(coalesce(
            (SELECT x->>'value' FROM jsonb_array_elements(u.emails) x WHERE (x->>'primary')::boolean LIMIT 1),
            u.emails->0->>'value')) AS email
        FROM users u
        WHERE u.environment_id = ${environmentId} AND u.active AND u.id <> ${exceptUserId} AND jsonb_array_length(u.emails) > 0
          AND (u.id = ANY(${sql.array(userIds, 'uuid')}) OR EXISTS (SELECT 1 FROM group_members m
            WHERE m.environment_id = ${environmentId} AND m.user_id = u.id AND m.group_id = ANY(${sql.array(groupIds, 'uuid')})))
        ORDER BY 1`)),
    ],

    /** How a user is named in a notice: the display name, else the user name. */
    labelOf: (userId: string) =>
      db.maybeOneFirst(sql.type(Label)`
        SELECT coalesce(u.display_name, u.user_name) AS label FROM users u WHERE u.environment_id = ${environmentId} AND u.id = ${userId}`),
  };
}

// The client allowlist of an environment: when it has entries, only those clients may sign its users in (the
// provider reads it at authorization). Changes are serialized per environment so concurrent edits never interleave.
import { sql, type CommonQueryMethods } from 'slonik';
import { ClientAllowlistEntry } from './rows.ts';

/** Queries of one environment's client allowlist: every statement is bound to `environmentId`. */
export function createClientAllowlistQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Holds the environment's allowlist until the transaction ends. */
    lock: () => db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended('oidc_client_allowlist:' || ${environmentId}, 0))`),

    list: async () => [
      ...(await db.any(sql.type(ClientAllowlistEntry)`
        SELECT a.id, a.client_id AS "clientId", c.name AS "clientName", a.created_at AS "createdAt"
        FROM oidc_client_allowlist a
        LEFT JOIN oidc_clients c ON c.environment_id = a.environment_id AND c.client_id = a.client_id
        WHERE a.environment_id = ${environmentId}
        ORDER BY a.created_at, a.id`)),
    ],

    /** Adds the clients not listed yet, one after the other, so the list shows them in the order given. */
    add: async (clientIds: string[]) => {
      for (const clientId of clientIds) {
        await db.query(sql.unsafe`
          INSERT INTO oidc_client_allowlist (environment_id, client_id, created_at) VALUES (${environmentId}, ${clientId}, clock_timestamp())
          ON CONFLICT (environment_id, client_id) DO NOTHING`);
      }
    },

    /** Removes the listed clients not in `keep`. */
    keepOnly: (keep: string[]) =>
      db.query(sql.unsafe`
        DELETE FROM oidc_client_allowlist WHERE environment_id = ${environmentId} AND NOT (client_id = ANY(${sql.array(keep, 'text')}))`),

    remove: async (clientId: string) =>
      (await db.query(sql.unsafe`DELETE FROM oidc_client_allowlist WHERE environment_id = ${environmentId} AND client_id = ${clientId}`)).rowCount > 0,
  };
}

// The texts the sign-in pages sent (sms_sends, 0046), counted over the last hour for the SMS pumping protection. The
// count and the insert run under a transaction-scoped advisory lock of the environment, so concurrent sends on any
// instance cannot both slip under a rate.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Counts = z.object({ environment: z.number(), number: z.number() });

/** SMS sends of one environment: every statement is bound to `environmentId`. */
export function createSmsSendQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Serialises the environment's sends until the transaction ends. */
    lock: () => db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`sms_sends:${environmentId}`}, 0))`),

    /** Texts sent in the last hour, in all and to the number keyed `numberHash` (an HMAC of it). */
    lastHour: (numberHash: Buffer) =>
      db.one(sql.type(Counts)`
        SELECT count(*)::int AS environment, (count(*) FILTER (WHERE number_hash = ${sql.binary(numberHash)}))::int AS number
        FROM sms_sends WHERE environment_id = ${environmentId} AND sent_at > now() - interval '1 hour'`),

    /** Counts a text, and forgets those older than an hour. */
    add: async (numberHash: Buffer) => {
      await db.query(sql.unsafe`DELETE FROM sms_sends WHERE environment_id = ${environmentId} AND sent_at <= now() - interval '1 hour'`);
      await db.query(sql.unsafe`INSERT INTO sms_sends (environment_id, number_hash) VALUES (${environmentId}, ${sql.binary(numberHash)})`);
    },
  };
}

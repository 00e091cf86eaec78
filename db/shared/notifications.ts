// Credential changes are broadcast with NOTIFY (delivered at commit) so every API instance drops its
// cached verification of the affected principal before the next request.
import pg from 'pg';
import { sql, type CommonQueryMethods } from 'slonik';

export const CREDENTIALS_CHANNEL = 'iam_credentials';

export const notifyCredentialChange = (db: CommonQueryMethods, id: string) => db.query(sql.unsafe`SELECT pg_notify(${CREDENTIALS_CHANNEL}, ${id})`);

export interface Listener {
  close(): Promise<void>;
}

/** LISTENs on a dedicated connection, reconnecting on failure; `onReset` runs whenever messages may have been missed. */
export async function listen(url: string, channel: string, onMessage: (payload: string) => void, onReset: () => void): Promise<Listener> {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (m) => m.channel === channel && onMessage(m.payload ?? ''));
    const lost = () => {
      if (client !== c) return;
      client = undefined;
      schedule();
    };
    c.on('error', lost);
    c.on('end', lost);
    await c.connect();
    await c.query(`LISTEN ${channel}`);
    client = c;
  };
  const schedule = () => {
    if (closed) return;
    onReset();
    retry = setTimeout(() => connect().catch(schedule), 1000);
  };

  await connect();
  return {
    close: async () => {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}

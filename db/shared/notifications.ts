// Credential changes are broadcast with NOTIFY (delivered at commit) so every API instance drops its
// cached verification of the affected principal before the next request. Triggers on the credential tables
// (migration 0009) send them, so no code path has to remember to.
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export const CREDENTIALS_CHANNEL = 'iam_credentials';
/** Environment ids whose access model (directory, RBAC) changed (migration 0013). */
export const MODELS_CHANNEL = 'iam_models';
/** Environment ids whose OpenID provider (clients, keys, settings, claim mappings, allowlist) changed (migration 0027). */
export const OIDC_CHANNEL = 'iam_oidc';
/** Environment ids whose FGA store (models, tuples) changed (migration 0050). */
export const FGA_CHANNEL = 'iam_fga';
/** Host names of vanity domains whose certificate or status changed (migration 0052). */
export const VANITY_CHANNEL = 'iam_vanity';

export interface Listener {
  /**
   * Resolves once every notification committed before the call has been handled: it sends a marker and waits
   * for it, and Postgres delivers notifications (of every channel) in commit order. False when the listener is not
   * connected or the marker did not come back in time (the caller must then assume it missed some).
   */
  sync(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * LISTENs on a dedicated connection to every channel of `handlers`, reconnecting on failure; `onReset` runs whenever
 * messages may have been missed. One connection for all channels, so `sync` covers them all.
 */
export async function listen(url: string, handlers: Record<string, (payload: string) => void>, onReset: () => void): Promise<Listener> {
  const channels = Object.keys(handlers);
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  // Markers travel on a channel of this listener's own, so other instances never see them.
  const markerChannel = `iam_sync_${randomUUID().replace(/-/g, '')}`;
  const markers = new Map<string, () => void>();

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (m) => {
      if (m.channel === markerChannel) markers.get(m.payload ?? '')?.();
      else handlers[m.channel]?.(m.payload ?? '');
    });
    const lost = () => {
      if (client !== c) return;
      client = undefined;
      schedule();
    };
    c.on('error', lost);
    c.on('end', lost);
    await c.connect();
    for (const channel of channels) await c.query(`LISTEN ${channel}`);
    await c.query(`LISTEN ${markerChannel}`);
    client = c;
  };
  const schedule = () => {
    if (closed) return;
    onReset();
    retry = setTimeout(() => connect().catch(schedule), 1000);
  };

  // One query at a time on the LISTEN connection: pg refuses overlapping queries on a client from version 9.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(run: () => Promise<T>): Promise<T> => {
    const result = queue.then(run);
    queue = result.catch(() => {});
    return result;
  };

  await connect();
  return {
    sync: async (timeoutMs = 2000) => {
      const c = client;
      if (!c) return false;
      const marker = randomUUID();
      let timer: NodeJS.Timeout | undefined;
      const arrived = new Promise<boolean>((resolve) => {
        markers.set(marker, () => resolve(true));
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      try {
        await serially(() => c.query('SELECT pg_notify($1, $2)', [markerChannel, marker]));
        return await arrived;
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
        markers.delete(marker);
      }
    },
    close: async () => {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}

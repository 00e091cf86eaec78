// What a run of several instances must show: acknowledged writes readable, every event of the webhook's types
// delivered, a revocation on one instance seen by the others, and a rate limit counted across instances.
import type { Cluster, Instance } from './cluster.ts';
import { call, must } from './client.ts';
import type { Ledger, Workload } from './load.ts';

const pick = (cluster: Cluster, i: number) => cluster.apis[i % cluster.apis.length]!;

/** The acknowledged writes that cannot be read back (through the instances in turn): none expected. */
export async function lostWrites(cluster: Cluster, w: Workload, ledger: Ledger): Promise<string[]> {
  const lost: string[] = [];
  const reads = [
    ...ledger.users.map((id) => [id, `${w.env}/directory/users/${id}`] as const),
    ...ledger.tenants.map((id) => [id, `/v1/tenants/${id}`] as const),
  ];
  for (let i = 0; i < reads.length; i += 20) {
    const batch = reads.slice(i, i + 20);
    const answers = await Promise.all(batch.map(([, path], j) => call(pick(cluster, i + j).url, 'GET', path, w.token)));
    answers.forEach((a, j) => a.status !== 200 && lost.push(`${batch[j]![0]}: ${a.status}`));
  }
  return lost;
}

/** The ids of the events the webhook subscribes to, from the tenant's event stream. */
export async function subscribedEventIds(cluster: Cluster, w: Workload): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `type=directory.*&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await must(200, cluster.apis[0]!.url, 'GET', `/v1/tenants/${w.tenantId}/events?${query}`, w.token);
    ids.push(...(page.events as { id: string }[]).map((e) => e.id));
    cursor = page.hasMore ? (page.nextCursor as string) : null;
  } while (cursor);
  return ids;
}

const isLive = (i: Instance) => Boolean(i.child && i.child.exitCode === null && i.child.signalCode === null);

/**
 * Revokes a secret on the first instance and measures, on each other one, the time from the revocation's answer until
 * that instance refuses the secret (it had verified and cached it before). Milliseconds per instance.
 */
export async function revocationPropagation(cluster: Cluster, w: Workload): Promise<number[]> {
  const [first, ...others] = cluster.apis.filter(isLive);
  const created = await must(201, first!.url, 'POST', `${w.env}/api-secrets`, w.token, { name: 'revoked soon', purposes: ['authzen'] });
  const body = { subject: { type: 'user', id: 'x' }, action: { name: 'read' }, resource: { type: 'document', id: 'd' } };
  for (const instance of others) await must(200, instance.url, 'POST', '/access/v1/evaluation', created.secret as string, body);
  await must(200, first!.url, 'POST', `${w.env}/api-secrets/${(created.apiSecret as { id: string }).id}/revoke`, w.token);
  const revokedAt = performance.now();
  return Promise.all(
    others.map(async (instance) => {
      while (performance.now() - revokedAt < 5000) {
        const a = await call(instance.url, 'POST', '/access/v1/evaluation', created.secret as string, body);
        if (a.status === 401) return performance.now() - revokedAt;
      }
      return Infinity;
    }),
  );
}

/**
 * A secret allowed `perMinute` requests a minute, used for `sent` requests spread over every instance in turn: how
 * many were answered 200 and how many 429. Shared counting answers about `perMinute` in all; a count per instance
 * would let each instance take its own `perMinute`.
 */
export async function rateLimitAcrossInstances(cluster: Cluster, w: Workload, perMinute: number, sent: number) {
  const live = cluster.apis.filter(isLive);
  const secret = (
    await must(201, live[0]!.url, 'POST', `${w.env}/api-secrets`, w.token, { name: 'limited', purposes: ['authzen'], rateLimitPerMinute: perMinute })
  ).secret as string;
  const body = { subject: { type: 'user', id: 'x' }, action: { name: 'read' }, resource: { type: 'document', id: 'd' } };
  const counts = { ok: 0, limited: 0, other: 0 };
  for (let i = 0; i < sent; i++) {
    const a = await call(live[i % live.length]!.url, 'POST', '/access/v1/evaluation', secret, body);
    if (a.status === 200) counts.ok++;
    else if (a.status === 429) counts.limited++;
    else counts.other++;
  }
  return counts;
}

// Mixed load over every live API instance, round robin: directory users created with the management token and
// through SCIM (both produce `directory.user.created`, which a webhook delivers to the receiver), tenants created,
// users read back, and AuthZEN evaluations with an environment API secret. Every acknowledged (2xx) write is kept
// in a ledger, to be read back afterwards; a request to an instance being killed fails with status 0 and is not.
import { randomUUID } from 'node:crypto';
import type { Cluster } from './cluster.ts';
import { call, clientToken, must, type Answer } from './client.ts';

export const WEBHOOK_ROUTE = '/scale';

export interface Workload {
  token: string;
  tenantId: string;
  /** /v1/tenants/{tenantId}/environments/{environmentId} */
  env: string;
  apiSecret: string;
  scimToken: string;
}

export interface Ledger {
  users: string[];
  tenants: string[];
  /** Answers by kind of operation and status (0: no answer). */
  statuses: Record<string, Record<number, number>>;
  /** Answered requests per API instance. */
  perInstance: Record<string, number>;
  latenciesMs: number[];
  /** Answers of reads other than 200 (for the message of a failure). */
  refusals: string[];
  elapsedMs: number;
}

const EVALUATION = { subject: { type: 'user', id: 'nobody' }, action: { name: 'read' }, resource: { type: 'document', id: 'd-1' } };

/** A tenant with an environment, its webhook to the receiver, an AuthZEN secret and a SCIM token, made through the first API. */
export async function prepare(cluster: Cluster, receiverUrl: string): Promise<Workload> {
  const base = cluster.apis[0]!.url;
  const token = await clientToken(base, cluster.clientId, cluster.clientSecret);
  const tenantId = (await must(201, base, 'POST', '/v1/tenants', token, { name: 'Scale run' })).tenant.id as string;
  const project = (await must(201, base, 'POST', `/v1/tenants/${tenantId}/projects`, token, { name: 'App' })).project;
  const env = `/v1/tenants/${tenantId}/environments/${project.defaultEnvironmentId as string}`;
  await must(201, base, 'POST', `/v1/tenants/${tenantId}/webhooks`, token, { url: `${receiverUrl}${WEBHOOK_ROUTE}`, eventTypes: ['directory.*'] });
  const apiSecret = (await must(201, base, 'POST', `${env}/api-secrets`, token, { name: 'pep', purposes: ['authzen'] })).secret as string;
  const scimToken = (await must(201, base, 'POST', `${env}/provisioning-tokens`, token, { name: 'idp', kind: 'scim' })).token as string;
  return { token, tenantId, env, apiSecret, scimToken };
}

type Operation = (base: string, w: Workload, ledger: Ledger) => Promise<[string, Answer]>;

const OPERATIONS: [weight: number, Operation][] = [
  [
    3,
    async (base, w, ledger) => {
      const a = await call(base, 'POST', `${w.env}/directory/users`, w.token, { userName: `u-${randomUUID()}` });
      if (a.status === 201) ledger.users.push((a.body.user as { id: string }).id);
      return ['user create', a];
    },
  ],
  [
    2,
    async (base, w, ledger) => {
      const userName = `scim-${randomUUID()}`;
      const a = await call(base, 'POST', '/v1/scim/v2/Users', w.scimToken, { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName });
      if (a.status === 201) ledger.users.push(a.body.id as string);
      return ['scim create', a];
    },
  ],
  [
    1,
    async (base, w, ledger) => {
      const a = await call(base, 'POST', '/v1/tenants', w.token, { name: `t-${randomUUID().slice(0, 8)}` });
      if (a.status === 201) ledger.tenants.push((a.body.tenant as { id: string }).id);
      return ['tenant create', a];
    },
  ],
  [
    2,
    async (base, w, ledger) => {
      const id = ledger.users[Math.floor(Math.random() * ledger.users.length)];
      if (!id) return ['user read', { status: 200, body: {} }];
      const a = await call(base, 'GET', `${w.env}/directory/users/${id}`, w.token);
      return ['user read', a];
    },
  ],
  [2, async (base, w) => ['evaluation', await call(base, 'POST', '/access/v1/evaluation', w.apiSecret, EVALUATION)]],
];
const PICKS = OPERATIONS.flatMap(([weight, op]) => Array<Operation>(weight).fill(op));

/** Runs `concurrency` loops until `until()` is true; each request goes to the next live API instance. */
export async function drive(cluster: Cluster, w: Workload, options: { concurrency: number; until: () => boolean }): Promise<Ledger> {
  const ledger: Ledger = { users: [], tenants: [], statuses: {}, perInstance: {}, latenciesMs: [], refusals: [], elapsedMs: 0 };
  let next = 0;
  const started = performance.now();
  const loop = async () => {
    while (!options.until()) {
      const live = cluster.apis.filter((i) => i.child && i.child.exitCode === null && i.child.signalCode === null);
      const instance = live[next++ % Math.max(live.length, 1)] ?? cluster.apis[0]!;
      const t0 = performance.now();
      const [kind, { status, body }] = await PICKS[Math.floor(Math.random() * PICKS.length)]!(instance.url, w, ledger);
      ledger.latenciesMs.push(performance.now() - t0);
      const byStatus = (ledger.statuses[kind] ??= {});
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      if (status >= 300) ledger.refusals.push(`${kind} on ${instance.name}: ${status} ${JSON.stringify(body)}`);
      if (status) ledger.perInstance[instance.name] = (ledger.perInstance[instance.name] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  ledger.elapsedMs = performance.now() - started;
  return ledger;
}

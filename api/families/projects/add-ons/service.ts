// An environment's add-ons (today the bot challenges): one record per kind, secrets sealed under the master key and
// shown only as hints, at most one active per category, and a test that calls the vendor with a dummy token.
import type { DatabasePool } from 'slonik';
import { decrypt, encrypt } from '../../../../lib/crypto.ts';
import { emailSecretHints } from '../../../../lib/email/kinds.ts';
import { siteverify, type SiteverifyPolicy } from '../../../../lib/challenge/siteverify.ts';
import type { BotChallengeKind } from '../../../../lib/challenge/kinds.ts';
import { createAddOnQueries } from '../../../../db/add-ons/queries.ts';
import type { AddOnKind, EnvironmentAddOn } from '../../../../db/add-ons/rows.ts';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { checkTargetUrl } from '../../../access/reach.ts';
import { ApiError, orNotFound } from '../../../errors.ts';
import { invalidAddOn, parseAddOnFields } from './fields.ts';
import { addOnDeliveries, testForwarding } from './forwarding.ts';
import { isForwardingKind } from '../../../../lib/forwarding/kinds.ts';
import type { DeliveriesQuery } from './schemas.ts';
import { testStripe } from './stripe-test.ts';

type Fields = Record<string, unknown>;
type Db = Parameters<typeof createAddOnQueries>[0];

export interface SaveAddOn {
  active?: boolean | undefined;
  config?: Fields | undefined;
  secrets?: Fields | undefined;
}

/** The token a test sends: no vendor accepts it, so the answer says whether the secret is (`invalid-input-response`). */
const DUMMY_TOKEN = 'iam-add-on-test-token';
const SECRET_REFUSED = new Set(['invalid-input-secret', 'missing-input-secret']);
/** The API a kind's test calls, for the 502's message (bot challenges: siteverify). */
const VENDOR_API: Partial<Record<AddOnKind, string>> = { stripe: 'Stripe' };

export function createAddOnService(deps: { pool: DatabasePool; masterKey: Buffer; outbound: SiteverifyPolicy }) {
  const { pool, masterKey } = deps;
  const queries = (db: Db, caller: EnvironmentCaller) => createAddOnQueries(db, caller.scope.environmentId);
  const find = (db: Db, caller: EnvironmentCaller, kind: AddOnKind) => orNotFound(queries(db, caller).find(kind), 'add_on', kind);
  const secretsOf = async (caller: EnvironmentCaller, kind: AddOnKind): Promise<Fields> => {
    const sealed = await queries(pool, caller).findSecretsEncrypted(kind);
    return sealed ? (JSON.parse(decrypt(masterKey, sealed)) as Fields) : {};
  };

  return {
    list: async (caller: EnvironmentCaller) => ({ addOns: [...(await queries(pool, caller).list())] }),

    /** Creates or updates the environment's add-on of a kind; an update may leave out config or secrets to keep them. */
    save: async (caller: EnvironmentCaller, kind: AddOnKind, body: SaveAddOn) => {
      const current = await queries(pool, caller).find(kind);
      if (!current && body.config === undefined) throw invalidAddOn([{ path: 'body.config', message: 'is required' }]);
      const merged = { ...(current ? await secretsOf(caller, kind) : {}), ...body.secrets };
      const { config, secrets } = parseAddOnFields(kind, body.config ?? current!.config, merged);
      if (body.config && typeof config.baseUrl === 'string')
        await checkTargetUrl(config.baseUrl, { ...deps.outbound, path: 'body.config.baseUrl', code: 'add_on.url_refused' });
      return pool.transaction(async (trx) => {
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(caller.scope.environmentId);
        const q = queries(trx, caller);
        const before = await q.find(kind);
        let addOn: EnvironmentAddOn = await q.upsert(kind, {
          config,
          secretsEncrypted: encrypt(masterKey, JSON.stringify(secrets)),
          secretHints: emailSecretHints(secrets),
        });
        let deactivated: string | null = null;
        if (body.active !== undefined && body.active !== addOn.active) ({ row: addOn, deactivated } = await q.setActive(kind, body.active));
        await record(trx, caller, {
          action: 'add_on.save',
          resource: { type: 'add_on', id: addOn.id },
          before,
          after: addOn,
          event: { type: 'add_on.saved', data: { addOn, deactivated } },
        });
        return { addOn };
      });
    },

    remove: (caller: EnvironmentCaller, kind: AddOnKind) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, kind);
        await queries(trx, caller).remove(kind);
        await record(trx, caller, {
          action: 'add_on.delete',
          resource: { type: 'add_on', id: before.id },
          before,
          after: null,
          event: { type: 'add_on.deleted', data: { addOn: before } },
        });
        return { success: true as const };
      }),

    /** Calls the vendor's siteverify with a dummy token now and reports its answer; unreachable is a 502. */
    test: async (caller: EnvironmentCaller, kind: AddOnKind) => {
      const addOn = await find(pool, caller, kind);
      if (isForwardingKind(kind)) return testForwarding(pool, caller, addOn, await secretsOf(caller, kind), deps.outbound);
      const secret = String((await secretsOf(caller, kind)).secretKey ?? '');
      const baseUrl = typeof addOn.config.baseUrl === 'string' ? addOn.config.baseUrl : undefined;
      const answer =
        kind === 'stripe' ? null : await siteverify(kind as BotChallengeKind, baseUrl, { secret, response: DUMMY_TOKEN, remoteIp: null }, deps.outbound);
      const outcome = !answer
        ? await testStripe(addOn.config, secret, deps.outbound)
        : answer.reached
          ? {
              reached: true,
              success: answer.success,
              errorCodes: answer.errorCodes,
              secretAccepted: !answer.errorCodes.some((c) => SECRET_REFUSED.has(c)),
              error: null,
            }
          : { reached: false, success: false, errorCodes: [], secretAccepted: false, error: answer.error };
      await pool.transaction((trx) =>
        record(trx, caller, {
          action: 'add_on.test',
          resource: { type: 'add_on', id: addOn.id },
          event: { type: 'add_on.tested', data: { addOn, ...outcome } },
        }),
      );
      if (!outcome.reached)
        throw new ApiError(502, 'add_on.test_failed', `The ${kind} ${VENDOR_API[kind] ?? 'siteverify'} API could not be used: ${outcome.error}`);
      return { success: outcome.success, errorCodes: outcome.errorCodes, secretAccepted: outcome.secretAccepted };
    },

    /** The deliveries of a forwarding add-on (segment, analytics), newest first; 404 when the kind is not saved. */
    deliveries: async (caller: EnvironmentCaller, kind: AddOnKind, query: DeliveriesQuery) =>
      addOnDeliveries(pool).list(caller, await find(pool, caller, kind), query),

    delivery: async (caller: EnvironmentCaller, kind: AddOnKind, deliveryId: string) =>
      addOnDeliveries(pool).get(caller, await find(pool, caller, kind), deliveryId),
  };
}

export type AddOnService = ReturnType<typeof createAddOnService>;

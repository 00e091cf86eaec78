// An environment's SMS providers: one per kind, tried in `rank` order (lowest first) among the active ones. Secrets
// are sealed under the master key and never returned (masked hints only); a test sends a real SMS through the vendor.
import type { DatabasePool, DatabaseTransactionConnection } from 'slonik';
import { decrypt, encrypt } from '../../lib/crypto.ts';
import { recipientRefusal, e164Country } from '../../lib/sms/phone.ts';
import { smsSenderOf } from '../../lib/sms/vendors/index.ts';
import { SmsVendorError, type SmsTransport } from '../../lib/sms/vendor-call.ts';
import type { EventOf, EventType } from '../../db/event-catalog.ts';
import { createSmsProviderQueries } from '../../db/sms-providers/queries.ts';
import type { EnvironmentSmsProvider, SmsProviderKind, SmsProviderRecord } from '../../db/sms-providers/rows.ts';
import { ApiError, invalidField } from '../errors.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../access/caller.ts';
import { checkTargetUrl } from '../access/reach.ts';
import { scopedEnvironment } from '../families/projects/environments/service.ts';
import { INVALID, parseProviderFields, secretHints } from './fields.ts';

type Fields = Record<string, unknown>;

export interface SaveSmsProviderInput {
  provider?: string;
  active?: boolean;
  rank?: number;
  config?: Fields;
  secrets?: Fields;
}

export interface SmsProviderServiceDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  transport: SmsTransport;
}

const URL_REFUSED = 'sms_provider.url_refused';
const TEST_TEXT = 'Test message: this SMS provider works.';

export const toSmsProvider = ({ secretsEncrypted: _sealed, ...p }: SmsProviderRecord): EnvironmentSmsProvider => p;

export function createSmsProviderService(deps: SmsProviderServiceDeps) {
  const { pool } = deps;
  const unseal = (p: SmsProviderRecord) => JSON.parse(decrypt(deps.masterKey, p.secretsEncrypted)) as Fields;
  const find = async (db: DatabaseTransactionConnection | DatabasePool, caller: EnvironmentCaller, kind: SmsProviderKind) => {
    await scopedEnvironment(db, caller);
    const found = await createSmsProviderQueries(db, caller.scope.environmentId).find(kind);
    if (!found) throw new ApiError(404, 'sms_provider.not_found', `This environment has no ${kind} SMS provider.`);
    return found;
  };
  /** Credentials go to the vendor only over https, to a public address unless the deployment allows private targets. */
  const checkBaseUrl = async (url: string) => {
    const options = { allowPrivate: deps.transport.allowPrivate, lookup: deps.transport.lookup, path: 'body.config.baseUrl', code: URL_REFUSED };
    if (!url.startsWith('https:') && !options.allowPrivate) throw invalidField(options.path, 'must be an https URL', URL_REFUSED);
    await checkTargetUrl(url, options);
  };
  const change = <T extends EventType>(verb: string, p: SmsProviderRecord, before: SmsProviderRecord | null, event: EventOf<T>): CallerChange<T> => ({
    action: `sms_provider.${verb}`,
    resource: { type: 'sms_provider', id: p.id },
    ...(verb === 'test' ? {} : { before: before && toSmsProvider(before), after: verb === 'delete' ? null : toSmsProvider(p) }),
    event,
  });

  return {
    /** The environment's providers by failover rank, lowest first. */
    list: async (caller: EnvironmentCaller) => {
      await scopedEnvironment(pool, caller);
      const providers = await createSmsProviderQueries(pool, caller.scope.environmentId).list();
      return { providers: providers.map(toSmsProvider) };
    },

    /** Creates or updates the provider of `kind`; an update keeps the stored config, secrets, rank and state it omits. */
    save: async (caller: EnvironmentCaller, kind: SmsProviderKind, input: SaveSmsProviderInput) => {
      if (input.provider !== undefined && input.provider !== kind) throw invalidField('body.provider', `must be ${kind}, the provider in the path`, INVALID);
      const stored = await createSmsProviderQueries(pool, caller.scope.environmentId).find(kind);
      const { config, secrets } = parseProviderFields(kind, input.config ?? stored?.config ?? {}, input.secrets ?? {}, stored ? unseal(stored) : {});
      if (typeof config.baseUrl === 'string') await checkBaseUrl(config.baseUrl);
      return pool.transaction(async (trx) => {
        await scopedEnvironment(trx, caller);
        const queries = createSmsProviderQueries(trx, caller.scope.environmentId);
        const before = await queries.find(kind);
        const saved = await queries.upsert(kind, {
          active: input.active ?? before?.active ?? true,
          rank: input.rank ?? before?.rank ?? (await queries.nextRank()),
          config,
          secretsEncrypted: encrypt(deps.masterKey, JSON.stringify(secrets)),
          secretHints: secretHints(secrets),
        });
        const provider = toSmsProvider(saved);
        await record(
          trx,
          caller,
          change('save', saved, before, { type: 'sms_provider.saved', data: { environmentId: saved.environmentId, provider, created: !before } }),
        );
        return { created: !before, provider };
      });
    },

    remove: (caller: EnvironmentCaller, kind: SmsProviderKind) =>
      pool.transaction(async (trx) => {
        await scopedEnvironment(trx, caller);
        const queries = createSmsProviderQueries(trx, caller.scope.environmentId);
        const before = await find(trx, caller, kind);
        await queries.delete(kind);
        const data = { environmentId: before.environmentId, provider: toSmsProvider(before) };
        await record(trx, caller, change('delete', before, before, { type: 'sms_provider.deleted', data }));
        return { success: true };
      }),

    /** Sends a real test SMS through the provider (active or not); a vendor refusal is a 502 with the vendor's text. */
    test: async (caller: EnvironmentCaller, kind: SmsProviderKind, recipient: string) => {
      const p = await find(pool, caller, kind);
      const refusal = recipientRefusal(recipient, p.config?.allowedCountries as string[] | undefined);
      if (refusal) throw invalidField('body.recipient', refusal, INVALID);
      let outcome: { messageId: string | null; error: string | null };
      try {
        const sender = smsSenderOf(kind, p.config ?? {}, unseal(p), deps.transport);
        outcome = { messageId: (await sender.send({ to: recipient, text: TEST_TEXT })).messageId, error: null };
      } catch (error) {
        if (!(error instanceof SmsVendorError)) throw error;
        outcome = { messageId: null, error: error.message };
      }
      const data = {
        environmentId: p.environmentId,
        provider: toSmsProvider(p),
        success: !outcome.error,
        ...outcome,
        recipientCountry: e164Country(recipient).country,
      };
      await pool.transaction((trx) => record(trx, caller, change('test', p, null, { type: 'sms_provider.tested', data })));
      if (outcome.error) throw new ApiError(502, 'sms_provider.refused', outcome.error);
      return { success: true, messageId: outcome.messageId! };
    },
  };
}

export type SmsProviderService = ReturnType<typeof createSmsProviderService>;

// An environment's email providers: one record per kind, secrets sealed under the master key and shown only as hints,
// at most one active (the one messages go through), and a test send through the vendor's real API.
import type { DatabasePool } from 'slonik';
import { decrypt, encrypt } from '../../lib/crypto.ts';
import { emailConfigSchemas, emailSecretHints, emailSecretSchemas, type EmailProviderKind } from '../../lib/email/kinds.ts';
import { EmailSendError, senderOf, type EmailSender, type OutboundPolicy } from '../../lib/email/vendors/index.ts';
import { createEmailProviderQueries } from '../../db/email-providers/queries.ts';
import type { EnvironmentEmailProvider } from '../../db/email-providers/rows.ts';
import { createEnvironmentQueries } from '../../db/projects/environments/queries.ts';
import { record, type EnvironmentCaller } from '../access/caller.ts';
import { checkTargetUrl } from '../access/reach.ts';
import { ApiError, orNotFound } from '../errors.ts';
import { invalidProvider, parseProviderFields } from './fields.ts';
import { testMessage } from './test-message.ts';

type Fields = Record<string, unknown>;
type Db = Parameters<typeof createEmailProviderQueries>[0];

export interface EmailProviderServiceDeps extends OutboundPolicy {
  pool: DatabasePool;
  masterKey: Buffer;
}

export interface SaveEmailProvider {
  provider: string;
  active?: boolean;
  config?: Fields;
  secrets?: Fields;
}

const REFUSED = 'email_provider.url_refused';

export function createEmailProviderService(deps: EmailProviderServiceDeps) {
  const { pool, masterKey } = deps;
  const policy: OutboundPolicy = { timeoutMs: deps.timeoutMs, allowPrivate: deps.allowPrivate, lookup: deps.lookup };
  const queries = (db: Db, caller: EnvironmentCaller) => createEmailProviderQueries(db, caller.scope.environmentId);
  const find = (db: Db, caller: EnvironmentCaller, kind: EmailProviderKind) => orNotFound(queries(db, caller).find(kind), 'email_provider', kind);
  const secretsOf = async (db: Db, caller: EnvironmentCaller, kind: EmailProviderKind): Promise<Fields> => {
    const sealed = await queries(db, caller).findSecretsEncrypted(kind);
    return sealed ? (JSON.parse(decrypt(masterKey, sealed)) as Fields) : {};
  };

  /** Refuses a private or unresolvable target (unless allowed), as the request would be sent. */
  const checkTargets = async (kind: EmailProviderKind, config: Fields) => {
    const check = (url: string, path: string) => checkTargetUrl(url, { allowPrivate: deps.allowPrivate, lookup: deps.lookup, path, code: REFUSED });
    if (typeof config.baseUrl === 'string') await check(config.baseUrl, 'body.config.baseUrl');
    if (kind === 'smtp') await check(`http://${String(config.host)}:${Number(config.port)}/`, 'body.config.host');
  };

  const activate = async (trx: Db, caller: EnvironmentCaller, kind: EmailProviderKind) => {
    const { row, deactivated } = await queries(trx, caller).setActive(kind, true);
    await record(trx, caller, {
      action: 'email_provider.activate',
      resource: { type: 'email_provider', id: row.id },
      event: { type: 'email_provider.activated', data: { provider: row, deactivated } },
    });
    return row;
  };

  return {
    list: async (caller: EnvironmentCaller) => ({ providers: [...(await queries(pool, caller).list())] }),

    /** Creates or updates the environment's provider of a kind; an update may leave out config or secrets to keep them. */
    save: async (caller: EnvironmentCaller, kind: EmailProviderKind, body: SaveEmailProvider) => {
      if (body.provider !== kind) throw invalidProvider([{ path: 'body.provider', message: `must be the provider of the path (${kind})` }]);
      const current = await queries(pool, caller).find(kind);
      if (!current && body.config === undefined) throw invalidProvider([{ path: 'body.config', message: 'is required' }]);
      // Given secrets replace the stored ones, null removes one (an optional one such as dkimPrivateKey), the rest are kept.
      const merged = { ...(current ? await secretsOf(pool, caller, kind) : {}), ...body.secrets };
      const secretsGiven = Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== null));
      const { config, secrets } = parseProviderFields(kind, body.config ?? current!.config, secretsGiven);
      if (body.config) await checkTargets(kind, config);
      return pool.transaction(async (trx) => {
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(caller.scope.environmentId);
        const q = queries(trx, caller);
        const before = await q.find(kind);
        let provider = await q.upsert(kind, { config, secretsEncrypted: encrypt(masterKey, JSON.stringify(secrets)), secretHints: emailSecretHints(secrets) });
        await record(trx, caller, {
          action: 'email_provider.save',
          resource: { type: 'email_provider', id: provider.id },
          before,
          after: provider,
          event: { type: 'email_provider.saved', data: { provider } },
        });
        if (body.active === true && !provider.active) provider = await activate(trx, caller, kind);
        if (body.active === false && provider.active) provider = (await q.setActive(kind, false)).row;
        return { provider };
      });
    },

    /** Makes the provider the environment's only active one (the one active before, if any, is deactivated). */
    activate: (caller: EnvironmentCaller, kind: EmailProviderKind) =>
      pool.transaction(async (trx) => {
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(caller.scope.environmentId);
        const current = await find(trx, caller, kind);
        return { provider: current.active ? current : await activate(trx, caller, kind) };
      }),

    remove: (caller: EnvironmentCaller, kind: EmailProviderKind) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, kind);
        await queries(trx, caller).remove(kind);
        await record(trx, caller, {
          action: 'email_provider.delete',
          resource: { type: 'email_provider', id: before.id },
          before,
          after: null,
          event: { type: 'email_provider.deleted', data: { provider: before } },
        });
        return { success: true as const };
      }),

    /** Sends a test message to `recipient` through the saved provider now; a vendor refusal is a 502 with its words. */
    test: async (caller: EnvironmentCaller, input: { provider: EmailProviderKind; recipient: string }) => {
      const provider = await find(pool, caller, input.provider);
      const sender = senderFor(provider, await secretsOf(pool, caller, input.provider), policy);
      const outcome = await sender.send({ to: input.recipient, ...testMessage(provider.provider) }).then(
        ({ messageId }) => ({ success: true, messageId, error: null }),
        (error: unknown) => {
          if (error instanceof EmailSendError) return { success: false, messageId: null, error: error.message };
          throw error;
        },
      );
      await pool.transaction((trx) =>
        record(trx, caller, {
          action: 'email_provider.test',
          resource: { type: 'email_provider', id: provider.id },
          event: { type: 'email_provider.tested', data: { provider, recipient: input.recipient, ...outcome } },
        }),
      );
      if (!outcome.success)
        throw new ApiError(502, 'email_provider.send_failed', `The ${provider.provider} provider refused the test message: ${outcome.error}`);
      return { success: true, messageId: outcome.messageId! };
    },
  };
}

/** The sender of a stored provider (config parsed again, so defaults apply) with its decrypted secrets. */
export function senderFor(provider: Pick<EnvironmentEmailProvider, 'provider' | 'config'>, secrets: Fields, policy: OutboundPolicy): EmailSender {
  const kind = provider.provider;
  return senderOf(kind, emailConfigSchemas[kind].parse(provider.config) as never, emailSecretSchemas[kind].parse(secrets) as never, policy);
}

/**
 * The sender of an environment's active email provider, or null when none is active: what the sending process
 * (and the sign-in pages, once wired) call instead of the log sender.
 */
export async function activeEmailSender(deps: EmailProviderServiceDeps, environmentId: string): Promise<EmailSender | null> {
  const q = createEmailProviderQueries(deps.pool, environmentId);
  const active = (await q.list()).find((p) => p.active);
  if (!active) return null;
  const sealed = await q.findSecretsEncrypted(active.provider);
  return senderFor(active, JSON.parse(decrypt(deps.masterKey, sealed!)) as Fields, deps);
}

export type EmailProviderService = ReturnType<typeof createEmailProviderService>;

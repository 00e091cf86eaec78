// Sign-up on the sign-in pages, where the environment allows it: a person gives an email, a password and maybe a
// name; a directory user is created (userName = the email, email unverified, no sign-in until verified) and a
// 6-digit code is sent to the email (stored as SHA-256 of code and row id; 10 minutes, 5 attempts). The right code
// marks the email verified and signs the user in. An email that already has an account gets a message saying so,
// and the page is the same: the form tells nobody whether an account exists. Signing up again with the email of a
// sign-up never verified replaces its password and code (the account is whoever's the email is).
import { randomUUID } from 'node:crypto';
import type { DatabasePool, DatabaseTransactionConnection } from 'slonik';
import type Provider from 'oidc-provider';
import { hashPassword } from '../../../../lib/passwords.ts';
import { secretsEqual, sixDigitCode } from '../../../../lib/crypto.ts';
import { codeHash } from '../../../email-codes/service.ts';
import type { MessageSender } from '../../../../lib/messages/sender.ts';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import { createPasswordQueries } from '../../../../db/directory/passwords/queries.ts';
import { createSignInQueries } from '../../../../db/oidc/sign-in/queries.ts';
import { createSignUpQueries } from '../../../../db/oidc/sign-in/sign-up.ts';
import { recordChange, type RequestOrigin } from '../../../../db/shared/changes.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import type { Messages } from '../../../oidc/pages/i18n/index.ts';
import { localeOf } from '../../../messages/locale.ts';
import { userChange } from '../../directory/users/service.ts';
import { EMAIL_CODE_AMR } from '../../../email-codes/service.ts';
import { answeredForms, withAnswers, type SubmittedForm } from '../../../forms/sign-up.ts';

export const CODE_TTL_SECONDS = 600;
export const MAX_ATTEMPTS = 5;

export interface SignUpInput {
  email: string;
  /** Null: a sign-up without a password (password sign-in off); the emailed code is the only factor. */
  password: string | null;
  displayName: string | null;
  /** The answers to the forms attached to sign-up (stored on the user under `attributes.forms.<key>`). */
  forms?: readonly SubmittedForm[];
}

export type VerifyResult = { kind: 'verified'; userId: string; amr: string[] } | { kind: 'wrong' } | { kind: 'expired' };

/** A sign-up taken over (never verified): its answers replace the earlier ones, recorded as the user's own change. */
async function replaceAnswers(
  trx: DatabaseTransactionConnection,
  environmentId: string,
  userId: string,
  forms: readonly SubmittedForm[],
  where: { origin: RequestOrigin; scope: { tenantId: string; environmentId: string } },
) {
  const users = createDirectoryUserQueries(trx, environmentId);
  const before = await users.findUser(userId, 'update');
  if (!before) return;
  const user = await users.updateUser(userId, { attributes: withAnswers(before.attributes, forms) });
  const change = userChange('update', user, before);
  await recordChange(trx, {
    ...change,
    event: { type: 'directory.user.updated', data: { user, forms: answeredForms(forms) } },
    actor: { type: 'user', id: userId },
    ...where,
  });
}

export function createSignUpService(pool: DatabasePool, sender: MessageSender, log: { error(fields: object, message: string): void }) {
  const send = (message: Parameters<MessageSender['send']>[0]) =>
    sender.send(message).catch((error: unknown) => log.error({ err: error, template: message.template }, 'message could not be sent'));

  return {
    /**
     * Creates the user and sends the code; returns the id the verification page carries. For an email that already
     * belongs to a user, sends that user a notice instead and returns an id that no code matches.
     */
    start: async (provider: Provider, environmentId: string, input: SignUpInput, t: Messages, origin: RequestOrigin) => {
      const { tenantId } = snapshotOf(provider);
      const id = randomUUID();
      const email = input.email.toLowerCase();
      const hash = input.password === null ? null : await hashPassword(input.password);
      const existing = await createSignInQueries(pool, environmentId).findByLogin(email);
      const code = sixDigitCode();
      const forms = input.forms ?? [];
      const sendCode = () => send({ to: email, template: 'verification', params: { code }, environmentId, locale: localeOf(t) });
      if (existing?.pendingSignUp && existing.userName === email) {
        // A sign-up never verified (someone else's typo, a lost code): whoever receives the new code owns the account.
        await pool.transaction(async (trx) => {
          const codes = createSignUpQueries(trx, environmentId);
          await codes.deleteCodesOf(existing.id);
          const passwords = createPasswordQueries(trx, environmentId);
          await (hash ? passwords.setPassword(existing.id, hash) : passwords.deletePassword(existing.id));
          await codes.insertCode({ id, userId: existing.id, email, codeHash: codeHash(code, id), ttlSeconds: CODE_TTL_SECONDS });
          if (forms.length > 0) await replaceAnswers(trx, environmentId, existing.id, forms, { origin, scope: { tenantId, environmentId } });
        });
        await sendCode();
        return id;
      }
      if (existing) {
        await send({ to: email, template: 'account_exists', params: {}, environmentId, locale: localeOf(t) });
        return id;
      }
      const created = await pool
        .transaction(async (trx) => {
          const user = await createDirectoryUserQueries(trx, environmentId).insertUser({
            userName: email,
            displayName: input.displayName,
            emails: [{ id: randomUUID(), value: email, type: 'work' }],
            active: true,
            ...(forms.length > 0 ? { attributes: withAnswers({}, forms) } : {}),
          });
          if (hash) await createPasswordQueries(trx, environmentId).setPassword(user.id, hash);
          await createSignUpQueries(trx, environmentId).insertCode({ id, userId: user.id, email, codeHash: codeHash(code, id), ttlSeconds: CODE_TTL_SECONDS });
          const change = userChange('create', user, null);
          if (forms.length > 0) change.event = { type: 'directory.user.created', data: { user, forms: answeredForms(forms) } };
          await recordChange(trx, { ...change, actor: { type: 'user', id: user.id }, origin, scope: { tenantId, environmentId } });
          return true;
        })
        // Two sign-ups of one email at once: the loser's unique violation means the account exists now.
        .catch((error: unknown) => {
          if ((error as { code?: string }).code === '23505' || /unique/i.test(String((error as Error).message))) return false;
          throw error;
        });
      if (created) await sendCode();
      return id;
    },

    /** Checks `code` against the sign-up `id`: verified (the email marked verified, events recorded), wrong, or expired. */
    verify: (provider: Provider, environmentId: string, id: string, code: string, clientId: string, origin: RequestOrigin): Promise<VerifyResult> =>
      pool.transaction(async (trx) => {
        const queries = createSignUpQueries(trx, environmentId);
        const row = /^[0-9a-f-]{36}$/i.test(id) ? await queries.findCode(id) : null;
        if (!row) return { kind: 'wrong' };
        if (row.expired || row.attempts >= MAX_ATTEMPTS) return { kind: 'expired' };
        const given = codeHash(code.trim(), id);
        if (!secretsEqual(given, row.codeHash)) {
          await queries.countAttempt(id);
          return { kind: row.attempts + 1 >= MAX_ATTEMPTS ? 'expired' : 'wrong' };
        }
        await queries.deleteCodesOf(row.userId);
        await queries.markEmailVerified(row.userId, row.email);
        // Signed up without a password: the emailed code was the only factor.
        const amr = (await createPasswordQueries(trx, environmentId).hashOf(row.userId)) ? ['pwd'] : EMAIL_CODE_AMR;
        const scope = { tenantId: snapshotOf(provider).tenantId, environmentId };
        const actor = { type: 'user' as const, id: row.userId };
        const resource = { type: 'user', id: row.userId };
        await recordChange(trx, {
          actor,
          origin,
          scope,
          action: 'user.email_verified',
          resource,
          event: { type: 'user.email_verified', data: { userId: row.userId, email: row.email, via: 'sign_up' } },
        });
        await recordChange(trx, {
          actor,
          origin,
          scope,
          action: 'user.signed_up',
          resource,
          event: { type: 'user.signed_up', data: { userId: row.userId, email: row.email, clientId } },
        });
        await recordChange(trx, {
          actor,
          origin,
          scope,
          action: 'user.signed_in',
          resource,
          event: { type: 'user.signed_in', data: { userId: row.userId, clientId, amr, ip: origin.ip ?? null, remember: false } },
        });
        return { kind: 'verified', userId: row.userId, amr };
      }),
  };
}

export type SignUpService = ReturnType<typeof createSignUpService>;

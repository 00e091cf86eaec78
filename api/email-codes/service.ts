// Email one-time code and magic link, a sign-in factor (where the environment's sign-in settings turn it on). Each
// sign-in (interaction) that asks gets a 6-digit code and a link `{issuer}/interaction/{uid}/email-code/{token}` in
// one message; both are stored as SHA-256 only, work for 10 minutes, 5 attempts between them, once; a new issue
// replaces the previous one, at most one per 30 s per interaction. No enumeration: an identifier that names no user
// able to receive a code gets a row too (no message, no event), so every answer looks the same.
import { randomBytes, randomUUID } from 'node:crypto';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import type Provider from 'oidc-provider';
import { hashSecret, secretsEqual, sixDigitCode } from '../../lib/crypto.ts';
import type { MessageSender } from '../../lib/messages/sender.ts';
import { createEmailCodeQueries, type EmailCode } from '../../db/email-codes/queries.ts';
import type { EmailCodeFailureReason } from '../../db/email-codes/events.ts';
import { createSignInQueries } from '../../db/oidc/sign-in/queries.ts';
import { recordChange, type RequestOrigin } from '../../db/shared/changes.ts';
import { issuerOf, snapshotOf } from '../oidc/providers.ts';
import type { Messages } from '../oidc/pages/i18n/index.ts';
import { localeOf } from '../messages/locale.ts';

export const EMAIL_CODE_TTL_SECONDS = 600;
export const EMAIL_CODE_MAX_ATTEMPTS = 5;
/** The least time between two codes of one interaction. */
export const EMAIL_CODE_RESEND_SECONDS = 30;
export const EMAIL_CODE_AMR = ['otp', 'email'];

/** Which sign-in asks: the environment's Provider, the interaction and its client. */
export interface EmailCodeSignIn {
  provider: Provider;
  environmentId: string;
  uid: string;
  clientId: string;
  origin: RequestOrigin;
}

export type IssueResult = { kind: 'sent' } | { kind: 'too_soon' };
/** `gone`: the code is expired, used or out of attempts (a new one is needed); `wrong`: try again. */
export type VerifyResult = { kind: 'signed_in'; userId: string; amr: string[] } | { kind: 'wrong' } | { kind: 'gone' };

export const codeHash = (code: string, id: string) => hashSecret(`${code}:${id}`);
/** Why a code is no longer usable, or null. */
export const goneReason = (row: EmailCode): EmailCodeFailureReason | null =>
  row.used ? 'code_used' : row.expired ? 'code_expired' : row.attempts >= EMAIL_CODE_MAX_ATTEMPTS ? 'code_attempts_exhausted' : null;

export function createEmailCodeService(deps: {
  pool: DatabasePool;
  sender: MessageSender;
  publicBaseUrl: string;
  log: { error(fields: object, message: string): void };
}) {
  const { pool } = deps;
  const scopeOf = (s: EmailCodeSignIn) => ({ tenantId: snapshotOf(s.provider).tenantId, environmentId: s.environmentId });

  const fail = (trx: CommonQueryMethods, s: EmailCodeSignIn, row: EmailCode, reason: EmailCodeFailureReason | 'unknown_user' | 'inactive') =>
    recordChange(trx, {
      actor: { type: 'user', id: row.userId },
      origin: s.origin,
      action: 'user.sign_in_failed',
      resource: { type: 'user', id: row.userId },
      scope: scopeOf(s),
      event: { type: 'user.sign_in_failed', data: { userId: row.userId, login: row.login, clientId: s.clientId, reason, ip: s.origin.ip ?? null } },
    });

  /** One attempt at the interaction's code: `matches` says whether what was given is its code (or its link's token). */
  const attempt = (s: EmailCodeSignIn, matches: (row: EmailCode) => boolean): Promise<VerifyResult> =>
    pool.transaction(async (trx) => {
      const queries = createEmailCodeQueries(trx, s.environmentId);
      const row = await queries.find(s.uid);
      if (!row) return { kind: 'wrong' };
      const gone = goneReason(row);
      if (gone) {
        await fail(trx, s, row, gone);
        return { kind: 'gone' };
      }
      // A row without a user never matches (its hashes are of values nobody was sent).
      if (!row.userId || !matches(row)) {
        await queries.countAttempt(row.id);
        await fail(trx, s, row, row.userId ? 'wrong_code' : 'unknown_user');
        return { kind: row.attempts + 1 >= EMAIL_CODE_MAX_ATTEMPTS ? 'gone' : 'wrong' };
      }
      const user = await createSignInQueries(trx, s.environmentId).findByLogin(row.login);
      if (user?.id !== row.userId || !user.active) {
        await queries.markUsed(row.id);
        await fail(trx, s, row, 'inactive');
        return { kind: 'gone' };
      }
      await queries.markUsed(row.id);
      // `user.signed_in` is recorded when the login finishes, after any second factor (sign-in/second-factor.ts).
      return { kind: 'signed_in', userId: row.userId, amr: EMAIL_CODE_AMR };
    });

  return {
    /**
     * Issues the interaction's code and link for `identifier` and sends them in the page's locale (`t`) when it names
     * an active user with an email; `too_soon` (nothing issued) within 30 s of the interaction's last issue.
     */
    issue: async (s: EmailCodeSignIn, identifier: string, t: Messages): Promise<IssueResult> => {
      const login = identifier.slice(0, 256);
      const user = await createSignInQueries(pool, s.environmentId).findByLogin(login);
      const recipient = user?.active && !user.pendingSignUp && user.email ? { id: user.id, email: user.email } : null;
      const id = randomUUID();
      const code = recipient ? sixDigitCode() : randomBytes(16).toString('hex');
      const token = randomBytes(32).toString('base64url');
      const issued = await pool.transaction(async (trx) => {
        const row = await createEmailCodeQueries(trx, s.environmentId).replace(
          {
            id,
            interactionUid: s.uid,
            userId: recipient?.id ?? null,
            login,
            codeHash: codeHash(code, id),
            tokenHash: hashSecret(token),
            ttlSeconds: EMAIL_CODE_TTL_SECONDS,
          },
          EMAIL_CODE_RESEND_SECONDS,
        );
        if (!row) return false;
        const { expiresAt } = row;
        if (recipient) {
          const data = { userId: recipient.id, clientId: s.clientId, email: recipient.email, expiresAt, ip: s.origin.ip ?? null };
          await recordChange(trx, {
            actor: { type: 'user', id: recipient.id },
            origin: s.origin,
            action: 'user.email_code_sent',
            resource: { type: 'user', id: recipient.id },
            scope: scopeOf(s),
            event: { type: 'user.email_code_sent', data },
          });
        }
        return true;
      });
      if (!issued) return { kind: 'too_soon' };
      if (recipient) {
        const link = `${issuerOf(deps.publicBaseUrl, s.environmentId)}/interaction/${s.uid}/email-code/${token}`;
        // Not awaited: the page answers as fast for a known identifier as for an unknown one.
        void deps.sender
          .send({ to: recipient.email, template: 'magic_link', params: { code, link }, environmentId: s.environmentId, locale: localeOf(t) })
          .catch((error: unknown) => deps.log.error({ err: error, kind: 'sign_in_code' }, 'message could not be sent'));
      }
      return { kind: 'sent' };
    },

    /** Checks a typed code against the interaction's; signs the user in when it is right (events either way). */
    verifyCode: (s: EmailCodeSignIn, code: string) => {
      const given = code.replace(/\s/g, '');
      return attempt(s, (row) => /^\d{6}$/.test(given) && secretsEqual(codeHash(given, row.id), row.codeHash));
    },

    /** Checks a magic link's token against the interaction's; signs the user in when it is right. */
    verifyLink: (s: EmailCodeSignIn, token: string) => attempt(s, (row) => secretsEqual(hashSecret(token), row.tokenHash)),
  };
}

export type EmailCodeService = ReturnType<typeof createEmailCodeService>;

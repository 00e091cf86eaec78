// Directory passwords: set by an administrator (directory:write), or by the user through a one-time link the API
// issues. The password is hashed (argon2id, lib/passwords.ts) before any transaction opens and is never returned,
// logged, audited or put in an event; a link's token is shown once and only its SHA-256 is stored.
import { randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { hashSecret } from '../../../../lib/crypto.ts';
import { hashPassword } from '../../../../lib/passwords.ts';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import { createPasswordQueries } from '../../../../db/directory/passwords/queries.ts';
import { tenantOfEnvironment } from '../../../../db/directory/passwords/environment.ts';
import { recordChange, type RequestOrigin } from '../../../../db/shared/changes.ts';
import { orNotFound } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { guardOperator } from '../../../access/protected-operators.ts';
import type { PasswordPolicy, PasswordRefusal, PasswordWarning } from '../../../passwords/policy.ts';
import { passwordCheckOf } from '../../../passwords/owner.ts';
import { passwordRefused } from '../../../passwords/refused.ts';
import { passwordAuthEnabled, requirePasswordAuth } from '../../../passwords/enabled.ts';
import { DEFAULT_LINK_SECONDS } from './schemas.ts';

type Db = Parameters<typeof createPasswordQueries>[0];

/** What a link's token opens: a form for its user, or nothing (unknown, used, expired, or its user inactive). */
export type LinkState = { kind: 'open'; userName: string } | { kind: 'gone' } | { kind: 'unknown' } | { kind: 'disabled' };
/** What using a link did: its state (`open`: the password is set), or the policy's refusal (nothing changed). */
export type LinkUse = LinkState | { kind: 'open'; userName: string; warning?: PasswordWarning | undefined } | { kind: 'refused'; refusal: PasswordRefusal };

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function createPasswordService(pool: DatabasePool, publicBaseUrl: string, policy: PasswordPolicy) {
  /** The user a write addresses, locked; an operator only for a caller that may manage it. */
  const userForWrite = async (db: Db, caller: EnvironmentCaller, userId: string) => {
    const user = await orNotFound(createDirectoryUserQueries(db, caller.scope.environmentId).findUser(userId, 'update'), 'user', userId);
    await guardOperator(db, caller, userId);
    return user;
  };

  /** The link of `token` with its user, or why it opens nothing. */
  const findLink = async (db: Db, environmentId: string, token: string, lock = false) => {
    if (!TOKEN.test(token)) return { state: { kind: 'unknown' } as LinkState };
    const link = await createPasswordQueries(db, environmentId).findLink(hashSecret(token), lock);
    if (!link) return { state: { kind: 'unknown' } as LinkState };
    const user = await createDirectoryUserQueries(db, environmentId).findUser(link.userId, lock ? 'key share' : null);
    if (!user || !user.active || link.usedAt !== null || link.expired) return { state: { kind: 'gone' } as LinkState };
    // Password sign-in turned off after the link was issued: it opens nothing until it is on again.
    if (!(await passwordAuthEnabled(db, environmentId))) return { state: { kind: 'disabled' } as LinkState };
    return { state: { kind: 'open', userName: user.userName } as LinkState, link, user };
  };

  return {
    /** Sets the password the policy allows (else 400 naming `body.password` with its refusal); the policy's warning, if any. */
    setPassword: async (caller: EnvironmentCaller, userId: string, password: string): Promise<{ warning?: PasswordWarning | undefined }> => {
      const { environmentId } = caller.scope;
      const user = await orNotFound(createDirectoryUserQueries(pool, environmentId).findUser(userId), 'user', userId);
      await requirePasswordAuth(pool, environmentId);
      const check = { ...passwordCheckOf('admin_set', user), origin: caller.origin };
      const { refusal, warning } = await policy.check({ tenantId: caller.scope.tenant.id, environmentId }, password, check);
      if (refusal) throw passwordRefused('body.password', refusal, 'request.invalid');
      const hash = await hashPassword(password);
      await pool.transaction(async (trx) => {
        await userForWrite(trx, caller, userId);
        await createPasswordQueries(trx, caller.scope.environmentId).setPassword(userId, hash);
        await record(trx, caller, {
          action: 'user.password_set',
          resource: { type: 'user', id: userId },
          event: { type: 'user.password_set', data: { userId, via: 'api' } },
        });
      });
      return { warning };
    },

    createLink: (caller: EnvironmentCaller, userId: string, expiresInSeconds = DEFAULT_LINK_SECONDS) =>
      pool.transaction(async (trx) => {
        await userForWrite(trx, caller, userId);
        await requirePasswordAuth(trx, caller.scope.environmentId);
        const token = randomBytes(32).toString('base64url');
        const link = await createPasswordQueries(trx, caller.scope.environmentId).insertLink(userId, hashSecret(token), expiresInSeconds);
        await record(trx, caller, {
          action: 'user.password_link_created',
          resource: { type: 'user', id: userId },
          after: { linkId: link.id, expiresAt: link.expiresAt },
          event: { type: 'user.password_link_created', data: { userId, linkId: link.id, expiresAt: link.expiresAt } },
        });
        return { url: `${publicBaseUrl}/v1/oidc/${caller.scope.environmentId}/password/${token}`, expiresAt: link.expiresAt };
      }),

    linkState: async (environmentId: string, token: string) => (await findLink(pool, environmentId, token)).state,

    /**
     * Sets the password through the link once, if the policy allows it (purpose `reset`: the user chooses it); what
     * the link opens otherwise, or the refusal, and nothing changes.
     */
    useLink: async (environmentId: string, token: string, password: string, origin: RequestOrigin): Promise<LinkUse> => {
      const before = await findLink(pool, environmentId, token);
      if (!before.user) return before.state;
      const tenantId = await tenantOfEnvironment(pool, environmentId);
      if (!tenantId) return { kind: 'unknown' };
      const check = { ...passwordCheckOf('reset', before.user), origin };
      const { refusal, warning } = await policy.check({ tenantId, environmentId }, password, check);
      if (refusal) return { kind: 'refused', refusal };
      const hash = await hashPassword(password);
      return pool.transaction(async (trx) => {
        const { state, link } = await findLink(trx, environmentId, token, true);
        if (!link) return state;
        await createPasswordQueries(trx, environmentId).useLink(link.id);
        await createPasswordQueries(trx, environmentId).setPassword(link.userId, hash);
        await recordChange(trx, {
          actor: { type: 'user', id: link.userId },
          origin,
          action: 'user.password_set',
          resource: { type: 'user', id: link.userId },
          scope: { tenantId, environmentId },
          event: { type: 'user.password_set', data: { userId: link.userId, via: 'link' } },
        });
        return state.kind === 'open' ? { ...state, warning } : state;
      });
    },
  };
}

export type PasswordService = ReturnType<typeof createPasswordService>;

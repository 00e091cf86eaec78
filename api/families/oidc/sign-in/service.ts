// The rules of the first sign-in: a directory user and password (argon2id, timing-safe for unknown users), and
// consent recorded both as the provider's Grant and as a connected app (oidc_client_grants). Every sign-in, failure
// and consent is audited with its event; a failure's reason goes to the event, never to the page.
import type { DatabasePool } from 'slonik';
import type Provider from 'oidc-provider';
import { effectiveSessionConfig } from '../../../../lib/oidc/session-config.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import { verifyPassword } from '../../../../lib/passwords.ts';
import { createSignInQueries, type SignInClient } from '../../../../db/oidc/sign-in/queries.ts';
import { recordChange, type RequestOrigin } from '../../../../db/shared/changes.ts';
import type { EventOf } from '../../../../db/event-catalog.ts';
import type { Csrf } from './csrf.ts';
import { factorOffers } from './factors.ts';
import type { SignInMetrics } from '../../../metrics/sign-in.ts';
import { emailDomainOf, type HomeRealm, type HomeRealmService } from './home-realm.ts';

export type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;
type Grant = InstanceType<Provider['Grant']>;

/** What a consent prompt asks for that the session's grant lacks (oidc-provider's prompt details). */
export interface Missing {
  scopes: string[];
  claims: string[];
  resources: Record<string, string[]>;
}

export const missingOf = (interaction: Interaction): Missing => {
  const d = interaction.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  return { scopes: d.missingOIDCScope ?? [], claims: d.missingOIDCClaims ?? [], resources: d.missingResourceScopes ?? {} };
};

const unique = (values: string[]) => [...new Set(values.filter((v) => v !== ''))];
/** Every scope a Grant holds: its OpenID scopes and the scopes of each resource. */
const scopesOf = (grant: Grant) => unique([...grant.getOIDCScope().split(' '), ...Object.values(grant.resources ?? {}).flatMap((s) => s.split(' '))]);

type FailureReason = 'unknown_user' | 'wrong_password' | 'inactive' | 'email_unverified' | 'sso_required' | 'password_disabled';

export const clientIdOf = (interaction: Interaction) => String(interaction.params.client_id);

export function createSignInService(pool: DatabasePool, csrf: Csrf, homeRealm?: HomeRealmService, outcomes?: SignInMetrics) {
  // The tenant comes with the Provider's snapshot (no query).
  const record = async (environmentId: string, tenantId: string, origin: RequestOrigin, userId: string | null, action: string, event: EventOf) =>
    pool.transaction(async (trx) =>
      recordChange(trx, {
        actor: { type: 'user', id: userId },
        origin,
        action,
        resource: { type: 'user', id: userId },
        scope: { tenantId, environmentId },
        event,
      }),
    );

  return {
    csrfOf: csrf.tokenOf,
    formStampOf: csrf.stampOf,

    /** Whether the environment lets people create their own account (sign_in_settings.sign_up_enabled), as the Provider was built. */
    signUpEnabled: (provider: Provider) => snapshotOf(provider).signIn?.signUpEnabled ?? false,

    /** Whether the environment's password policy lets people sign in (and sign up) with a password, as the Provider was built. */
    passwordEnabled: (provider: Provider) => snapshotOf(provider).passwordAuthEnabled,

    /**
     * How people sign up here, or null when they cannot (sign-up off, or closed by the restrictions): with a password;
     * or, with password sign-in off (password policy) and email code sign-in on, without one (the emailed code
     * verifies the account and signs it in).
     */
    signUpMode: (provider: Provider): 'password' | 'passwordless' | null => {
      const { signIn, passwordAuthEnabled, protections } = snapshotOf(provider);
      if (!signIn?.signUpEnabled || protections.restrictions?.signupMode === 'closed') return null;
      if (passwordAuthEnabled) return 'password';
      return signIn.emailCodeEnabled ? 'passwordless' : null;
    },

    /** The factors the page after the identifier offers: the same lookup and answer shape for known and unknown identifiers. */
    offers: async (environmentId: string, identifier: string, provider: Provider, realm: HomeRealm | null = null) => {
      const user = await createSignInQueries(pool, environmentId).findByLogin(identifier);
      const { signIn, passwordAuthEnabled } = snapshotOf(provider);
      return factorOffers(user, { ...signIn, passwordEnabled: passwordAuthEnabled }, realm);
    },

    /** Whether the factors page offers "Email me a code" (sign_in_settings.email_code_enabled), as the Provider was built. */
    emailCodeEnabled: (provider: Provider) => snapshotOf(provider).signIn?.emailCodeEnabled ?? false,

    /** The client the pages show, as the Provider holds it (read once per Provider). */
    client: async (provider: Provider, environmentId: string, clientId: string): Promise<SignInClient | null> => {
      const client = await provider.Client.find(clientId).catch(() => undefined);
      if (!client) return null;
      const text = (value: unknown) => (typeof value === 'string' ? value : null);
      return {
        clientId,
        name: text(client.clientName) ?? clientId,
        logoUri: text(client.logoUri),
        clientUri: text(client.clientUri),
        policyUri: text(client.policyUri),
        tosUri: text(client.tosUri),
      };
    },

    /** Whether the login page offers "keep me signed in" (session config `rememberMe`, default true), as the Provider was built with it. */
    rememberMe: (provider: Provider) => effectiveSessionConfig(snapshotOf(provider).sessionConfig).rememberMe,

    userName: (environmentId: string, userId: string) => createSignInQueries(pool, environmentId).userName(userId),

    /**
     * The user `login` names if `password` is theirs and they are active, or null (recorded as `user.sign_in_failed`).
     * Unknown users, users without a password and inactive users cost one argon2id verification too, and fail with
     * the same answer. `ssoRequired`: the identifier's (or the user's) email domain must sign in through that SSO
     * connection (home-realm.ts).
     */
    login: async (
      provider: Provider,
      environmentId: string,
      clientId: string,
      login: string,
      password: string,
      remember: boolean,
      origin: RequestOrigin,
    ): Promise<{ accountId: string; amr: string[]; remember: boolean } | { ssoRequired: HomeRealm } | { passwordDisabled: true } | null> => {
      const snapshot = snapshotOf(provider);
      const { tenantId } = snapshot;
      const user = await createSignInQueries(pool, environmentId).findByLogin(login);
      const ip = origin.ip ?? null;
      const failed = async (reason: FailureReason) => {
        const userId = user?.id ?? null;
        outcomes?.failed(reason);
        await record(environmentId, tenantId, origin, userId, 'user.sign_in_failed', {
          type: 'user.sign_in_failed',
          data: { userId, login: login.slice(0, 256), clientId, reason, ip },
        });
      };
      // SSO required for the identifier's email domain (public configuration): no password is looked at.
      const required = await homeRealm?.requiredFor(environmentId, login, snapshot);
      if (required) {
        await failed('sso_required');
        return { ssoRequired: required };
      }
      // Password sign-in off (password policy; public configuration): refused like a factor not offered, unverified.
      if (!snapshot.passwordAuthEnabled) {
        await failed('password_disabled');
        return { passwordDisabled: true };
      }
      const matches = await verifyPassword(user?.hash, password);
      const reason = !user ? 'unknown_user' : !matches ? 'wrong_password' : !user.active ? 'inactive' : user.pendingSignUp ? 'email_unverified' : null;
      if (reason || !user) {
        await failed(reason ?? 'unknown_user');
        return null;
      }
      // Signed in by user name while their email's domain requires SSO: only the password's holder learns it. (An
      // email of the domain typed in was answered above.)
      const sameDomain = user.email !== null && emailDomainOf(user.email) === emailDomainOf(login);
      const usersRealm = sameDomain ? null : await homeRealm?.requiredFor(environmentId, user.email, snapshot);
      if (usersRealm) {
        await failed('sso_required');
        return { ssoRequired: usersRealm };
      }
      // `user.signed_in` is recorded when the login finishes, after any second factor (./second-factor.ts).
      return { accountId: user.id, amr: ['pwd'], remember };
    },

    /** Records `user.signed_in` (`secondFactor`: what passed after the first factor, if anything). */
    signedIn: async (
      provider: Provider,
      environmentId: string,
      origin: RequestOrigin,
      data: {
        userId: string;
        clientId: string;
        amr: string[];
        remember: boolean;
        secondFactor: 'totp' | 'recovery_code' | 'email_code' | 'sms_code' | 'remember_device' | null;
        connectionId?: string;
      },
    ) => {
      outcomes?.succeeded();
      return record(environmentId, snapshotOf(provider).tenantId, origin, data.userId, 'user.signed_in', {
        type: 'user.signed_in',
        data: { ...data, ip: origin.ip ?? null },
      });
    },

    /**
     * The grant of an earlier consent of this user to this client (a connected app not revoked) when it still holds
     * everything the prompt asks for, so the consent page is skipped; else null.
     */
    remembered: async (provider: Provider, environmentId: string, interaction: Interaction): Promise<string | null> => {
      const accountId = interaction.session?.accountId;
      const missing = missingOf(interaction);
      if (!accountId || missing.claims.length > 0) return null;
      const row = await createSignInQueries(pool, environmentId).findClientGrant(clientIdOf(interaction), accountId);
      if (!row?.grantId || row.revokedAt !== null) return null;
      const grant = await provider.Grant.find(row.grantId);
      if (!grant || grant.accountId !== accountId || grant.clientId !== clientIdOf(interaction)) return null;
      const held = new Set(scopesOf(grant));
      const asked = [...missing.scopes, ...Object.values(missing.resources).flat()];
      return asked.every((s) => held.has(s)) ? row.grantId : null;
    },

    /** Grants what the prompt asks for (the session's grant, or a new one), records the connected app and the event. */
    consent: async (provider: Provider, environmentId: string, interaction: Interaction, origin: RequestOrigin) => {
      const accountId = interaction.session!.accountId;
      const clientId = clientIdOf(interaction);
      const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
      const grant = existing ?? new provider.Grant({ accountId, clientId });
      const missing = missingOf(interaction);
      if (missing.scopes.length) grant.addOIDCScope(missing.scopes.join(' '));
      if (missing.claims.length) grant.addOIDCClaims(missing.claims);
      for (const [resource, scopes] of Object.entries(missing.resources)) grant.addResourceScope(resource, scopes.join(' '));
      const grantId = await grant.save();
      const scopes = scopesOf(grant);
      await pool.transaction(async (trx) => {
        await createSignInQueries(trx, environmentId).upsertClientGrant(clientId, accountId, grantId, scopes);
        await recordChange(trx, {
          actor: { type: 'user', id: accountId },
          origin,
          action: 'user.consented',
          resource: { type: 'user', id: accountId },
          scope: { tenantId: snapshotOf(provider).tenantId, environmentId },
          after: { clientId, scopes, grantId },
          event: { type: 'user.consented', data: { userId: accountId, clientId, scopes, grantId } },
        });
      });
      return grantId;
    },
  };
}

export type SignInService = ReturnType<typeof createSignInService>;

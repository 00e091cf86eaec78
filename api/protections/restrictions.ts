// The sign-up restrictions (…/settings/restrictions) as a `before` hook: at sign-up, `signupMode` (`closed`: nobody;
// `invite_only`: an address with a pending invitation into the environment's tenant, db/protections/invitations.ts)
// and the address rules (lib/protections/email-rules.ts: block list, allow list, `+` sub-addresses, disposable
// domains); at sign-in, with `applyToSignins`, the address rules on the identifier when it is an email, else on the
// email of the user it names. Password resets are not restricted. Each refusal is a 403 naming the rule (never the
// list) with `protection.blocked`; a block-listed or disposable domain also opens (or adds to) a low-severity threat
// `sign_in.restrictions` per IP, since repeated tries from one address are worth a look, where a colleague at an
// unlisted domain is not.
import type { DatabasePool } from 'slonik';
import { createSignInQueries } from '../../db/oidc/sign-in/queries.ts';
import { invitedToTenant } from '../../db/protections/invitations.ts';
import { brokenEmailRule, type EmailRules } from '../../lib/protections/email-rules.ts';
import { domainsOf, type ProtectionSettings } from '../../lib/protections/settings.ts';
import type { MessageKey } from '../oidc/pages/i18n/index.ts';
import { recordDecision } from './decisions.ts';
import type { Attempt, ProtectionHook, Ruling } from './pipeline.ts';

type Settings = ProtectionSettings<'restrictions'>;
export type RestrictionReason = 'signup_closed' | 'invite_only' | 'domain_not_allowed' | 'domain_blocked' | 'subaddress' | 'disposable_domain';

const TEXTS: Record<RestrictionReason, MessageKey> = {
  signup_closed: 'restrictionSignupClosed',
  invite_only: 'restrictionInviteOnly',
  domain_not_allowed: 'restrictionDomainNotAllowed',
  domain_blocked: 'restrictionDomainBlocked',
  subaddress: 'restrictionSubaddress',
  disposable_domain: 'restrictionDisposable',
};
const THREATS: Partial<Record<RestrictionReason, string>> = {
  domain_blocked: 'Attempts with an email address at a block-listed domain',
  disposable_domain: 'Attempts with a disposable email address',
};

// The lists of each saved settings object, split once (the snapshot keeps the object while the Provider lives).
const rulesCache = new WeakMap<Settings, EmailRules>();
const rulesOf = (s: Settings): EmailRules => {
  let rules = rulesCache.get(s);
  if (!rules) {
    rules = {
      blocked: s.blocklistEnabled ? domainsOf(s.blocklistDomains) : null,
      allowed: s.allowlistEnabled ? domainsOf(s.allowlistDomains) : null,
      subaddresses: s.blockEmailSubaddresses,
      disposable: s.blockDisposableEmails,
    };
    rulesCache.set(s, rules);
  }
  return rules;
};
const hasEmailRules = (r: EmailRules) => r.blocked !== null || r.allowed !== null || r.subaddresses || r.disposable;

export function createRestrictionsHook(pool: DatabasePool): ProtectionHook {
  const refuse = (attempt: Attempt, reason: RestrictionReason, address: string | null): Ruling => {
    const summary = THREATS[reason];
    const record = () =>
      recordDecision(pool, {
        environmentId: attempt.environmentId,
        tenantId: attempt.tenantId,
        policy: 'restrictions',
        flow: attempt.flow,
        outcome: 'blocked',
        reason,
        userId: attempt.userId,
        login: attempt.login,
        origin: attempt.origin,
        threat: summary ? { severity: 'low', summary } : undefined,
        details: address && address !== attempt.login ? { email: address } : undefined,
      });
    return { refusal: { kind: 'deny', policy: 'restrictions', reason, status: 403, text: (t) => t[TEXTS[reason]] }, record };
  };

  /** The address the sign-in rules look at: the identifier if it is an email, else its user's (one lookup). */
  const signInAddress = async (attempt: Attempt): Promise<{ address: string | null; userId: string | null }> => {
    const login = attempt.login ?? '';
    if (login.includes('@')) return { address: login.toLowerCase(), userId: attempt.userId };
    if (login === '') return { address: null, userId: attempt.userId };
    const user = await createSignInQueries(pool, attempt.environmentId).findByLogin(login);
    return { address: user?.email ?? null, userId: user?.id ?? attempt.userId };
  };

  return {
    policy: 'restrictions',
    before: async (attempt) => {
      const settings = attempt.protections.restrictions;
      if (!settings) return null;
      const rules = rulesOf(settings);
      if (attempt.flow === 'sign_up') {
        if (settings.signupMode === 'closed') return refuse(attempt, 'signup_closed', null);
        const address = (attempt.login ?? '').toLowerCase();
        const broken = brokenEmailRule(address, rules);
        if (broken) return refuse(attempt, broken, address);
        if (settings.signupMode === 'invite_only' && !(await invitedToTenant(pool, attempt.tenantId, address))) return refuse(attempt, 'invite_only', address);
        return null;
      }
      if (attempt.flow !== 'sign_in' || !settings.applyToSignins || !hasEmailRules(rules)) return null;
      const { address, userId } = await signInAddress(attempt);
      const broken = address ? brokenEmailRule(address, rules) : null;
      return broken ? refuse({ ...attempt, userId }, broken, address) : null;
    },
  };
}

// A signing key's retirement (retiring → retired) as one audit entry and event, the same whoever retires it: the
// oidc-cleanup process (actor system) or a rotation that finds retiring keys past their date (actor its caller).
import type { Change } from '../../shared/changes.ts';

export interface RetiredOidcKeyOf {
  id: string;
  kid: string;
  alg: string;
  /** When its retirement period ended (ISO). */
  retiresAt: string;
}

/** The change to record for `key`, without its actor and scope. */
export const keyRetirement = (key: RetiredOidcKeyOf) =>
  ({
    action: 'oidc_signing_key.retire',
    resource: { type: 'oidc_signing_key', id: key.id },
    before: { status: 'retiring', retiresAt: key.retiresAt },
    after: { status: 'retired', retiresAt: null },
    event: {
      type: 'oidc_signing_key.retired',
      data: { key: { id: key.id, kid: key.kid, alg: key.alg, status: 'retired', retiresAt: null }, retiredAfter: key.retiresAt },
    },
  }) satisfies Omit<Change<'oidc_signing_key.retired'>, 'actor' | 'scope'>;

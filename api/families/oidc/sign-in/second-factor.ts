// The second factor of the sign-in pages. After a first factor succeeds, `afterFirstFactor` decides by the MFA policy
// (api/mfa), a step-up request (`acr_values` with urn:iam:acr:mfa) or a forced new login of a session that had a
// second factor, whether the user must also pass TOTP (or a recovery code, or enrol first). If so, the first
// factor's result waits server-side, bound to the interaction (an `MfaPending` record in oidc_payloads, keyed by the
// environment and the interaction's uid, expiring with the interaction) and the browser goes to …/interaction/:uid/mfa;
// nothing about it rides in a form field. Otherwise the step finishes as before. Where the MFA settings turn on
// `emailCodeSecondFactor`, a user with a verified email may pass with a code sent there instead (mfa-email-routes.ts),
// unless the first factor already was an emailed code (amr `email`): the second factor must be a different one.
// Where they turn on `smsSecondFactor` and an SMS provider is active, a code texted to the user's verified phone
// number passes too, and a user with only a phone counts as enrolled (mfa-sms-routes.ts).
// A protection's step-up (`afterFirstFactor`'s `protectionStepUp`: the device-risk policy) asks whatever the MFA
// policy says (./step-up.ts); every finished sign-in records its device for that policy while it is on.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabasePool } from 'slonik';
import { createOidcPayloadQueries } from '../../../../db/oidc/provider/payloads.ts';
import { createMfaPendingQueries, MFA_PENDING_MODEL } from '../../../../db/oidc/sign-in/mfa-pending.ts';
import { createTotpFactorQueries } from '../../../../db/mfa/totp-factors.ts';
import { createMfaSettingsQueries } from '../../../../db/mfa/settings.ts';
import { createVerifiedEmailQueries } from '../../../../db/mfa/verified-email.ts';
import { createPhoneFactorQueries } from '../../../../db/mfa/phone-factors.ts';
import { smsAvailabilityOf } from '../../../../db/sms-codes/availability.ts';
import { messagePage } from '../../../oidc/pages/page.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import { effectiveSessionConfig } from '../../../../lib/oidc/session-config.ts';
import { ACR_MFA } from '../../../oidc/acr.ts';
import type { MfaEnv, MfaService } from '../../../mfa/index.ts';
import { originOf, type Found, type Interactions, type Login, type Req } from './interaction.ts';
import { clientIdOf, type SignInService } from './service.ts';
import type { EmailSecondFactor } from '../../../email-codes/second-factor.ts';
import type { KnownDevices } from '../../../protections/known-devices.ts';
import { createStepUp, type StepUp, type StepUpRequest } from './step-up.ts';

/** Wrong codes an interaction's first factor survives; then the sign-in starts again (the first factor too). */
export const MAX_MFA_FAILURES = 5;

/** What a first factor established: the user, its amr values (`pwd`, `hwk`, …) and "keep me signed in". */
export interface FirstFactor {
  userId: string;
  amr: string[];
  remember: boolean;
  /** The step recorded `user.signed_in` itself (sign-up does, with the new account); else it is recorded when the login finishes. */
  recorded?: boolean;
  /** The SSO connection the user came through (amr `fed`): `user.signed_in` names it. */
  connectionId?: string;
}

export type SecondFactorKind = 'totp' | 'recovery_code' | 'email_code' | 'sms_code' | 'remember_device';

/** What each second factor adds to the first factor's amr (a remembered device spares it without claiming it). */
const SECOND_FACTOR_AMR: Record<SecondFactorKind, string[]> = {
  totp: ['otp', 'mfa'],
  recovery_code: ['otp', 'mfa'],
  email_code: ['otp', 'email', 'mfa'],
  sms_code: ['sms', 'mfa'],
  remember_device: [],
};

/** The first factor waiting for the second, and what the second-factor pages did so far. */
export interface Pending extends FirstFactor {
  /** The client asked for it, or a new login was forced on a session that had it: a remembered device does not count. */
  strict: boolean;
  /** The enrolment in progress on these pages, if the user had no authenticator: its factor id, and its key and URI sealed under the master key (to show them again after a wrong code). */
  enrolment?: { factorId: string; sealed: string } | null;
  /** The second factor passed (the enrolment was confirmed; the recovery codes are on screen): only finishing is left. */
  passed?: boolean;
  /** Wrong codes so far (counted in the database: ../../../../db/oidc/sign-in/mfa-pending.ts). */
  failures?: number;
  /** A protection asked for this second factor (./step-up.ts), whatever the MFA policy. */
  stepUp?: StepUp;
}

const splitValues = (value: unknown) => (typeof value === 'string' ? value.split(' ').filter(Boolean) : []);
export const cookieNameOf = (userId: string) => `iam_mfa_device_${userId.replace(/-/g, '')}`;

/** The raw value of cookie `name` (the remembered-device value is base64url and a dot: nothing to decode). */
function cookieOf(r: FastifyRequest, name: string): string | null {
  for (const part of (r.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

export function createSecondFactor(deps: {
  pool: DatabasePool;
  mfa: MfaService;
  signIn: SignInService;
  interactions: Interactions;
  issuerPathOf: (envId: string) => string;
  secure: boolean;
  emailCodes: EmailSecondFactor;
  /** The device-risk policy's devices: a finished sign-in records its device. */
  devices: KnownDevices;
  /** What finishing the login does (the "create a passkey" step, then the client); by default back to the client. */
  /** `found`'s interaction is unsaved since it was read (./interaction.ts `finish`). */
  complete?: (r: Req, reply: FastifyReply, found: Found, login: Login) => Promise<unknown>;
}) {
  const { pool, mfa, signIn, interactions: ix } = deps;
  const store = (envId: string) => createOidcPayloadQueries(pool, envId);
  const isEnrolled = async (envId: string, userId: string) => (await createTotpFactorQueries(pool, envId).confirmedOf(userId)) !== null;
  /** The user's verified phone number where the pages text codes (the MFA settings and an active SMS provider), else null. */
  const phoneOf = async (envId: string, userId: string) =>
    (await smsAvailabilityOf(pool, envId)).on ? createPhoneFactorQueries(pool, envId).of(userId) : null;
  const envOf = (r: Req, found: Found): MfaEnv => ({ tenantId: snapshotOf(found.provider).tenantId, environmentId: r.params.envId, origin: originOf(r) });

  async function save(r: Req, found: Found, pending: Pending) {
    const exp = typeof found.interaction.exp === 'number' ? new Date(found.interaction.exp * 1000) : new Date(Date.now() + 3600_000);
    await store(r.params.envId).upsert(MFA_PENDING_MODEL, r.params.uid, {
      payload: { ...pending },
      grantId: null,
      uid: null,
      userCode: null,
      accountId: pending.userId,
      clientId: null,
      expiresAt: exp,
    });
  }

  /**
   * Finishes the login with the first factor's result, and the amr and acr of the second factor that passed (a
   * remembered device spares it without claiming it), recording `user.signed_in` unless the step did.
   */
  async function finish(r: Req, reply: FastifyReply, found: Found, first: FirstFactor, secondFactor: SecondFactorKind | null) {
    await store(r.params.envId).destroy(MFA_PENDING_MODEL, r.params.uid);
    const device = { userId: first.userId, headers: r.headers, ip: r.ip };
    const deviceCookie = await deps.devices.signedIn(r.params.envId, snapshotOf(found.provider).protections.device_risk, device);
    if (deviceCookie) reply.header('set-cookie', deviceCookie);
    const passed = secondFactor !== null && secondFactor !== 'remember_device';
    const amr = passed ? [...new Set([...first.amr, ...SECOND_FACTOR_AMR[secondFactor]])] : first.amr;
    if (first.recorded !== true) {
      const data = {
        userId: first.userId,
        clientId: clientIdOf(found.interaction),
        amr,
        remember: first.remember,
        secondFactor,
        ...(first.connectionId ? { connectionId: first.connectionId } : {}),
      };
      await signIn.signedIn(found.provider, r.params.envId, originOf(r), data);
    }
    const login: Login = { accountId: first.userId, amr, remember: first.remember, ...(passed ? { acr: ACR_MFA } : {}) };
    return deps.complete ? deps.complete(r, reply, found, login) : ix.finish(r, reply, found.provider, { login }, true, found.interaction);
  }

  const stepUps = createStepUp({
    pool,
    interactions: ix,
    emailCodes: deps.emailCodes,
    isEnrolled,
    hasPhone: async (envId, userId) => (await phoneOf(envId, userId)) !== null,
    wait: (r, found, first: FirstFactor, stepUp) => save(r, found, { ...first, strict: true, stepUp }),
  });

  async function pendingOf(r: Req): Promise<Pending | null> {
    const row = await store(r.params.envId).find(MFA_PENDING_MODEL, r.params.uid);
    return row ? (row.payload as unknown as Pending) : null;
  }

  /** The interaction (at its login prompt) and the first factor waiting there, or null once the 400/403 page is sent. */
  async function waiting(r: Req, reply: FastifyReply, post: boolean): Promise<{ found: Found; pending: Pending } | null> {
    const found = post ? await ix.posted(r, reply, 'login') : await ix.shown(r, reply, 'login');
    if (!found) return null;
    const pending = await pendingOf(r);
    if (pending) return { found, pending };
    await ix.sendExpired(r, reply, found);
    return null;
  }

  return {
    envOf,
    finish,
    isEnrolled,
    phoneOf,
    waiting,

    /** Whether the enrolment page offers a phone number instead of an app: texting is on, the user has neither. */
    smsEnrolOffered: async (envId: string, userId: string): Promise<boolean> =>
      (await smsAvailabilityOf(pool, envId)).on && !(await isEnrolled(envId, userId)) && (await createPhoneFactorQueries(pool, envId).of(userId)) === null,

    /** After too many wrong codes: the first factor is dropped (see `failed`), the person starts again (429 page). */
    tooMany: (reply: FastifyReply, found: Found) => ix.send(reply, found, 429, (t) => messagePage(t.mfaTooManyTitle, t.mfaTooManyText)),

    /**
     * Whether the pages offer an emailed code as this user's second factor: the MFA settings turn it on, the user has
     * a verified email, and the first factor was not itself an emailed code.
     */
    emailOffered: async (envId: string, pending: Pending): Promise<boolean> =>
      pending.stepUp?.method === 'email_code' ||
      (!pending.amr.includes('email') &&
        (await createMfaSettingsQueries(pool, envId).find()).emailCodeSecondFactor &&
        (await createVerifiedEmailQueries(pool, envId).of(pending.userId)) !== null),
    /** The session config's "remember this device" lifetime, or null (the page then offers no checkbox). */
    rememberSeconds: (found: Found) => effectiveSessionConfig(snapshotOf(found.provider).sessionConfig).rememberDeviceSeconds,
    save,

    /**
     * Counts a wrong code: true while the interaction may try again; false after MAX_MFA_FAILURES, when the
     * waiting first factor is dropped (the person signs in again from the start).
     */
    failed: async (r: Req): Promise<boolean> => {
      const failures = await createMfaPendingQueries(pool, r.params.envId).countFailure(r.params.uid);
      if (failures !== null && failures < MAX_MFA_FAILURES) return true;
      const pending = await pendingOf(r);
      await store(r.params.envId).destroy(MFA_PENDING_MODEL, r.params.uid);
      if (pending?.stepUp) await stepUps.failed(r, pending.userId, pending.stepUp);
      return false;
    },

    /** The first factor waiting at this interaction for a second, or null (none, or expired). */
    pending: pendingOf,

    /**
     * Call after any first factor succeeded (password, email code, SSO): either finishes the login (303 to the
     * provider) or keeps `first` for this interaction and answers 303 to the second-factor page. A user-verified
     * passkey is two factors already: its step finishes without calling this. `protectionStepUp`: a protection (device
     * risk) asked for a step-up (./step-up.ts).
     */
    async afterFirstFactor(r: Req, reply: FastifyReply, found: Found, first: FirstFactor, protectionStepUp?: StepUpRequest | null) {
      if (protectionStepUp && (await stepUps.ask(r, reply, found, first, protectionStepUp))) return reply;
      const env = envOf(r, found);
      const { interaction } = found;
      const stepUp = splitValues(interaction.params.acr_values).includes(ACR_MFA);
      const reasons = interaction.prompt.reasons;
      const forced = (reasons.includes('max_age') || reasons.includes('login_prompt')) && interaction.session?.accountId === first.userId;
      // `mfa`, not `otp`: an emailed code alone is `otp` + `email`, one factor.
      const hadSecond = forced && (interaction.session?.amr ?? []).includes('mfa');
      const strict = stepUp || hadSecond;
      const requirement = await mfa.mfaRequirement(env, first.userId);
      // Enrolled: an authenticator, or a phone where texting is on (looked up only when `optional` needs it).
      const enrolled = async () => (await isEnrolled(r.params.envId, first.userId)) || (await phoneOf(r.params.envId, first.userId)) !== null;
      const asked = strict || requirement === 'required' || (requirement === 'optional' && (await enrolled()));
      if (!asked) return finish(r, reply, found, first, null);
      if (!strict) {
        const remembered = cookieOf(r, cookieNameOf(first.userId));
        if (remembered && (await mfa.checkRememberDevice(env, first.userId, remembered))) return finish(r, reply, found, first, 'remember_device');
      }
      await save(r, found, { ...first, strict });
      return reply.header('cache-control', 'no-store').redirect(ix.urlOf(r, '/mfa'), 303);
    },

    /** Sets the "remember this device" cookie when the policy remembers devices (HttpOnly, SameSite=Lax, the issuer's path). */
    async rememberDevice(r: Req, reply: FastifyReply, found: Found, userId: string) {
      const token = await mfa.rememberDeviceToken(envOf(r, found), userId);
      if (!token) return;
      const attributes = [
        `Max-Age=${token.maxAgeSeconds}`,
        `Path=${deps.issuerPathOf(r.params.envId)}`,
        'HttpOnly',
        'SameSite=Lax',
        ...(deps.secure ? ['Secure'] : []),
      ];
      reply.header('set-cookie', `${cookieNameOf(userId)}=${token.value}; ${attributes.join('; ')}`);
    },
  };
}

export type SecondFactor = ReturnType<typeof createSecondFactor>;

// What building an environment's Provider reads, in one go: that the environment exists, its settings, its
// enabled claim mappings, its client allowlist, its password policy's passwordAuthEnabled, its protection policies and its active connections (the identifier page's SSO buttons, read
// here rather than on every page: a change to a connection rebuilds the Provider through `iam_oidc`, migration 0037).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { PROTECTION_KINDS, PROTECTION_SETTINGS } from '../../../lib/protections/settings.ts';
import { SignUpForms, signUpFormsColumn } from '../../forms/snapshot.ts';
import { BOT_CHALLENGE_KINDS } from '../../../lib/challenge/kinds.ts';

export const ClaimMapping = z.object({
  claimName: z.string(),
  source: z.enum(['user_field', 'attribute', 'static']),
  metadataKey: z.string().nullable(),
  staticValue: z.string().nullable(),
});
export type ClaimMapping = z.infer<typeof ClaimMapping>;

const Snapshot = z.object({
  tenantId: z.uuid(),
  sessionConfig: z.record(z.string(), z.unknown()).nullable(),
  dynamicRegistration: z.boolean().nullable(),
  claimMappings: z.array(ClaimMapping),
  allowlist: z.array(z.string()),
  /** The environment's sign-in page settings (db/oidc/sign-in/settings.ts), null without a row. */
  signIn: z
    .object({
      displayName: z.string().nullable(),
      logoUrl: z.string().nullable(),
      primaryColor: z.string().nullable(),
      backgroundColor: z.string().nullable(),
      signUpEnabled: z.boolean(),
      defaultLocale: z.string().nullable(),
      emailCodeEnabled: z.boolean(),
    })
    .nullable(),
  /** The password policy's passwordAuthEnabled (true without a policy): whether the pages offer and accept a password. */
  passwordAuthEnabled: z.boolean(),
  /** The sign-in protection policies the environment saved (lib/protections/settings.ts), by kind; a kind absent is off. */
  protections: z.strictObject(
    Object.fromEntries(PROTECTION_KINDS.map((kind) => [kind, z.object(PROTECTION_SETTINGS[kind].shape).optional()])) as {
      [K in keyof typeof PROTECTION_SETTINGS]: z.ZodOptional<z.ZodObject<(typeof PROTECTION_SETTINGS)[K]['shape']>>;
    },
  ),
  /** The active bot-challenge add-on (migration 0048): the widget the pages show when a protection asks for a challenge. */
  botChallenge: z.object({ kind: z.enum(BOT_CHALLENGE_KINDS), siteKey: z.string() }).nullable(),
  /** The active sign-in connections, in rank order (the sign-in pages pick the SSO ones). */
  connections: z.array(z.object({ id: z.uuid(), providerId: z.string(), name: z.string().nullable() })),
  /** The published forms attached to sign-up (db/forms/snapshot.ts). */
  signUpForms: SignUpForms,
});
export type ProviderSnapshot = z.infer<typeof Snapshot>;

export function createProviderSnapshotQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Null when the environment does not exist. */
    load: () =>
      db.maybeOne(sql.type(Snapshot)`
        SELECT e.tenant_id AS "tenantId", s.session_config AS "sessionConfig", s.dynamic_registration AS "dynamicRegistration",
          coalesce((SELECT jsonb_agg(jsonb_build_object('claimName', m.claim_name, 'source', m.source, 'metadataKey', m.metadata_key,
            'staticValue', m.static_value) ORDER BY m.claim_name)
            FROM jwt_claim_mappings m WHERE m.environment_id = e.id AND m.enabled), '[]') AS "claimMappings",
          ARRAY(SELECT a.client_id FROM oidc_client_allowlist a WHERE a.environment_id = e.id ORDER BY a.client_id) AS allowlist,
          (SELECT jsonb_build_object('displayName', p.display_name, 'logoUrl', p.logo_url, 'primaryColor', p.primary_color,
            'backgroundColor', p.background_color, 'signUpEnabled', p.sign_up_enabled, 'defaultLocale', p.default_locale,
            'emailCodeEnabled', p.email_code_enabled)
            FROM sign_in_settings p WHERE p.environment_id = e.id) AS "signIn",
          coalesce((SELECT pp.password_auth_enabled FROM password_policies pp WHERE pp.environment_id = e.id), true) AS "passwordAuthEnabled",
          coalesce((SELECT jsonb_object_agg(pr.kind, pr.settings) FROM protection_policies pr WHERE pr.environment_id = e.id), '{}') AS protections,
          (SELECT jsonb_build_object('kind', ao.kind, 'siteKey', ao.config->>'siteKey') FROM add_ons ao
            WHERE ao.environment_id = e.id AND ao.category = 'bot_challenge' AND ao.active) AS "botChallenge",
          coalesce((SELECT jsonb_agg(jsonb_build_object('id', c.id, 'providerId', c.provider_id, 'name', c.name)
            ORDER BY c.rank, c.created_at, c.id)
            FROM environment_connections c WHERE c.environment_id = e.id AND c.active), '[]') AS "connections",
          ${signUpFormsColumn}
        FROM environments e LEFT JOIN oidc_settings s ON s.environment_id = e.id
        WHERE e.id = ${environmentId}`),
  };
}

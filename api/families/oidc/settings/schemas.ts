// Shapes of an environment's token settings: JWT claim mappings and the session config (tag Environment settings).
import { z } from 'zod';
import { CLAIM_SOURCES, JwtClaimMapping, USER_FIELD_KEYS } from '../../../../db/oidc/claim-mappings/rows.ts';
import { isReservedClaim } from '../../../../lib/oidc/reserved-claims.ts';
import { SessionConfig } from '../../../../lib/oidc/session-config.ts';
import { ManagementMeta } from '../../../common/schemas.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';

export { EnvironmentScopeParams, JwtClaimMapping };

const meta = ManagementMeta.optional();
export const MappingParams = EnvironmentScopeParams.extend({ mappingId: z.uuid() });

const claimName = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'must be 1 to 128 characters of A-Z, a-z, 0-9, _ . : -')
  .refine((name) => !isReservedClaim(name), 'is a reserved claim: the provider sets it from the session, the client or the scopes');

export const SaveClaimMappingBody = z
  .strictObject({
    id: z.uuid().optional().describe('A mapping of this environment to update; a new one is created when absent'),
    claimName: claimName.describe('The claim added to ID and access tokens; unique in the environment; never a reserved claim (sub, email, …)'),
    source: z.enum(CLAIM_SOURCES).describe('user_field: a field of the user; attribute: a custom attribute of the user; static: staticValue'),
    metadataKey: z
      .string()
      .min(1)
      .max(256)
      .nullable()
      .optional()
      .describe(`Required with user_field (one of ${USER_FIELD_KEYS.join(', ')}) and attribute (a key of the user's attributes)`),
    staticValue: z.string().max(1024).nullable().optional().describe('Required with static: the value of the claim (at most 1024 characters)'),
    enabled: z.boolean().optional().describe('Whether tokens carry the claim (default true; kept on update when absent)'),
  })
  .superRefine((body, ctx) => {
    const issue = (path: 'metadataKey' | 'staticValue', message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (body.source === 'static') {
      if (body.staticValue == null) issue('staticValue', 'is required with source static');
      if (body.metadataKey != null) issue('metadataKey', 'must be absent with source static');
      return;
    }
    if (body.staticValue != null) issue('staticValue', `must be absent with source ${body.source}`);
    if (body.metadataKey == null) issue('metadataKey', `is required with source ${body.source}`);
    else if (body.source === 'user_field' && !(USER_FIELD_KEYS as readonly string[]).includes(body.metadataKey))
      issue('metadataKey', `must name a field of the user: ${USER_FIELD_KEYS.join(', ')}`);
  })
  .meta({ id: 'SaveJwtClaimMappingRequest' });
export type SaveClaimMappingBody = z.infer<typeof SaveClaimMappingBody>;

export const JwtClaimMappingsResponse = z.object({ mappings: z.array(JwtClaimMapping), meta }).meta({ id: 'JwtClaimMappingsResponse' });
export const SaveJwtClaimMappingResponse = z.object({ mapping: JwtClaimMapping, meta }).meta({ id: 'SaveJwtClaimMappingResponse' });
export const DeleteJwtClaimMappingResponse = z.object({ success: z.literal(true), meta }).meta({ id: 'DeleteJwtClaimMappingResponse' });

export const MAX_KEYS = 64;
export const MAX_BYTES = 16 * 1024;

/** A session config as given: the keys the service reads are checked (SessionConfig), any other is kept as given. */
export const SessionConfigBody = SessionConfig.superRefine((config, ctx) => {
  if (Object.keys(config).length > MAX_KEYS) ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_KEYS} keys` });
  if (Buffer.byteLength(JSON.stringify(config)) > MAX_BYTES) ctx.addIssue({ code: 'custom', message: 'must be at most 16 KiB as JSON' });
}).meta({
  id: 'SessionConfigRequest',
  description:
    'Free-form (at most 64 keys, 16 KiB). The service reads absoluteLifetimeSeconds, idleLifetimeSeconds (at most the absolute lifetime), rememberMe, ' +
    'accessTokenLifetimeSeconds, idTokenLifetimeSeconds, refreshTokenLifetimeSeconds and rememberDeviceSeconds (null: devices are never remembered); other keys are kept as given.',
});
export type SessionConfigBody = z.infer<typeof SessionConfigBody>;

export const SessionConfigResponse = z
  .object({ config: z.record(z.string(), z.unknown()).describe('The stored config with the defaults of the keys the service reads filled in'), meta })
  .meta({ id: 'SessionConfigResponse' });

// A JWT claim mapping (SPEC JwtClaimMapping): an extra claim of the environment's ID and access tokens, taken from a
// field of the directory user, one of its custom attributes, or a static value.
import { z } from 'zod';
import { User } from '../../identity/users/rows.ts';
import { isoTimestamp, uuid } from '../../shared/rows.ts';

export const CLAIM_SOURCES = ['user_field', 'attribute', 'static'] as const;
export type ClaimSource = (typeof CLAIM_SOURCES)[number];

/** The fields of the SPEC user shape a `user_field` mapping may name in `metadataKey`. */
export const USER_FIELD_KEYS = User.keyof().options;

export const JwtClaimMapping = z
  .object({
    id: uuid,
    environmentId: uuid,
    claimName: z.string(),
    source: z.enum(CLAIM_SOURCES),
    metadataKey: z.string().nullable().describe('user_field: a field of the user; attribute: a key of its custom attributes'),
    staticValue: z.string().nullable().describe('static: the value of the claim'),
    enabled: z.boolean(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'JwtClaimMapping' });
export type JwtClaimMapping = z.infer<typeof JwtClaimMapping>;

/** What a save writes. */
export interface ClaimMappingFields {
  claimName: string;
  source: ClaimSource;
  metadataKey: string | null;
  staticValue: string | null;
  enabled: boolean;
}

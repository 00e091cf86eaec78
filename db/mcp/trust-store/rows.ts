// Trust-store entries (agents, MCP servers, workloads of an environment) and their public keys, as the API shows them.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const ENTRY_KINDS = ['agent', 'mcp_server', 'workload'] as const;
export const ENTRY_STATUSES = ['pending', 'verified', 'suspended', 'revoked'] as const;
export const KEY_STATUSES = ['active', 'retiring', 'retired', 'revoked'] as const;

export const TrustStoreJwk = z
  .looseObject({
    kty: z.string(),
    kid: z.string(),
    alg: z.string(),
    use: z.string(),
    crv: z.string().optional(),
    x: z.string().optional(),
    y: z.string().optional(),
    n: z.string().optional(),
    e: z.string().optional(),
  })
  .describe('A public JWK (no private members)')
  .meta({ id: 'TrustStoreJwk' });

export const TrustStoreKey = z
  .object({
    id: uuid,
    entryId: uuid,
    kid: z.string(),
    alg: z.string(),
    jwk: TrustStoreJwk,
    status: z.enum(KEY_STATUSES).describe('active; retiring (still verifies until retiresAt, after a rotation); retired; revoked'),
    retiresAt: nullableTimestamp.describe('When a retiring key stops verifying'),
    revokedAt: nullableTimestamp,
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'TrustStoreKey' });
export type TrustStoreKey = z.infer<typeof TrustStoreKey>;

export const TrustStoreEntry = z
  .object({
    id: uuid,
    environmentId: uuid,
    kind: z.enum(ENTRY_KINDS),
    subject: z.string().describe('What runtime callers name the entry by: a SPIFFE ID, an MCP server URL or a client id'),
    name: z.string(),
    description: z.string().nullable(),
    ownerId: uuid.nullable().describe('The directory user who answers for the entry'),
    status: z.enum(ENTRY_STATUSES),
    allowedTools: z.array(z.string()).nullable().describe('The tools the entry may call; null: none'),
    toolManifestHash: z.string().nullable().describe('The pinned manifest: sha256:<hex> of the RFC 8785 JSON of tools/list `tools`'),
    manifestPinnedAt: nullableTimestamp,
    metadata: z.record(z.string(), z.unknown()),
    verifiedAt: nullableTimestamp,
    revokedAt: nullableTimestamp,
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
    keys: z.array(TrustStoreKey).optional().describe('Every key of the entry (on a single entry only)'),
  })
  .meta({ id: 'TrustStoreEntry' });
export type TrustStoreEntry = z.infer<typeof TrustStoreEntry>;

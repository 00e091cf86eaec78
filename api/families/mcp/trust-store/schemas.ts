// Request and response shapes of trust-store entries.
import { z } from 'zod';
import { ENTRY_KINDS, TrustStoreEntry, TrustStoreKey } from '../../../../db/mcp/trust-store/rows.ts';
import { MANIFEST_HASH, TOOL_NAME } from '../../../../lib/mcp/manifest-hash.ts';
import { displayName, pageOf, PageQuery } from '../../../common/schemas.ts';
import { MAX_SUBJECT } from './subjects.ts';

export { TrustStoreEntry, TrustStoreKey };

const MAX_METADATA = 16 * 1024;

export const EnvironmentParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
export const EntryParams = EnvironmentParams.extend({ entryId: z.uuid() });

const description = z.string().max(2000).nullable().optional();
const AllowedTools = z
  .array(z.string().regex(TOOL_NAME, 'must be an MCP tool name: 1–128 characters of A–Z, a–z, 0–9, _ - .'))
  .max(1000)
  .refine((tools) => new Set(tools).size === tools.length, 'must not repeat a tool')
  .describe('The tools the entry may call (MCP tool names); null or absent: none');
const ManifestHash = z
  .string()
  .regex(MANIFEST_HASH, 'must be sha256:<64 lowercase hex>')
  .describe('sha256:<hex> of the RFC 8785 canonical JSON of the `tools` of tools/list (all pages); setting it pins the manifest');
const Metadata = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    if (Buffer.byteLength(JSON.stringify(value)) > MAX_METADATA) ctx.addIssue({ code: 'custom', message: 'must be at most 16 KiB as JSON' });
  })
  .describe('Free-form JSON object, at most 16 KiB');
const OwnerId = z.uuid().describe('A directory user of this environment');

export const CreateEntryBody = z
  .strictObject({
    kind: z.enum(ENTRY_KINDS),
    subject: z
      .string()
      .max(MAX_SUBJECT)
      .describe('agent/workload: a SPIFFE ID or a client id; mcp_server: its http(s) URL (verified with tools/list) or a SPIFFE ID'),
    name: displayName(200),
    description,
    ownerId: OwnerId.nullable().optional(),
    allowedTools: AllowedTools.nullable().optional(),
    toolManifestHash: ManifestHash.nullable().optional(),
    metadata: Metadata.optional(),
  })
  .meta({ id: 'CreateTrustStoreEntryRequest' });
export type CreateEntryBody = z.infer<typeof CreateEntryBody>;

export const UpdateEntryBody = z
  .strictObject({
    name: displayName(200).optional(),
    description,
    ownerId: OwnerId.nullable().optional(),
    allowedTools: AllowedTools.nullable().optional(),
    toolManifestHash: ManifestHash.nullable().optional().describe('Pins this manifest hash; null unpins'),
    metadata: Metadata.optional(),
    status: z
      .enum(['pending', 'verified', 'suspended'])
      .optional()
      .describe('suspended: stop trusting it for now; verified: resume an entry verified before; pending. Revoking is POST …/revoke'),
  })
  .meta({ id: 'UpdateTrustStoreEntryRequest' });
export type UpdateEntryBody = z.infer<typeof UpdateEntryBody>;

export const EntriesQuery = PageQuery.extend({
  kind: z.enum(ENTRY_KINDS).optional().describe('Only entries of this kind'),
  status: z.enum(['pending', 'verified', 'suspended', 'revoked']).optional().describe('Only entries with this status'),
  subject: z.string().max(MAX_SUBJECT).optional().describe('Only the entry with exactly this subject'),
});

export const EntryResponse = z.object({ entry: TrustStoreEntry }).meta({ id: 'TrustStoreEntryResponse' });
export const EntriesList = pageOf('entries', TrustStoreEntry).meta({ id: 'TrustStoreEntriesList' });

// Request and response shapes of verification and of the runtime resolve route.
import { z } from 'zod';
import { TrustStoreEntry, TrustStoreJwk } from '../../../../db/mcp/trust-store/rows.ts';

export const VerifyBody = z
  .strictObject({
    proof: z
      .string()
      .max(16_384)
      .optional()
      .describe(
        'A JWT signed by an active or retiring key of the entry, with `nonce` (from POST …/verify/challenge), `aud` (the challenge `audience`), ' +
          '`sub` (the entry subject), `iat` and `exp` within 5 minutes. Required when the entry has keys',
      ),
  })
  .meta({ id: 'VerifyTrustStoreEntryRequest' });

export const ChallengeResponse = z
  .object({
    challenge: z.object({
      nonce: z.string().describe('Sign it into the proof JWT as `nonce`: good once, for 5 minutes'),
      audience: z.string().describe('The `aud` the proof must carry (the verify URL; the issuer URL is accepted too)'),
      expiresAt: z.iso.datetime({ offset: true }),
    }),
  })
  .meta({ id: 'TrustStoreChallengeResponse' });

export const Verification = z
  .object({
    verified: z.boolean().describe('Whether every check that applies passed (the entry is then `verified`)'),
    proofOfPossession: z.object({ kid: z.string() }).nullable().describe('The key the proof was verified with; null when the entry has no keys'),
    observedManifestHash: z.string().nullable().describe('MCP server URL: sha256 of the RFC 8785 JSON of the `tools` its tools/list returned'),
    pinnedManifestHash: z.string().nullable(),
    manifestMatches: z.boolean().nullable().describe('null when nothing is pinned or the manifest was not read'),
    tools: z.array(z.string()).nullable().describe('The tool names the server listed'),
    failure: z.string().nullable().describe('Why the entry was not verified'),
  })
  .meta({ id: 'TrustStoreVerification' });

export const VerifyResponse = z.object({ entry: TrustStoreEntry, verification: Verification }).meta({ id: 'TrustStoreVerifyResponse' });

export const ResolveQuery = z.strictObject({
  subject: z.string().min(1).max(2048).describe('The subject of the entry (SPIFFE ID, MCP server URL, client id)'),
});

export const Resolved = z
  .object({
    subject: z.string(),
    kind: z.enum(['agent', 'mcp_server', 'workload']),
    status: z.enum(['pending', 'verified', 'suspended', 'revoked']).describe('Trust only a verified entry'),
    keys: z.object({ keys: z.array(TrustStoreJwk) }).describe('A JWK Set of the keys that verify now: active and retiring ones (none when revoked)'),
    allowedTools: z.array(z.string()).nullable(),
    toolManifestHash: z.string().nullable(),
    manifestPinnedAt: z.iso.datetime({ offset: true }).nullable(),
  })
  .meta({ id: 'TrustStoreResolution' });

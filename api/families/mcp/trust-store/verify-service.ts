// Verification of a trust-store entry: proof of possession of one of its keys (a signed nonce) and, for an MCP
// server named by its URL, its tool manifest read with tools/list and compared with the pin. Only a verification
// that passes every check that applies marks the entry verified.
import { randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { createTrustStoreChallengeQueries } from '../../../../db/mcp/trust-store/challenges.ts';
import { createTrustStoreEntryQueries } from '../../../../db/mcp/trust-store/entries.ts';
import { createTrustStoreKeyQueries } from '../../../../db/mcp/trust-store/keys.ts';
import type { TrustStoreEntry } from '../../../../db/mcp/trust-store/rows.ts';
import { hashSecret } from '../../../../lib/crypto.ts';
import { listMcpTools } from '../../../../lib/mcp/list-tools.ts';
import { manifestHash } from '../../../../lib/mcp/manifest-hash.ts';
import { conflict, invalidField } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { changeableEntry, findEntry } from './entries-service.ts';
import { checkProof, PROOF_WINDOW_SECONDS, proofError, verifyingKeys } from './proof.ts';
import { isHttpUrl } from './subjects.ts';

export interface VerifyDeps {
  pool: DatabasePool;
  issuer: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

const NONCE_PROBLEMS = {
  unknown: 'its nonce was not issued for this entry (POST …/verify/challenge)',
  used: 'its nonce was already used (a replay): ask for a new challenge',
  expired: 'its nonce has expired: ask for a new challenge',
} as const;

const suspendedConflict = () => conflict('trust_store.suspended', 'The entry is suspended: set its status to pending before verifying it.');

export function createVerifyService(deps: VerifyDeps) {
  const { pool } = deps;
  const audienceOf = (caller: EnvironmentCaller, entryId: string) =>
    `${deps.issuer}/v1/tenants/${caller.scope.tenant.id}/environments/${caller.scope.environmentId}/mcp/trust-store/${entryId}/verify`;

  /** Reads the server's tools/list and compares its hash with the pin. */
  const checkManifest = async (entry: TrustStoreEntry) => {
    const listed = await listMcpTools(entry.subject, { timeoutMs: deps.timeoutMs, allowPrivate: deps.allowPrivate });
    if (!listed.ok) return { ok: false as const, failure: `tools/list could not be read (${listed.reason}): ${listed.error}` };
    const observed = manifestHash(listed.tools);
    const pinned = entry.toolManifestHash;
    return {
      ok: true as const,
      observedManifestHash: observed,
      pinnedManifestHash: pinned,
      manifestMatches: pinned === null ? null : observed === pinned,
      tools: listed.tools.map((t) => (t as { name?: unknown }).name).filter((n): n is string => typeof n === 'string'),
    };
  };

  return {
    challenge: (caller: EnvironmentCaller, entryId: string) =>
      pool.transaction(async (trx) => {
        const entry = await changeableEntry(trx, caller, entryId);
        const nonce = randomBytes(32).toString('base64url');
        const challenges = createTrustStoreChallengeQueries(trx);
        await challenges.purgeExpired();
        const expiresAt = await challenges.insert(entryId, hashSecret(nonce), PROOF_WINDOW_SECONDS);
        await record(trx, caller, {
          action: 'mcp.trust_store.entry.challenge',
          resource: { type: 'trust_store_entry', id: entryId },
          after: { expiresAt },
          event: { type: 'mcp.trust_store.entry.challenged', data: { entry, expiresAt } },
        });
        return { nonce, audience: audienceOf(caller, entryId), expiresAt };
      }),

    verify: async (caller: EnvironmentCaller, entryId: string, proof: string | undefined) => {
      const entry = await findEntry(pool, caller, entryId);
      if (entry.status === 'revoked') throw conflict('trust_store.revoked', 'The trust-store entry is revoked: it can no longer change or verify.');
      if (entry.status === 'suspended') throw suspendedConflict();
      const allKeys = await createTrustStoreKeyQueries(pool, caller.scope.environmentId).ofEntry(entryId);
      const keys = verifyingKeys(allKeys);
      const mcp = entry.kind === 'mcp_server' && isHttpUrl(entry.subject);
      if (keys.length === 0 && !mcp) {
        throw conflict('trust_store.nothing_to_verify', 'The entry has no active key (and is not an MCP server URL): add a key before verifying it.');
      }
      let possession: { kid: string } | null = null;
      if (keys.length > 0) {
        if (proof === undefined) throw invalidField('body.proof', 'is required: sign a challenge nonce with one of the entry keys');
        const { key, nonce } = await checkProof(proof, { keys: allKeys, audience: [audienceOf(caller, entryId), deps.issuer], subject: entry.subject });
        const outcome = await createTrustStoreChallengeQueries(pool).consume(entryId, hashSecret(nonce));
        if (outcome !== 'ok') throw proofError(NONCE_PROBLEMS[outcome], 'trust_store.nonce_invalid');
        possession = { kid: key.kid };
      }
      const manifest = mcp ? await checkManifest(entry) : null;
      const failure =
        manifest && !manifest.ok ? manifest.failure : manifest?.manifestMatches === false ? 'the observed tool manifest differs from the pinned one' : null;
      const report = {
        verified: failure === null,
        proofOfPossession: possession,
        observedManifestHash: manifest?.ok ? manifest.observedManifestHash : null,
        pinnedManifestHash: entry.toolManifestHash,
        manifestMatches: manifest?.ok ? manifest.manifestMatches : null,
        tools: manifest?.ok ? manifest.tools : null,
        failure,
      };
      if (failure !== null) return { entry, verification: report };
      return pool.transaction(async (trx) => {
        const before = await changeableEntry(trx, caller, entryId);
        if (before.status === 'suspended') throw suspendedConflict();
        const verified = await createTrustStoreEntryQueries(trx, caller.scope.environmentId).update(entryId, { status: 'verified', verifiedNow: true });
        await record(trx, caller, {
          action: 'mcp.trust_store.entry.verify',
          resource: { type: 'trust_store_entry', id: entryId },
          before,
          after: verified,
          event: {
            type: 'mcp.trust_store.entry.verified',
            data: { entry: verified, verification: { proofOfPossession: possession !== null, observedManifestHash: report.observedManifestHash } },
          },
        });
        return { entry: verified, verification: report };
      });
    },
  };
}

export type VerifyService = ReturnType<typeof createVerifyService>;

// The trust store of the MCP benchmarks, inserted by SQL: ENTRIES agents, each with an active Ed25519 key and a few
// allowed tools, and an environment API secret with the purposes authzen and mcp.
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { displayPrefix, generateCredential, hashSecret } from '../../lib/crypto.ts';

export const ENTRIES = 1000;
const X = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';

export async function seedTrustStore(pool: DatabasePool, environmentId: string) {
  const secret = generateCredential('adenv');
  await pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`
      INSERT INTO trust_store_entries (environment_id, kind, subject, name, status, allowed_tools, verified_at)
      SELECT ${environmentId}, 'agent', 'spiffe://bench.example/agent/' || i, 'Agent ' || i, 'verified', ARRAY['search', 'fetch', 'tool-' || i], now()
      FROM generate_series(1, ${ENTRIES}) i`);
    await tx.query(sql.unsafe`
      INSERT INTO trust_store_keys (entry_id, environment_id, kid, jwk, alg)
      SELECT e.id, e.environment_id, 'key-' || e.id, jsonb_build_object('kty', 'OKP', 'crv', 'Ed25519', 'x', ${X}::text, 'kid', 'key-' || e.id, 'alg', 'EdDSA', 'use', 'sig'), 'EdDSA'
      FROM trust_store_entries e WHERE e.environment_id = ${environmentId}`);
    await tx.query(sql.unsafe`
      INSERT INTO api_secrets (environment_id, tenant_id, name, purposes, prefix, hint, secret_hash)
      SELECT id, tenant_id, 'bench', ARRAY['authzen', 'mcp'], ${displayPrefix(secret)}, ${secret.slice(-4)}, ${sql.binary(hashSecret(secret))}
      FROM environments WHERE id = ${environmentId}`);
  });
  const subjects = await pool.anyFirst(
    sql.type(z.object({ subject: z.string() }))`SELECT subject FROM trust_store_entries WHERE environment_id = ${environmentId} ORDER BY created_at`,
  );
  return { secret, subjects: [...subjects] };
}

// An environment API secret for a bench, written straight to the database (the benches seed by SQL).
import { sql, type DatabasePool } from 'slonik';
import { displayPrefix, generateCredential, hashSecret } from '../lib/crypto.ts';

export async function createBenchSecret(pool: DatabasePool, environmentId: string, purposes: string[]) {
  const secret = generateCredential('adenv');
  await pool.query(sql.unsafe`
    INSERT INTO api_secrets (environment_id, tenant_id, name, purposes, prefix, hint, secret_hash)
    SELECT id, tenant_id, 'bench', ${sql.array(purposes, 'text')}, ${displayPrefix(secret)}, ${secret.slice(-4)}, ${sql.binary(hashSecret(secret))}
    FROM environments WHERE id = ${environmentId}`);
  return secret;
}

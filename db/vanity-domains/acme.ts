// ACME state the process keeps: HTTP-01 challenges in flight (answered by any API instance) and the account key.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const KeyAuthorization = z.object({ keyAuthorization: z.string() });
const Account = z.object({ keySealed: z.string(), accountUrl: z.string().nullable() });

// unscoped: challenges are addressed by the CA's random token, the account belongs to the deployment.
export function createAcmeQueries(db: CommonQueryMethods) {
  return {
    putChallenge: (token: string, hostname: string, keyAuthorization: string) =>
      db.query(sql.unsafe`
        INSERT INTO vanity_acme_challenges (token, hostname, key_authorization) VALUES (${token}, ${hostname}, ${keyAuthorization})
        ON CONFLICT (token) DO UPDATE SET key_authorization = EXCLUDED.key_authorization`),
    removeChallenge: (token: string) => db.query(sql.unsafe`DELETE FROM vanity_acme_challenges WHERE token = ${token}`),
    keyAuthorization: (token: string) =>
      db.maybeOneFirst(sql.type(KeyAuthorization)`SELECT key_authorization AS "keyAuthorization" FROM vanity_acme_challenges WHERE token = ${token}`),

    account: (directoryUrl: string) =>
      db.maybeOne(
        sql.type(Account)`SELECT key_sealed AS "keySealed", account_url AS "accountUrl" FROM vanity_acme_accounts WHERE directory_url = ${directoryUrl}`,
      ),
    saveAccountUrl: (directoryUrl: string, accountUrl: string) =>
      db.query(sql.unsafe`UPDATE vanity_acme_accounts SET account_url = ${accountUrl} WHERE directory_url = ${directoryUrl}`),
    /** Keeps the first key written for a directory (two workers racing agree on it). */
    saveAccountKey: (directoryUrl: string, keySealed: string) =>
      db.query(sql.unsafe`INSERT INTO vanity_acme_accounts (directory_url, key_sealed) VALUES (${directoryUrl}, ${keySealed}) ON CONFLICT DO NOTHING`),
  };
}

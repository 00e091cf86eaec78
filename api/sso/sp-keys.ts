// Each environment's SAML SP encryption key pair: made on first use (a self-signed certificate, published in the SP
// metadata as use="encryption"), its private key sealed under the master key.
import type { CommonQueryMethods } from 'slonik';
import { decrypt, encrypt } from '../../lib/crypto.ts';
import { selfSignedCertificate } from '../../lib/sso/self-signed.ts';
import { createSsoQueries } from '../../db/sso/queries.ts';

export interface SpKey {
  privateKeyPem: string;
  certificatePem: string;
}

export async function spKeyOf(db: CommonQueryMethods, masterKey: Buffer, environmentId: string): Promise<SpKey> {
  const queries = createSsoQueries(db, environmentId);
  let row = await queries.findSpKey();
  if (!row) {
    const made = selfSignedCertificate(`SAML SP ${environmentId}`);
    row = await queries.insertSpKey({ privateKeyEncrypted: encrypt(masterKey, made.privateKeyPem), certificate: made.certificatePem });
  }
  return { privateKeyPem: decrypt(masterKey, row.privateKeyEncrypted), certificatePem: row.certificate };
}

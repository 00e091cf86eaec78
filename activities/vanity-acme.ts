// Obtains and revokes vanity domain certificates over ACME (RFC 8555) with acme-client: the HTTP-01 challenge, whose
// key authorization any API instance answers from the database (GET /.well-known/acme-challenge/<token>). The
// deployment's account key is created on first use and kept sealed under the master key.
import fs from 'node:fs';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type * as AcmeClient from 'acme-client';
import type { DatabasePool } from 'slonik';
import { decrypt, encrypt } from '../lib/crypto.ts';
import { createAcmeQueries } from '../db/vanity-domains/acme.ts';
import type { IssuedCertificate } from '../db/vanity-domains/process.ts';

export interface AcmeDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  /** VANITY_ACME_DIRECTORY_URL and VANITY_ACME_CA_FILE; by default Let's Encrypt with the system's roots. */
  vanityAcme?: { directoryUrl: string; caFile?: string | undefined };
}

const LETS_ENCRYPT: { directoryUrl: string; caFile?: string } = { directoryUrl: 'https://acme-v02.api.letsencrypt.org/directory' };

// Loaded on first use (about 8 MB of heap with its axios and node-forge), kept afterwards: few deployments issue certificates.
let loaded: Promise<typeof AcmeClient> | undefined;
const loadAcme = () => (loaded ??= import('acme-client'));

let trusted: string | undefined;
/** acme-client sends through one axios instance of its own: a private CA (VANITY_ACME_CA_FILE) is trusted there. */
function trustCa(acme: typeof AcmeClient, caFile: string | undefined) {
  if (!caFile || trusted === caFile) return;
  acme.axios.defaults.httpsAgent = new https.Agent({ ca: [...rootCertificates, fs.readFileSync(caFile, 'utf8')] });
  trusted = caFile;
}

async function client(deps: AcmeDeps) {
  const { directoryUrl, caFile } = deps.vanityAcme ?? LETS_ENCRYPT;
  const acme = await loadAcme();
  trustCa(acme, caFile);
  const queries = createAcmeQueries(deps.pool);
  let account = await queries.account(directoryUrl);
  if (!account) {
    await queries.saveAccountKey(directoryUrl, encrypt(deps.masterKey, (await acme.crypto.createPrivateEcdsaKey()).toString()));
    account = (await queries.account(directoryUrl))!;
  }
  const accountKey = decrypt(deps.masterKey, account.keySealed);
  const acmeClient = new acme.Client({
    directoryUrl,
    accountKey,
    accountUrl: account.accountUrl ?? undefined,
    backoffAttempts: 10,
    backoffMin: 200,
    backoffMax: 2000,
  });
  if (!account.accountUrl) {
    // Registered once; an account the CA already holds for this key (its URL lost) is looked up, not updated.
    await acmeClient.createAccount({ onlyReturnExisting: true }).catch(() => acmeClient.createAccount({ termsOfServiceAgreed: true }));
    await queries.saveAccountUrl(directoryUrl, acmeClient.getAccountUrl());
  }
  return acmeClient;
}

/** The facts of a PEM chain's leaf. */
export function certificateFacts(chain: string) {
  const leaf = new X509Certificate(chain);
  return {
    notBefore: new Date(leaf.validFrom).toISOString(),
    notAfter: new Date(leaf.validTo).toISOString(),
    serial: leaf.serialNumber.toUpperCase(),
    fingerprint: leaf.fingerprint256,
    issuer: leaf.issuer.replace(/\n/g, ', '),
  };
}

/** A new key and certificate for `hostname`; throws with the CA's reason when it is refused. */
export async function obtainCertificate(deps: AcmeDeps, hostname: string): Promise<IssuedCertificate> {
  const acmeClient = await client(deps);
  const challenges = createAcmeQueries(deps.pool);
  const acme = await loadAcme();
  const [key, csr] = await acme.crypto.createCsr({ commonName: hostname, altNames: [hostname] }, await acme.crypto.createPrivateEcdsaKey());
  const chain = await acmeClient.auto({
    csr,
    termsOfServiceAgreed: true,
    // The CA checks the challenge itself; a self-check would go through this machine's DNS, not the CA's.
    skipChallengeVerification: true,
    challengePriority: ['http-01'],
    challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
      await challenges.putChallenge(challenge.token, hostname, keyAuthorization);
    },
    challengeRemoveFn: async (_authz, challenge) => {
      await challenges.removeChallenge(challenge.token);
    },
  });
  return { chain, keySealed: encrypt(deps.masterKey, key.toString()), ...certificateFacts(chain) };
}

/** Revokes a certificate this deployment's account obtained; one already revoked counts as revoked. */
export async function revokeCertificate(deps: AcmeDeps, chain: string): Promise<void> {
  const acmeClient = await client(deps);
  try {
    await acmeClient.revokeCertificate(chain, { reason: 5 }); // cessationOfOperation
  } catch (error) {
    if (/alreadyRevoked|already revoked/i.test(String((error as Error).message))) return;
    throw error;
  }
}

// The environment connection an SSO route addresses, with its secrets unsealed and the SP URLs of the route: a
// provider-level route (/v1/sso/:env/:providerId/…) reaches the provider's connection only while it is the only
// active one; a connection route (/v1/sso/:env/connections/:id/…) reaches that connection.
import type { CommonQueryMethods } from 'slonik';
import { decrypt } from '../../lib/crypto.ts';
import { createConnectionQueries } from '../../db/projects/environment-settings/connections.ts';
import type { ConnectionRecord } from '../../db/projects/projects/rows.ts';
import { PROVIDER_IDS, providerOf, type Protocol, type ProviderId } from '../families/projects/environment-settings/connection-providers.ts';
import { connectionSsoUrls, ssoUrls } from '../families/projects/environment-settings/sso-metadata.ts';

export type SsoTarget = { providerId: string } | { connectionId: string };
export type SsoUrls = ReturnType<typeof ssoUrls>;

export interface SsoConnection {
  id: string;
  name: string;
  providerId: ProviderId;
  protocol: Protocol;
  config: Record<string, unknown>;
  secrets: Record<string, unknown>;
  /** The URLs a new round trip uses: provider-level while this is the provider's only active connection. */
  urls: SsoUrls;
  /** When the connection was last saved (what was cached from its settings is stale after it). */
  updatedAt: string | null;
}

export const urlsOf = (publicBaseUrl: string, environmentId: string, target: SsoTarget): SsoUrls =>
  'connectionId' in target
    ? connectionSsoUrls(publicBaseUrl, environmentId, target.connectionId)
    : ssoUrls(publicBaseUrl, environmentId, target.providerId as ProviderId);

const isProvider = (id: string | null): id is ProviderId => id !== null && (PROVIDER_IDS as string[]).includes(id);

/** The active SSO connection `target` names, or null. */
export async function findSsoConnection(db: CommonQueryMethods, masterKey: Buffer, publicBaseUrl: string, environmentId: string, target: SsoTarget) {
  const all = await createConnectionQueries(db, environmentId).findByEnvironment();
  const usable = all.filter(
    (c): c is ConnectionRecord & { providerId: ProviderId } => c.active === true && isProvider(c.providerId) && providerOf(c.providerId).protocol !== null,
  );
  const ofProvider = (providerId: string) => usable.filter((c) => c.providerId === providerId);
  const found =
    'connectionId' in target
      ? usable.find((c) => c.id === target.connectionId)
      : ofProvider(target.providerId).length === 1
        ? ofProvider(target.providerId)[0]
        : undefined;
  if (!found) return null;
  const only = ofProvider(found.providerId).length === 1;
  return {
    id: found.id,
    name: found.name ?? providerOf(found.providerId).name,
    providerId: found.providerId,
    protocol: providerOf(found.providerId).protocol!,
    config: found.config,
    secrets: found.secretsEncrypted ? (JSON.parse(decrypt(masterKey, found.secretsEncrypted)) as Record<string, unknown>) : {},
    urls: urlsOf(publicBaseUrl, environmentId, only ? { providerId: found.providerId } : { connectionId: found.id }),
    updatedAt: found.updatedAt ?? null,
  } satisfies SsoConnection;
}

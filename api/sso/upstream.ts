// A connection as the upstream libraries need it: the OIDC/OAuth 2.0 app (lib/sso/upstream-oidc.ts) or the SAML SP
// settings (lib/sso/saml.ts) with the IdP read from the connection's metadata (a URL's fetched through the SSRF guard
// and cached).
import type { DatabasePool } from 'slonik';
import type { UpstreamApp } from '../../lib/sso/upstream-oidc.ts';
import type { SamlSpSettings } from '../../lib/sso/saml.ts';
import type { Mapping } from '../../lib/sso/mapping.ts';
import type { SamlIdpMetadata } from '../families/projects/environment-settings/schemas.ts';
import type { IdpMetadataCache } from './idp-metadata-cache.ts';
import type { SsoConnection, SsoUrls } from './connections.ts';
import { spKeyOf } from './sp-keys.ts';

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

export const upstreamApp = (c: SsoConnection): UpstreamApp => ({
  providerId: c.providerId as UpstreamApp['providerId'],
  issuer: text(c.config.issuer),
  tenant: text(c.config.tenant),
  clientId: text(c.config.clientId) ?? '',
  clientSecret: text(c.secrets.clientSecret) ?? '',
  scopes: Array.isArray(c.config.scopes) ? (c.config.scopes as string[]) : undefined,
});

export const mappingOf = (c: SsoConnection) => (c.config.mapping ?? {}) as Mapping;
export const provisioningOf = (c: SsoConnection) => (c.config.provisioning === 'link_only' ? 'link_only' : 'jit');
/** SAML: emails the IdP asserts are trusted unless the connection says `trustEmail: false`. */
export const trustsEmail = (c: SsoConnection) => c.config.trustEmail !== false;

/** The SP settings of a SAML round trip, with the IdP of the connection's metadata (cached: ./idp-metadata-cache.ts) or `idp`. */
export async function samlSettings(
  deps: { pool: DatabasePool; masterKey: Buffer; metadata: IdpMetadataCache },
  environmentId: string,
  c: SsoConnection,
  urls: SsoUrls,
  requestId: string | null,
  given?: SamlIdpMetadata,
): Promise<{ settings: SamlSpSettings; idp: SamlIdpMetadata }> {
  const idp = given ?? (await deps.metadata.get(c));
  const key = await spKeyOf(deps.pool, deps.masterKey, environmentId);
  const settings = {
    entityId: urls.entityId,
    acsUrl: urls.acs,
    idp: { entityId: idp.idpEntityId ?? '', ssoUrl: idp.idpSsoUrl!, certificate: idp.idpX509Cert!, nameIdFormat: idp.nameIdFormat },
    // One SP key pair signs AuthnRequests and decrypts assertions: the metadata publishes its certificate for both uses.
    decryptionKeyPem: key.privateKeyPem,
    signingKeyPem: key.privateKeyPem,
    requestId,
  };
  return { settings, idp };
}

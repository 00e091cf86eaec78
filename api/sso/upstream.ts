// A connection as the upstream libraries need it: the OIDC/OAuth 2.0 app (lib/sso/upstream-oidc.ts) or the SAML SP
// settings (lib/sso/saml.ts) with the IdP read from the connection's metadata (URL fetched through the SSRF guard).
import type { DatabasePool } from 'slonik';
import type { UpstreamApp } from '../../lib/sso/upstream-oidc.ts';
import type { SamlSpSettings } from '../../lib/sso/saml.ts';
import type { Mapping } from '../../lib/sso/mapping.ts';
import { resolveIdpMetadata } from '../families/projects/environment-settings/saml-metadata.ts';
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

export async function samlSettings(
  deps: { pool: DatabasePool; masterKey: Buffer; allowPrivate: boolean },
  environmentId: string,
  c: SsoConnection,
  urls: SsoUrls,
  requestId: string | null,
): Promise<SamlSpSettings> {
  const idp = await resolveIdpMetadata(
    { metadataUrl: text(c.config.metadataUrl), metadataXml: text(c.config.metadataXml) },
    { allowPrivate: deps.allowPrivate },
  );
  const key = await spKeyOf(deps.pool, deps.masterKey, environmentId);
  return {
    entityId: urls.entityId,
    acsUrl: urls.acs,
    idp: { entityId: idp.idpEntityId ?? '', ssoUrl: idp.idpSsoUrl!, certificate: idp.idpX509Cert!, nameIdFormat: idp.nameIdFormat },
    // One SP key pair signs AuthnRequests and decrypts assertions: the metadata publishes its certificate for both uses.
    decryptionKeyPem: key.privateKeyPem,
    signingKeyPem: key.privateKeyPem,
    requestId,
  };
}

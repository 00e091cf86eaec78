// What an administrator gives an identity provider to connect it to an environment: the service provider's
// URLs and, for SAML, its metadata (an EntityDescriptor built as a namespaced DOM with @xmldom/xmldom and
// serialised by it, so every value is escaped). URLs live under <PUBLIC_BASE_URL>/v1/sso/<environmentId>/<providerId>, or
// …/connections/<connectionId> when the environment has more than one active connection of the provider.
import { xmldom } from '../../../../lib/sso/xmldom.ts';
import { providerOf, type ProviderId } from './connection-providers.ts';
import type { EnterpriseSsoMetadata } from './schemas.ts';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const SAML2 = 'urn:oasis:names:tc:SAML:2.0:protocol';
const HTTP_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const ENCRYPTION_METHODS = [
  'http://www.w3.org/2009/xmlenc11#aes256-gcm',
  'http://www.w3.org/2001/04/xmlenc#aes256-cbc',
  'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
];
const NAME_ID_FORMATS = ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress', 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent'];

const urlsAt = (base: string) => ({ acs: `${base}/acs`, callback: `${base}/callback`, login: `${base}/login`, entityId: `${base}/metadata` });

/** The URLs of a provider's connection while it is the environment's only active connection of that provider. */
export const ssoUrls = (publicBaseUrl: string, environmentId: string, providerId: ProviderId) =>
  urlsAt(`${publicBaseUrl}/v1/sso/${environmentId}/${providerId}`);

/** The URLs of one connection, for environments with more than one active connection of a provider. */
export const connectionSsoUrls = (publicBaseUrl: string, environmentId: string, connectionId: string) =>
  urlsAt(`${publicBaseUrl}/v1/sso/${environmentId}/connections/${connectionId}`);

/** The certificate's base64 DER (what ds:X509Certificate holds). */
const certificateBody = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, '');

/**
 * SAML 2.0 service provider metadata: signed assertions wanted, one HTTP-POST assertion consumer service and, given
 * the environment's SP certificate, KeyDescriptors use="signing" (the SP signs its AuthnRequests with that key, so
 * AuthnRequestsSigned="true") and use="encryption" (for encrypted assertions).
 */
export function spMetadataXml(entityId: string, acsUrl: string, encryptionCertificatePem?: string): string {
  const { DOMImplementation, XMLSerializer } = xmldom();
  const doc = new DOMImplementation().createDocument(MD, 'md:EntityDescriptor', null);
  const root = doc.documentElement!;
  root.setAttribute('entityID', entityId);
  const sp = doc.createElementNS(MD, 'md:SPSSODescriptor');
  sp.setAttribute('AuthnRequestsSigned', encryptionCertificatePem ? 'true' : 'false');
  sp.setAttribute('WantAssertionsSigned', 'true');
  sp.setAttribute('protocolSupportEnumeration', SAML2);
  for (const use of encryptionCertificatePem ? ['signing', 'encryption'] : []) {
    const key = doc.createElementNS(MD, 'md:KeyDescriptor');
    key.setAttribute('use', use);
    const info = doc.createElementNS(DS, 'ds:KeyInfo');
    const data = doc.createElementNS(DS, 'ds:X509Data');
    const cert = doc.createElementNS(DS, 'ds:X509Certificate');
    cert.appendChild(doc.createTextNode(certificateBody(encryptionCertificatePem!)));
    data.appendChild(cert);
    info.appendChild(data);
    key.appendChild(info);
    for (const algorithm of use === 'encryption' ? ENCRYPTION_METHODS : []) {
      const method = doc.createElementNS(MD, 'md:EncryptionMethod');
      method.setAttribute('Algorithm', algorithm);
      key.appendChild(method);
    }
    sp.appendChild(key);
  }
  for (const format of NAME_ID_FORMATS) {
    const element = doc.createElementNS(MD, 'md:NameIDFormat');
    element.appendChild(doc.createTextNode(format));
    sp.appendChild(element);
  }
  const acs = doc.createElementNS(MD, 'md:AssertionConsumerService');
  acs.setAttribute('Binding', HTTP_POST);
  acs.setAttribute('Location', acsUrl);
  acs.setAttribute('index', '0');
  acs.setAttribute('isDefault', 'true');
  sp.appendChild(acs);
  root.appendChild(sp);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(doc)}`;
}

export interface SsoMetadataExtras {
  /** The environment's SAML encryption certificate (PEM), published as use="encryption". */
  encryptionCertificate?: string;
  /** The active connections of the provider: with more than one, each is listed with its own URLs. */
  connections?: { id: string; name: string }[];
}

const spSide = (saml: boolean, urls: ReturnType<typeof urlsAt>, extras: SsoMetadataExtras) => ({
  acsUrl: saml ? urls.acs : null,
  callbackUrl: saml ? urls.acs : urls.callback,
  loginUrl: urls.login,
  spEntityId: saml ? urls.entityId : null,
  metadataXml: saml ? spMetadataXml(urls.entityId, urls.acs, extras.encryptionCertificate) : null,
});

/** The service provider side of a provider's connection; SAML-only fields are null for OIDC and OAuth 2.0 providers. */
export function enterpriseSsoMetadata(
  publicBaseUrl: string,
  environmentId: string,
  providerId: ProviderId,
  extras: SsoMetadataExtras = {},
): EnterpriseSsoMetadata {
  const provider = providerOf(providerId);
  const saml = provider.protocol === 'saml';
  const connections = extras.connections ?? [];
  return {
    providerId,
    protocol: provider.protocol,
    ...spSide(saml, ssoUrls(publicBaseUrl, environmentId, providerId), extras),
    supportsMetadataUrl: provider.supportsMetadataUrl,
    ...(connections.length > 1 && {
      connections: connections.map((c) => ({
        connectionId: c.id,
        name: c.name,
        ...spSide(saml, connectionSsoUrls(publicBaseUrl, environmentId, c.id), extras),
      })),
    }),
  };
}

// What an administrator gives an identity provider to connect it to an environment: the service provider's
// URLs and, for SAML, its metadata (an EntityDescriptor built as a namespaced DOM with @xmldom/xmldom and
// serialised by it, so every value is escaped). URLs live under <PUBLIC_BASE_URL>/v1/sso/<environmentId>/<providerId>.
import { DOMImplementation, XMLSerializer } from '@xmldom/xmldom';
import { providerOf, type ProviderId } from './connection-providers.ts';
import type { EnterpriseSsoMetadata } from './schemas.ts';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const SAML2 = 'urn:oasis:names:tc:SAML:2.0:protocol';
const HTTP_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const NAME_ID_FORMATS = ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress', 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent'];

export function ssoUrls(publicBaseUrl: string, environmentId: string, providerId: ProviderId) {
  const base = `${publicBaseUrl}/v1/sso/${environmentId}/${providerId}`;
  return { acs: `${base}/acs`, callback: `${base}/callback`, login: `${base}/login`, entityId: `${base}/metadata` };
}

/** SAML 2.0 service provider metadata: signed assertions wanted, one HTTP-POST assertion consumer service. */
export function spMetadataXml(entityId: string, acsUrl: string): string {
  const doc = new DOMImplementation().createDocument(MD, 'md:EntityDescriptor', null);
  const root = doc.documentElement!;
  root.setAttribute('entityID', entityId);
  const sp = doc.createElementNS(MD, 'md:SPSSODescriptor');
  sp.setAttribute('AuthnRequestsSigned', 'false');
  sp.setAttribute('WantAssertionsSigned', 'true');
  sp.setAttribute('protocolSupportEnumeration', SAML2);
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

/** The service provider side of a provider's connection; SAML-only fields are null for OIDC and OAuth 2.0 providers. */
export function enterpriseSsoMetadata(publicBaseUrl: string, environmentId: string, providerId: ProviderId): EnterpriseSsoMetadata {
  const provider = providerOf(providerId);
  const urls = ssoUrls(publicBaseUrl, environmentId, providerId);
  const saml = provider.protocol === 'saml';
  return {
    providerId,
    protocol: provider.protocol,
    acsUrl: saml ? urls.acs : null,
    callbackUrl: saml ? urls.acs : urls.callback,
    loginUrl: urls.login,
    spEntityId: saml ? urls.entityId : null,
    metadataXml: saml ? spMetadataXml(urls.entityId, urls.acs) : null,
    supportsMetadataUrl: provider.supportsMetadataUrl,
  };
}

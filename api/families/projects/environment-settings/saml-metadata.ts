// SAML 2.0 identity provider metadata, read with a namespace-aware XML parser (@xmldom/xmldom): elements are
// matched by namespace URI and local name, so whichever prefixes an IdP uses (md:, saml2:, none) do not matter.
// A metadata URL is fetched through the SSRF guard with a deadline and a size cap.
import { X509Certificate } from 'node:crypto';
import type { Element } from '@xmldom/xmldom';
import { xmldom } from '../../../../lib/sso/xmldom.ts';
import { fetchDocument, type FetchFailure } from '../../../../lib/outbound/fetch-document.ts';
import { ApiError, invalidField } from '../../../errors.ts';
import type { SamlIdpMetadata } from './schemas.ts';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const SAML2 = 'urn:oasis:names:tc:SAML:2.0:protocol';
const BINDINGS = ['urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST'];
const EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

export const METADATA_TIMEOUT_MS = 5_000;
export const METADATA_MAX_BYTES = 1024 * 1024;

/** Why a document is not usable IdP metadata; `message` completes "the document …". */
export class SamlMetadataError extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

function parseXml(xml: string) {
  let problem: string | undefined;
  try {
    // Every report, warnings included, is a well-formedness error: metadata must be strict XML. No DTD is loaded.
    const { DOMParser } = xmldom();
    const parser = new DOMParser({
      onError: (_level, message, context: { locator?: { lineNumber?: number; columnNumber?: number } } | undefined) => {
        const at = context?.locator?.lineNumber ? ` (line ${context.locator.lineNumber}, column ${context.locator.columnNumber})` : '';
        problem ??= (/NamespaceError/.test(message) ? 'an element or attribute uses an undeclared namespace prefix' : message) + at;
        throw new Error(problem);
      },
    });
    return parser.parseFromString(xml, 'application/xml');
  } catch (error) {
    throw new SamlMetadataError('malformed_xml', `is not well-formed XML: ${problem ?? (error as Error).message}`);
  }
}

const elements = (parent: Element, ns: string, local: string, deep = false): Element[] => {
  if (deep) {
    const list = parent.getElementsByTagNameNS(ns, local);
    return Array.from({ length: list.length }, (_, i) => list.item(i)!);
  }
  const found: Element[] = [];
  for (let i = 0; i < parent.childNodes.length; i++) {
    const node = parent.childNodes.item(i) as Element | null;
    if (node?.nodeType === 1 && node.namespaceURI === ns && node.localName === local) found.push(node);
  }
  return found;
};
const text = (el: Element | undefined) => el?.textContent?.trim() || null;
const isHttpUrl = (value: string) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);

/** The preferred endpoint of a kind (SingleSignOnService, SingleLogoutService): HTTP-Redirect, then HTTP-POST. */
function endpoint(descriptor: Element, local: string) {
  const services = elements(descriptor, MD, local);
  for (const binding of BINDINGS) {
    const location = services.find((s) => s.getAttribute('Binding') === binding)?.getAttribute('Location');
    if (location) return location.trim();
  }
  return null;
}

/** The IdP's signing certificate: a KeyDescriptor with use="signing", else one without `use` (it signs and encrypts). */
function signingCertificate(descriptor: Element) {
  const keys = elements(descriptor, MD, 'KeyDescriptor');
  const candidates = [...keys.filter((k) => k.getAttribute('use') === 'signing'), ...keys.filter((k) => !k.getAttribute('use'))];
  const base64 = candidates.map((k) => text(elements(k, DS, 'X509Certificate', true)[0])?.replace(/\s+/g, '')).find(Boolean);
  if (!base64) {
    throw new SamlMetadataError(
      'no_signing_certificate',
      'has no signing certificate (KeyDescriptor use="signing" with a ds:X509Certificate), so responses of this IdP could not be verified',
    );
  }
  try {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw new Error('not base64');
    return new X509Certificate(Buffer.from(base64, 'base64')).toString().trim();
  } catch {
    throw new SamlMetadataError('invalid_certificate', 'has a signing certificate that is not a valid X.509 certificate');
  }
}

export function parseIdpMetadata(xml: string): SamlIdpMetadata {
  const root = parseXml(xml).documentElement;
  if (!root) throw new SamlMetadataError('malformed_xml', 'is not well-formed XML: it has no root element');
  const isMd = (local: string) => root.namespaceURI === MD && root.localName === local;
  if (!isMd('EntityDescriptor') && !isMd('EntitiesDescriptor')) {
    throw new SamlMetadataError(
      'not_metadata',
      `is not SAML 2.0 metadata: its root element is ${root.localName} in namespace ${root.namespaceURI ?? '(none)'}, not EntityDescriptor in ${MD}`,
    );
  }
  const entities = isMd('EntityDescriptor') ? [root] : elements(root, MD, 'EntityDescriptor', true);
  const descriptors = entities.flatMap((entity) => elements(entity, MD, 'IDPSSODescriptor').map((descriptor) => ({ entity, descriptor })));
  if (descriptors.length === 0) throw new SamlMetadataError('no_idp_descriptor', 'has no IDPSSODescriptor: it does not describe an identity provider');
  const idp = descriptors.find(({ descriptor }) => (descriptor.getAttribute('protocolSupportEnumeration') ?? '').split(/\s+/).includes(SAML2));
  if (!idp) throw new SamlMetadataError('no_idp_descriptor', `has no IDPSSODescriptor supporting SAML 2.0 (protocolSupportEnumeration lacks ${SAML2})`);

  const idpEntityId = idp.entity.getAttribute('entityID')?.trim();
  if (!idpEntityId) throw new SamlMetadataError('no_entity_id', 'has no entityID on its EntityDescriptor');
  const idpSsoUrl = endpoint(idp.descriptor, 'SingleSignOnService');
  if (!idpSsoUrl) throw new SamlMetadataError('no_sso_service', 'has no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding');
  if (!isHttpUrl(idpSsoUrl)) throw new SamlMetadataError('no_sso_service', `has a SingleSignOnService Location that is not an http(s) URL: ${idpSsoUrl}`);
  const formats = elements(idp.descriptor, MD, 'NameIDFormat')
    .map((f) => text(f))
    .filter((f): f is string => f !== null);
  return {
    idpEntityId,
    idpSsoUrl,
    idpX509Cert: signingCertificate(idp.descriptor),
    nameIdFormat: formats.includes(EMAIL) ? EMAIL : (formats[0] ?? null),
    sloUrl: endpoint(idp.descriptor, 'SingleLogoutService'),
  };
}

const FETCH_CODES: Record<FetchFailure, string> = {
  refused: 'url_refused',
  timeout: 'timeout',
  too_large: 'too_large',
  status: 'fetch_failed',
  redirects: 'fetch_failed',
  network: 'fetch_failed',
};

/** A 400 naming `path`, e.g. `body.metadataXml has no IDPSSODescriptor…`. */
export const metadataError = (path: string, reason: string, message: string) =>
  new ApiError(400, `saml_metadata.${reason}`, `Invalid SAML metadata: ${path} ${message}.`, { details: [{ path, message }] });

/** Parses `xml`, turning what is wrong with it into a 400 naming `path`. */
export function parseIdpMetadataAt(xml: string, path: string, lead = '') {
  try {
    return parseIdpMetadata(xml);
  } catch (error) {
    if (error instanceof SamlMetadataError) throw metadataError(path, error.reason, lead + error.message);
    throw error;
  }
}

export async function resolveIdpMetadata(input: { metadataUrl?: string; metadataXml?: string }, options: { allowPrivate: boolean; timeoutMs?: number }) {
  if (input.metadataUrl === undefined && input.metadataXml === undefined) throw invalidField('body.metadataUrl', 'or metadataXml is required');
  if (input.metadataUrl !== undefined && input.metadataXml !== undefined) throw invalidField('body.metadataXml', 'must not be given together with metadataUrl');
  if (input.metadataXml !== undefined) return parseIdpMetadataAt(input.metadataXml, 'body.metadataXml');
  const fetched = await fetchDocument(input.metadataUrl!, {
    timeoutMs: options.timeoutMs ?? METADATA_TIMEOUT_MS,
    maxBytes: METADATA_MAX_BYTES,
    allowPrivate: options.allowPrivate,
    accept: 'application/samlmetadata+xml, application/xml, text/xml;q=0.9, */*;q=0.1',
  });
  if (!fetched.ok) throw metadataError('body.metadataUrl', FETCH_CODES[fetched.reason], `could not be fetched: ${fetched.error}`);
  return parseIdpMetadataAt(fetched.body, 'body.metadataUrl', 'returned a document that ');
}

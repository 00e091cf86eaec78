// A local SAML 2.0 identity provider for SSO tests (samlify's IdentityProvider) with a throwaway signing key: its
// metadata goes into a `saml` connection; it reads our AuthnRequest from the redirect and answers with a response
// whose every part a test may bend (audience, timestamps, InResponseTo, encryption) to see it refused.
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import { selfSignedCertificate } from '../../lib/sso/self-signed.ts';

// Loaded untyped: samlify's declarations pull in @xmldom/xmldom 0.8's, whose globals clash with the 0.9 the service uses.
interface Entity {
  getMetadata(): string;
  entityMeta: { getAssertionConsumerService(binding: string): unknown; getEntityID(): string };
  createLoginResponse(...args: unknown[]): Promise<unknown>;
  parseLoginRequest(
    sp: Entity,
    binding: string,
    request: { query: Record<string, string>; octetString: string },
  ): Promise<{ extract: object; sigAlg: string | null }>;
}
const samlify = createRequire(import.meta.url)('samlify') as {
  setSchemaValidator(validator: { validate: (xml: string) => Promise<string> }): void;
  IdentityProvider(settings: object): Entity;
  ServiceProvider(settings: object): Entity;
  SamlLib: { replaceTagsByValue(template: string, values: Record<string, unknown>): string };
};

// The SP verifies with node-saml; samlify's own schema check of what it parses is not under test.
samlify.setSchemaValidator({ validate: async () => 'skipped' });

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
export const IDP_SSO_URL = 'https://idp.example.test/sso';

export interface ResponseOptions {
  nameId: string;
  attributes?: Record<string, string>;
  /** The AuthnRequest answered (null: an unsolicited, IdP-initiated response). */
  inResponseTo: string | null;
  audience?: string;
  /** Shifts every timestamp by this many ms (negative: in the past). */
  shiftMs?: number;
  encrypt?: boolean;
  /** The AuthnStatement's AuthnContextClassRef (how the IdP says it authenticated the user); none by default. */
  authnContextClassRef?: string;
}

const STATUS = 'urn:oasis:names:tc:SAML:2.0:status';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const attributeStatement = (attributes: Record<string, string>) =>
  Object.keys(attributes).length === 0
    ? ''
    : `<saml:AttributeStatement>${Object.entries(attributes)
        .map(
          ([name, value]) =>
            `<saml:Attribute Name="${escape(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic"><saml:AttributeValue xsi:type="xs:string">${escape(value)}</saml:AttributeValue></saml:Attribute>`,
        )
        .join('')}</saml:AttributeStatement>`;

const authnStatement = (instant: string, sessionIndex: string, classRef: string | undefined) =>
  classRef
    ? `<saml:AuthnStatement AuthnInstant="${instant}" SessionIndex="${sessionIndex}"><saml:AuthnContext><saml:AuthnContextClassRef>${escape(classRef)}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`
    : '{AuthnStatement}';

export function samlIdp(entityId = `https://idp.example.test/${crypto.randomUUID()}`, ssoUrl = IDP_SSO_URL) {
  const { privateKeyPem, certificatePem } = selfSignedCertificate('test idp');
  const settings = {
    entityID: entityId,
    privateKey: privateKeyPem,
    signingCert: certificatePem,
    nameIDFormat: [EMAIL_FORMAT],
    wantAuthnRequestsSigned: false,
    singleSignOnService: [{ Binding: REDIRECT, Location: ssoUrl }],
  };
  const idp = samlify.IdentityProvider(settings);
  const encryptingIdp = samlify.IdentityProvider({ ...settings, isAssertionEncrypted: true });
  const demandingIdp = samlify.IdentityProvider({ ...settings, wantAuthnRequestsSigned: true });

  return {
    entityId,
    metadataXml: idp.getMetadata(),
    /** The AuthnRequest's ID and the RelayState of the redirect our SP sent the browser with. */
    readRedirect(location: string) {
      const url = new URL(location);
      const xml = zlib.inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
      return { requestId: /\sID="([^"]+)"/.exec(xml)![1]!, relayState: url.searchParams.get('RelayState'), xml };
    },
    /**
     * Verifies the redirect's AuthnRequest signature (SigAlg, Signature over the query as sent) with the signing
     * certificate of the SP metadata, as an IdP with WantAuthnRequestsSigned="true" does: the SigAlg, or a throw.
     */
    async verifyRedirect(spMetadataXml: string, location: string) {
      const url = new URL(location);
      const octetString = url.search
        .slice(1)
        .split('&')
        .filter((part) => !part.startsWith('Signature='))
        .join('&');
      const sp = samlify.ServiceProvider({ metadata: spMetadataXml });
      const parsed = await demandingIdp.parseLoginRequest(sp, 'redirect', { query: Object.fromEntries(url.searchParams), octetString });
      return parsed.sigAlg;
    },
    /** A base64 SAMLResponse for the SP whose metadata is `spMetadataXml`, signed (assertion) as that metadata asks. */
    async response(spMetadataXml: string, options: ResponseOptions) {
      const sp = samlify.ServiceProvider({ metadata: spMetadataXml });
      const now = Date.now() + (options.shiftMs ?? 0);
      const iso = (ms: number) => new Date(ms).toISOString();
      const acs = sp.entityMeta.getAssertionConsumerService('post') as string;
      const id = `_${crypto.randomUUID()}`;
      const values = {
        ID: id,
        AssertionID: `_${crypto.randomUUID()}`,
        Destination: acs,
        Audience: options.audience ?? sp.entityMeta.getEntityID(),
        SubjectRecipient: acs,
        Issuer: entityId,
        IssueInstant: iso(now),
        StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
        ConditionsNotBefore: iso(now - 1000),
        ConditionsNotOnOrAfter: iso(now + 5 * 60_000),
        SubjectConfirmationDataNotOnOrAfter: iso(now + 5 * 60_000),
        NameIDFormat: EMAIL_FORMAT,
        NameID: options.nameId,
        InResponseTo: options.inResponseTo,
        AuthnStatement: '',
      };
      const replace = (template: string) => ({
        id,
        context: samlify.SamlLib.replaceTagsByValue(
          template
            .replace('{AttributeStatement}', attributeStatement(options.attributes ?? {}))
            .replace('{AuthnStatement}', authnStatement(iso(now), id, options.authnContextClassRef)),
          values,
        ),
      });
      const made = await (options.encrypt ? encryptingIdp : idp).createLoginResponse(sp, {} as never, 'post', {}, { customTagReplacement: replace });
      return (made as { context: string }).context;
    },
    /** A base64 SAMLResponse without an assertion whose Status is Responder with the second-level code `subStatus` (unsigned, as IdPs often send them). */
    errorResponse(acsUrl: string, inResponseTo: string, subStatus: string) {
      const xml =
        `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_${crypto.randomUUID()}" Version="2.0" ` +
        `IssueInstant="${new Date().toISOString()}" Destination="${escape(acsUrl)}" InResponseTo="${escape(inResponseTo)}"><saml:Issuer>${escape(entityId)}</saml:Issuer>` +
        `<samlp:Status><samlp:StatusCode Value="${STATUS}:Responder"><samlp:StatusCode Value="${STATUS}:${subStatus}"/></samlp:StatusCode></samlp:Status></samlp:Response>`;
      return Buffer.from(xml, 'utf8').toString('base64');
    },
  };
}

/** The response with `from` replaced by `to` in its XML: a signature over it no longer holds. */
export const tamper = (samlResponse: string, from: string, to: string) =>
  Buffer.from(Buffer.from(samlResponse, 'base64').toString('utf8').replaceAll(from, to), 'utf8').toString('base64');

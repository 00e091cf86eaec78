// The local SAML IdP (saml-idp.ts) behind an HTTP endpoint, for browser tests: GET /sso reads our SP's AuthnRequest
// (HTTP-Redirect binding) and answers, as a signed-in IdP session would, a page that posts the signed response for
// `nameId` to our ACS (HTTP-POST binding: a form submitted by script, with a button when script is off).
import http from 'node:http';
import type net from 'node:net';
import { samlIdp } from './saml-idp.ts';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export async function startSamlIdpServer(options: { nameId: string; attributes?: Record<string, string> }) {
  let spMetadataXml = '';
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      if (url.pathname !== '/sso' || !spMetadataXml) return res.writeHead(404).end();
      const { requestId, relayState } = idp.readRedirect(url.href);
      const samlResponse = await idp.response(spMetadataXml, { nameId: options.nameId, attributes: options.attributes ?? {}, inResponseTo: requestId });
      const acs = /<md:AssertionConsumerService[^>]*Location="([^"]+)"/.exec(spMetadataXml)![1]!;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><title>Test IdP</title></head><body><main><h1>Test IdP</h1>
        <form method="post" action="${escape(acs)}">
          <input type="hidden" name="SAMLResponse" value="${escape(samlResponse)}" />
          <input type="hidden" name="RelayState" value="${escape(relayState ?? '')}" />
          <noscript><button type="submit">Continue</button></noscript>
        </form><script>document.forms[0].submit();</script></main></body></html>`);
    })().catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const idp = samlIdp(undefined, `${base}/sso`);
  return {
    metadataXml: idp.metadataXml,
    /** The SP metadata of the connection (what the IdP's administrator would load). */
    trust(metadataXml: string) {
      spMetadataXml = metadataXml;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

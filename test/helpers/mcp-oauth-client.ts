// The MCP SDK client's OAuthClientProvider as a test drives it: in-memory client information, tokens and PKCE
// verifier; `redirectToAuthorization` hands the authorization URL to `signIn`, which goes through the sign-in
// over HTTP as a browser would and returns the redirect back to the client, whose code `finishAuth` then redeems.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export const MCP_CLIENT_REDIRECT = 'http://127.0.0.1:9/mcp-callback';

export class TestOAuthClientProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier: string | undefined;
  /** The authorization URLs the SDK sent the "browser" to, and the code the last sign-in returned. */
  readonly authorizationUrls: URL[] = [];
  code: string | null = null;

  constructor(private readonly signIn: (authorizationUrl: URL) => Promise<URL>) {}

  get redirectUrl() {
    return MCP_CLIENT_REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK test client',
      redirect_uris: [MCP_CLIENT_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(authorizationUrl: URL) {
    this.authorizationUrls.push(authorizationUrl);
    this.code = (await this.signIn(authorizationUrl)).searchParams.get('code');
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no PKCE verifier saved');
    return this.verifier;
  }
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { TestApp } from './app.ts';
import type { ConsoleBrowser } from './console-browser.ts';

/** An MCP client's OAuth state kept in memory, as a desktop agent keeps it; the "browser" is the test. */
export class MemoryOAuthClient implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  /** Where the client sent the user (the authorization request), once it has. */
  authorizationUrl?: URL;
  constructor(
    private readonly name = 'Agente de teste',
    readonly redirectUrl = 'http://127.0.0.1:8976/callback',
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
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
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
}

/** The first connection of a client without a token: refused, and the client has sent the user to authorize. */
export async function askAuthorization(app: TestApp, oauth: MemoryOAuthClient): Promise<URL> {
  const refused = await connectMcp(app, oauth).then(
    () => null,
    (error: unknown) => error,
  );
  if (!(refused instanceof UnauthorizedError) || !oauth.authorizationUrl) throw new Error(`expected the authorization to start: ${String(refused)}`);
  return oauth.authorizationUrl;
}

/** The SDK's client on the connector's Streamable HTTP endpoint. */
export async function connectMcp(app: TestApp, oauth: MemoryOAuthClient): Promise<Client> {
  const client = new Client({ name: 'teste', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: oauth }));
  return client;
}

const pathOf = (url: string | URL) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/**
 * The user's part of the authorization-code flow, through the console's pages: open the
 * authorization URL, consent (`decisao`), follow the authorization server back to the client's
 * redirect URI; returns that last address (with `code`, or `error`).
 */
export async function consentInBrowser(browser: ConsoleBrowser, authorizationUrl: URL, decisao: 'permitir' | 'negar' = 'permitir'): Promise<URL> {
  const toInteraction = await browser.get(pathOf(authorizationUrl));
  if (toInteraction.status !== 303) throw new Error(`authorization request answered ${toInteraction.status}: ${toInteraction.text.slice(0, 300)}`);
  const interaction = toInteraction.headers.get('location')!;
  const csrf = await browser.csrfOf(interaction);
  const answered = await browser.post(interaction, { csrf, decisao });
  if (answered.status !== 303) throw new Error(`consent answered ${answered.status}: ${answered.text.slice(0, 300)}`);
  const resumed = await browser.get(pathOf(new URL(answered.headers.get('location')!, authorizationUrl)));
  if (resumed.status !== 303) throw new Error(`resume answered ${resumed.status}: ${resumed.text.slice(0, 300)}`);
  return new URL(resumed.headers.get('location')!);
}

/** The client exchanges the code with its PKCE verifier for tokens (any transport of the client will do). */
export function exchangeCode(app: TestApp, oauth: MemoryOAuthClient, code: string): Promise<void> {
  return new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: oauth }).finishAuth(code);
}

/** Everything an agent does to get a working connection for the user signed in to `browser`. */
export async function authorizedMcp(app: TestApp, browser: ConsoleBrowser, oauth = new MemoryOAuthClient()): Promise<{ client: Client; oauth: MemoryOAuthClient }> {
  const back = await consentInBrowser(browser, await askAuthorization(app, oauth));
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back}`);
  await exchangeCode(app, oauth, code);
  return { client: await connectMcp(app, oauth), oauth };
}

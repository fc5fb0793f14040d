import { createPrivateKey, hkdfSync } from 'node:crypto';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { keyringFor, purposeKey } from '../../config/index.ts';
import { principalFrom, type Principal } from '../../domain/identity/access.ts';
import { OAuthStore } from '../../platform/oauth-store.ts';
import { findUserAccess } from '../../projections/identity/queries.ts';
import type { AppContext } from '../context.ts';

/** The one scope: what the user may do through the MCP connector is what they may do in the API. */
export const MCP_SCOPE = 'mcp';
const ACCESS_TOKEN_TTL_SECONDS = 3600;
const REFRESH_TOKEN_TTL_SECONDS = 14 * 24 * 3600;

export const issuerOf = (app: Pick<AppContext, 'config'>) => `${app.config.PUBLIC_BASE_URL}/oauth`;
export const mcpResourceOf = (app: Pick<AppContext, 'config'>) => `${app.config.PUBLIC_BASE_URL}/mcp`;

/** Where the user signs in and consents: a console page, so the console's session cookie reaches it. */
export const interactionPath = (uid: string) => `/console/oauth/${uid}`;

// PKCS#8 prefix of an Ed25519 private key: the 32 bytes that follow are the seed.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The server's signing key and cookie keys, each derived for its purpose (HKDF) from the token
 * keyring's primary key: every process (and host) sharing JWT_KEYS agrees on them, nothing new
 * has to be kept, and neither is the key that signs access tokens or form tokens.
 */
function derivedKeys(app: AppContext) {
  const { kid, secret } = keyringFor(app.config, 'jwt').primary;
  const seed = Buffer.from(hkdfSync('sha256', secret, 'oauth', 'oauth-signing-key', 32));
  const jwk = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
  const cookieKey = purposeKey(secret, 'oauth-cookies').toString('base64url');
  return { jwks: { keys: [{ ...jwk, kid: `oauth-${kid}`, alg: 'EdDSA', use: 'sig' }] }, cookieKeys: [cookieKey] };
}

export interface AuthorizationPages {
  /** The HTML of a refused authorization request (bad client, bad redirect, expired interaction). */
  error(title: string, message: string): string;
}

/** Portuguese for the errors a user can meet in the browser; the protocol's own code stays in the redirect. */
export const AUTHORIZATION_ERROR_TEXTS: Record<string, string> = {
  invalid_request: 'O pedido de autorização está incompleto ou malformado.',
  invalid_client: 'O aplicativo que pediu acesso não está registrado.',
  invalid_redirect_uri: 'O endereço de retorno do aplicativo não é um dos registrados.',
  invalid_target: 'O recurso pedido não é o conector MCP deste serviço.',
  session_not_found: 'O pedido de autorização expirou. Volte ao aplicativo e conecte de novo.',
  access_denied: 'O acesso foi negado.',
};

function createProvider(app: AppContext, pages: AuthorizationPages): Provider {
  const resource = mcpResourceOf(app);
  const { jwks, cookieKeys } = derivedKeys(app);
  const configuration: Configuration = {
    adapter: (model: string) => new OAuthStore(app.db, model),
    clients: [],
    jwks,
    cookies: { keys: cookieKeys },
    // The one scope clients may register and ask for; it is granted for the /mcp resource.
    scopes: [MCP_SCOPE],
    enabledJWA: { idTokenSigningAlgValues: ['EdDSA'] },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'EdDSA',
    },
    // OAuth 2.1: the authorization code flow only (no implicit, no hybrid).
    responseTypes: ['code'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      // MCP clients register themselves (RFC 7591): the user's consent is what lets one in.
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, indicator) {
          if (indicator !== resource) throw new errors.InvalidTarget();
          return { scope: MCP_SCOPE, audience: resource, accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS, accessTokenFormat: 'opaque' };
        },
      },
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: ACCESS_TOKEN_TTL_SECONDS, AuthorizationCode: 60, Interaction: 600, Grant: REFRESH_TOKEN_TTL_SECONDS, RefreshToken: REFRESH_TOKEN_TTL_SECONDS, Session: 8 * 3600 },
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
    async findAccount(_ctx, accountId) {
      const user = await findUserAccess(app.db, accountId);
      return user ? { accountId, claims: () => ({ sub: accountId }) } : undefined;
    },
    async renderError(ctx: KoaContextWithOIDC, out) {
      ctx.type = 'html';
      ctx.body = pages.error('Não foi possível autorizar', AUTHORIZATION_ERROR_TEXTS[out.error] ?? 'O pedido de autorização foi recusado.');
    },
  };
  const provider = new Provider(issuerOf(app), configuration);
  // Behind a proxy the links it hands out follow X-Forwarded-Proto/Host, as the rest of the service does.
  provider.proxy = true;
  provider.on('server_error', (_ctx, error) => app.log.error({ err: error }, 'authorization server error'));
  // A refused request is the client's or the user's doing: worth a line, not an alarm.
  const refused = (event: string) => (_ctx: unknown, error: Error) => app.log.info({ error: error.message, event }, 'authorization request refused');
  provider.on('authorization.error', refused('authorization.error'));
  provider.on('grant.error', refused('grant.error'));
  provider.on('registration_create.error', refused('registration_create.error'));
  provider.on('grant.success', (ctx) => app.log.info({ clientId: ctx.oidc.client?.clientId, accountId: ctx.oidc.account?.accountId }, 'mcp token issued'));
  return provider;
}

const providers = new WeakMap<AppContext['db'], Provider>();

/** The OAuth 2.1 authorization server of the MCP connector (one per process and database). */
export function authorizationServerOf(app: AppContext, pages: AuthorizationPages): Provider {
  let provider = providers.get(app.db);
  if (!provider) providers.set(app.db, (provider = createProvider(app, pages)));
  return provider;
}

/**
 * The caller behind an MCP access token: a live opaque token issued for the connector's resource,
 * and the user's organization modules and permissions as they are now. Undefined: refuse.
 */
export async function mcpPrincipal(app: AppContext, provider: Provider, token: string): Promise<Principal | undefined> {
  const found = await provider.AccessToken.find(token);
  // find() already refuses an expired token.
  if (!found || found.aud !== mcpResourceOf(app) || !found.accountId || !found.grantId) return undefined;
  const user = await findUserAccess(app.db, found.accountId);
  // The grant stands for the session: revoking it ends every token issued under it.
  return user && principalFrom({ ...user, credentialId: null, sessionId: found.grantId });
}

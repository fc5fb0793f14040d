import type { IncomingMessage } from 'node:http';
import type { Context, Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { authorizationServerOf, issuerOf, MCP_SCOPE, mcpPrincipal, mcpResourceOf } from '../../application/mcp/authorization-server.ts';
import { countClientRegistration, limitHeaders } from '../../application/identity/limits.ts';
import type { AppContext } from '../../application/context.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { errorBox, publicPage } from '../console/html.ts';
import { HttpError } from '../errors.ts';
import { fromOurOrigin } from '../origin.ts';
import type { RouteTable } from '../route.ts';
import { TOOL_DECLARATIONS } from './catalog.ts';
import { serveMcpRequest } from './server.ts';
import { buildTools } from './tools.ts';

export const MCP_PATH = '/mcp';
const OAUTH_PREFIX = '/oauth';
/** RFC 9728: the protected resource's metadata, at the well-known path followed by the resource's path. */
export const RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;
/** RFC 8414: the authorization server's metadata, at the well-known path followed by the issuer's path. */
export const AUTHORIZATION_SERVER_METADATA_PATH = `/.well-known/oauth-authorization-server${OAUTH_PREFIX}`;

const REGISTRATION_PATH = `${OAUTH_PREFIX}/reg`;
const BEARER = /^Bearer\s+([\w\-.~+/]+=*)$/i;

export const authorizationPages = {
  error: (title: string, message: string) => publicPage(title, `${errorBox(message)}<p><a href="/console">Ir para o console</a></p>`),
};

/** The MCP connector's authorization server, with the console's error page. */
export const authorizationServer = (app: AppContext) => authorizationServerOf(app, authorizationPages);

const handlers = new WeakMap<Provider, ReturnType<Provider['callback']>>();

/** Hand a request to the authorization server as if it were mounted at /oauth (its links keep the prefix). */
function toAuthorizationServer(provider: Provider, ctx: Context, path: string): Promise<void> {
  const req = ctx.req as IncomingMessage & { originalUrl?: string };
  req.originalUrl = `${OAUTH_PREFIX}${path}`;
  req.url = path;
  ctx.respond = false;
  let handler = handlers.get(provider);
  if (!handler) handlers.set(provider, (handler = provider.callback()));
  return handler(req, ctx.res) as Promise<void>;
}

function resourceMetadata(app: AppContext) {
  return {
    resource: mcpResourceOf(app),
    authorization_servers: [issuerOf(app)],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Análise de crédito (MCP)',
    resource_documentation: `${app.config.PUBLIC_BASE_URL}/console/api`,
  };
}

/**
 * The MCP connector (docs/mcp.md): `/mcp` for agents, the OAuth 2.1 authorization server under
 * `/oauth` that issues its tokens, and both metadata documents. Mounted before the API's body
 * parsing: the authorization server and the MCP transport read their own bodies.
 */
export function mcpConnector(app: AppContext, tables: readonly RouteTable[]): Middleware {
  const tools = buildTools(TOOL_DECLARATIONS, tables);
  // Built on the first request: PUBLIC_BASE_URL may name the port only once the server listens.
  const provider = () => authorizationServer(app);

  async function serveMcp(ctx: Context): Promise<void> {
    ctx.set('Cache-Control', 'no-store');
    // DNS rebinding: a page on another site (or a name rebound to this host) cannot drive the connector.
    if (!fromOurOrigin(app, ctx)) throw new HttpError(403, Messages.foreignOrigin);
    // Stateless: every message is a POST answered on its own; there is no stream to open (GET) or session to end (DELETE).
    if (ctx.method !== 'POST') throw new HttpError(405, Messages.methodNotAllowed, undefined, { Allow: 'POST' });
    const token = BEARER.exec(ctx.get('authorization'))?.[1];
    const principal = token ? await mcpPrincipal(app, provider(), token) : undefined;
    if (!principal) {
      const challenge = `Bearer resource_metadata="${app.config.PUBLIC_BASE_URL}${RESOURCE_METADATA_PATH}", scope="${MCP_SCOPE}"`;
      throw new HttpError(401, Messages.invalidToken, undefined, { 'WWW-Authenticate': token ? `${challenge}, error="invalid_token"` : challenge });
    }
    ctx.state.log = ctx.state.log.child({ organizationId: principal.organizationId, userId: principal.userId, grantId: principal.sessionId }, true);
    ctx.set(limitHeaders(await app.limiter.consume(principal)));
    await serveMcpRequest(ctx, { app: { ...app, log: ctx.state.log }, tools, principal });
  }

  return async (ctx, next) => {
    if (ctx.path === MCP_PATH) return serveMcp(ctx);
    if (ctx.path === RESOURCE_METADATA_PATH && ctx.method === 'GET') {
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = resourceMetadata(app);
      return;
    }
    if (ctx.path === AUTHORIZATION_SERVER_METADATA_PATH) return toAuthorizationServer(provider(), ctx, '/.well-known/openid-configuration');
    if (ctx.path.startsWith(`${OAUTH_PREFIX}/`)) {
      // Registration needs no credential: what bounds it is a count per caller address.
      if (ctx.method === 'POST' && ctx.path === REGISTRATION_PATH) await countClientRegistration(app, ctx.ip);
      return toAuthorizationServer(provider(), ctx, ctx.url.slice(OAUTH_PREFIX.length));
    }
    return next();
  };
}

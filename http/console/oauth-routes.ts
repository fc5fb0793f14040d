import Type from 'typebox';
import { errors, type Interaction } from 'oidc-provider';
import { AUTHORIZATION_ERROR_TEXTS, interactionPath, mcpResourceOf, MCP_SCOPE } from '../../application/mcp/authorization-server.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { grantsOfAccount, revokeGrant } from '../../platform/oauth-store.ts';
import type { RouteSpec } from '../route.ts';
import { authorizationPages, authorizationServer } from '../mcp/connector.ts';
import { formLeadingTo, htmlReply, seeOther } from './html.ts';
import { consentPage } from './pages.ts';
import { consoleRoute, field, pageHtml, type SignedIn } from './signed-in.ts';

const Params = Type.Object({ uid: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', errorMessage: Messages.recordNotFound }) });

/** The interaction this browser is in (its cookie), which must be the one in the address; null when it expired or is another. */
async function interactionOf(input: SignedIn): Promise<Interaction | null> {
  const provider = authorizationServer(input.app);
  try {
    const interaction = await provider.interactionDetails(input.ctx.req, input.ctx.res);
    return interaction.uid === input.params.uid ? interaction : null;
  } catch (error) {
    if (error instanceof errors.OIDCProviderError) return null;
    throw error;
  }
}

const expired = () => htmlReply(400, authorizationPages.error('Não foi possível autorizar', AUTHORIZATION_ERROR_TEXTS.session_not_found!));

/**
 * The user's step of the MCP connector's OAuth flow: the authorization server sends the browser
 * here; the console's sign-in (with its return) identifies the user, and this page asks their
 * consent. The answer goes back to the authorization server, which redirects to the client.
 */
export const oauthPageRoutes: RouteSpec[] = [
  consoleRoute({
    method: 'get',
    path: interactionPath(':uid'),
    summary: 'An MCP client asks for access (HTML): who asks, for what, Permitir or Negar',
    params: Params,
    errors: [400],
    async handle(input) {
      const interaction = await interactionOf(input);
      if (!interaction) return expired();
      const provider = authorizationServer(input.app);
      const client = await provider.Client.find(String(interaction.params.client_id));
      const organization = await input.app.authenticator.organization(input.principal.organizationId);
      const redirectUri = String(interaction.params.redirect_uri);
      const content = consentPage({
        clientName: client?.clientName ?? String(interaction.params.client_id),
        redirectUri,
        userName: input.principal.userName,
        organizationName: organization?.name ?? '',
        csrf: input.csrf,
        action: interactionPath(interaction.uid),
      });
      return htmlReply(200, pageHtml('Autorizar acesso', input, content), formLeadingTo(redirectUri));
    },
  }),
  consoleRoute({
    method: 'post',
    path: interactionPath(':uid'),
    summary: "Answer an MCP client's request (urlencoded `decisao` permitir or negar, `csrf`): back to the authorization server, which redirects to the client",
    params: Params,
    redirects: "to the authorization server, which sends the browser back to the client's redirect_uri with a code or access_denied",
    errors: [400],
    async handle(input) {
      const interaction = await interactionOf(input);
      if (!interaction) return expired();
      const provider = authorizationServer(input.app);
      const { req, res } = input.ctx;
      if (field(input.body, 'decisao') !== 'permitir') {
        return seeOther(await provider.interactionResult(req, res, { error: 'access_denied', error_description: 'O usuário negou o acesso.' }, { mergeWithLastSubmission: false }));
      }
      const accountId = input.principal.userId;
      const known = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
      // A grant of another user (the browser's provider session was someone else's) is not reused.
      const grant = known?.accountId === accountId ? known : new provider.Grant({ accountId, clientId: String(interaction.params.client_id) });
      // The scope as the server lists it, and for the /mcp resource (what the access token carries).
      grant.addOIDCScope(MCP_SCOPE);
      grant.addResourceScope(mcpResourceOf(input.app), MCP_SCOPE);
      const grantId = await grant.save();
      return seeOther(await provider.interactionResult(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false }));
    },
  }),
  consoleRoute({
    method: 'post',
    path: '/console/api/mcp/:grantId/revogar',
    summary: "Revoke an MCP client's access (urlencoded `csrf`): its tokens stop working at once",
    params: Type.Object({ grantId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', errorMessage: Messages.recordNotFound }) }),
    redirects: 'back to the API settings',
    errors: [404],
    async handle(input) {
      const grant = (await grantsOfAccount(input.app.db, input.principal.userId)).find((g) => g.grantId === input.params.grantId);
      // Another user's grant is as unknown as a missing one.
      if (!grant) throw new DomainError('not_found', Messages.recordNotFound);
      await revokeGrant(input.app.db, grant.grantId);
      return seeOther('/console/api#mcp');
    },
  }),
];

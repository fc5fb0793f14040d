import Type from 'typebox';
import { changePassword, signIn } from '../../application/identity/login-commands.ts';
import { issueCredential, revokeCredential } from '../../application/identity/provisioning-commands.ts';
import { logout } from '../../application/identity/session-commands.ts';
import { disableTotp, enableTotp, enrolment, recoveryCodesLeft, renewRecoveryCodes, totpIsOn } from '../../application/identity/totp-commands.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { credentialsOfUser } from '../../projections/identity/queries.ts';
import { grantsOfAccount } from '../../platform/oauth-store.ts';
import { refusalOf } from '../errors.ts';
import { ObjectIdSchema, PAGE_FORM_BODY_LIMIT, route, type RouteTable } from '../route.ts';
import { htmlReply, publicPage, seeOther } from './html.ts';
import { apiPage, homePage, loginForm, newCredentialPage, passwordForm, recoveryCodesPage, totpDisableForm, totpEnrolForm } from './pages.ts';
import { consoleAssetRoute } from './assets.ts';
import { collectionPageRoutes } from './collection-routes.ts';
import { dashboardPageRoutes } from './dashboard-routes.ts';
import { oauthPageRoutes } from './oauth-routes.ts';
import { policyPageRoutes } from './policy-routes.ts';
import { proposalPageRoutes } from './proposal-routes.ts';
import { reportPageRoutes } from './report-routes.ts';
import { screeningPageRoutes } from './screening-routes.ts';
import { webhookPageRoutes } from './webhook-routes.ts';
import { checkCsrf, clearSessionCookie, consolePrincipal, loginCsrf, loginCsrfCookie, setSessionCookie } from './session.ts';
import { CONSOLE_HTML, ConsoleForm, consoleRoute, field, page, pageHtml, refusal, returnPath, type SignedIn } from './signed-in.ts';

const apiSettings = async (input: SignedIn, message?: string) =>
  pageHtml(
    'API e MCP',
    input,
    apiPage({
      baseUrl: input.app.config.PUBLIC_BASE_URL,
      credentials: await credentialsOfUser(input.app.db, input.principal.userId),
      grants: await grantsOfAccount(input.app.db, input.principal.userId),
      csrf: input.csrf,
      message,
    }),
  );

const totpPage = async (input: SignedIn, message?: string) =>
  pageHtml(
    'Verificação em duas etapas',
    input,
    (await totpIsOn(input.app, input.principal.userId))
      ? totpDisableForm(input.csrf, await recoveryCodesLeft(input.app, input.principal.userId), message)
      : totpEnrolForm(input.csrf, enrolment(input.app, input.principal, field(input.body, 'pendente')), message),
  );

const passwordPage = async (input: SignedIn, message?: string) => pageHtml('Trocar senha', input, passwordForm(input.csrf, message));

/**
 * The web console's sign-in and account pages (docs/console.md): server-rendered HTML under
 * /console, a session cookie instead of a bearer token, a CSRF token on every form.
 */
export const consoleRoutes: RouteTable = {
  module: 'console',
  description: "Web console: sign-in with the user's e-mail and password (and TOTP code, when on), account and API settings (HTML pages)",
  routes: [
    consoleRoute({
      method: 'get',
      path: '/console',
      summary: "The console's home (HTML): who is signed in, the organization and what it may use",
      async handle(input) {
        const organization = await input.app.authenticator.organization(input.principal.organizationId);
        return page(200, 'Início', input, homePage(input.principal, organization?.name ?? ''));
      },
    }),
    route({
      method: 'get',
      path: '/console/entrar',
      summary: 'The sign-in page (HTML): e-mail and password',
      auth: false,
      files: CONSOLE_HTML,
      responses: { 303: Type.Null({ description: 'to the home page, when already signed in' }) },
      query: Type.Object({ voltar: Type.Optional(Type.String({ maxLength: 2000, description: 'the console page to return to after signing in' })) }),
      async handle({ app, ctx, query }) {
        const returnTo = returnPath((query as { voltar?: string }).voltar ?? '');
        if (await consolePrincipal(app, ctx)) return seeOther(returnTo);
        return htmlReply(200, publicPage('Entrar', loginForm(loginCsrf(ctx), undefined, '', returnTo)));
      },
    }),
    route({
      method: 'post',
      path: '/console/entrar',
      summary:
        'Sign in (urlencoded `email`, `senha`, `csrf`, optional `voltar`, and `codigo` for a user with TOTP on): sets the session cookie and redirects to the page asked for, else the home page',
      description: `401 \`${Messages.wrongLogin}\` whichever was wrong (a missing, wrong or already used TOTP code too); 429 once an e-mail address was tried AUTH_FAILURES_BEFORE_LOCK times without success, or the caller's address AUTH_FAILURES_PER_ADDRESS times (for AUTH_LOCK_SECONDS); 403 without the form's token.`,
      auth: false,
      rawBody: true,
      pageForm: true,
      // Anyone may post here: an e-mail, a password, a code and the form's token are a few hundred bytes.
      bodyLimit: PAGE_FORM_BODY_LIMIT,
      files: CONSOLE_HTML,
      body: ConsoleForm,
      responses: { 303: Type.Null({ description: 'to the home page, with the session cookie' }) },
      errors: [401, 403, 429],
      async handle({ app, ctx, body }) {
        const email = field(body, 'email');
        const returnTo = returnPath(field(body, 'voltar'));
        const again = (message: string) => publicPage('Entrar', loginForm(loginCsrf(ctx), message, email, returnTo));
        try {
          checkCsrf(app, ctx, field(body, 'csrf'), loginCsrfCookie(ctx));
          const session = await signIn(app, email, field(body, 'senha'), ctx.ip, field(body, 'codigo'));
          setSessionCookie(ctx, session.token, session.expiresAt);
          return seeOther(returnTo);
        } catch (error) {
          const refused = refusalOf(error);
          if (!refused) throw error;
          return { ...refusal(ctx, refused.status, refused.message, again), ...(refused.headers && { headers: { ...refused.headers } }) };
        }
      },
    }),
    consoleRoute({
      method: 'post',
      path: '/console/sair',
      summary: 'Sign out (urlencoded `csrf`): ends the session and clears its cookie',
      redirects: 'to the sign-in page',
      async handle({ app, ctx, principal }) {
        await logout(app, principal);
        clearSessionCookie(ctx);
        return seeOther('/console/entrar');
      },
    }),
    consoleRoute({
      method: 'get',
      path: '/console/senha',
      summary: 'The change-password page (HTML)',
      handle: async (input) => htmlReply(200, await passwordPage(input)),
    }),
    consoleRoute({
      method: 'post',
      path: '/console/senha',
      summary: "Change the signed-in user's password (urlencoded `atual`, `nova`, `confirmacao`, `csrf`); the user's other console sessions end",
      errors: [400],
      async handle(input) {
        const { body } = input;
        await changePassword(input.app, input.principal, { current: field(body, 'atual'), next: field(body, 'nova'), confirmation: field(body, 'confirmacao') }, input.ctx.ip);
        return page(
          200,
          'Trocar senha',
          input,
          '<p class="aviso" role="status">Senha alterada. Suas outras sessões no console e os agentes autorizados no conector MCP foram encerrados.</p><p><a href="/console">Voltar ao início</a></p>',
        );
      },
      form: (input, message) => passwordPage(input, message),
    }),
    consoleRoute({
      method: 'get',
      path: '/console/verificacao',
      summary: 'Two-step verification (HTML): when off, a new TOTP secret (base32 and otpauth:// URI) and a code to confirm it; when on, the form to turn it off',
      handle: async (input) => htmlReply(200, await totpPage(input)),
    }),
    consoleRoute({
      method: 'post',
      path: '/console/verificacao/ativar',
      summary:
        "Turn TOTP on (urlencoded `pendente`, the sealed secret the page gave, `codigo`, `csrf`): only a current code of that secret turns it on; the page shows 10 recovery codes, once, and the user's other console sessions end",
      errors: [400, 409],
      async handle(input) {
        const codes = await enableTotp(input.app, input.principal, field(input.body, 'pendente'), field(input.body, 'codigo'));
        const lead =
          'Verificação em duas etapas ativada. Ao entrar, o console pedirá o código do seu aplicativo. Suas outras sessões no console e os agentes autorizados no conector MCP foram encerrados.';
        return page(200, 'Verificação em duas etapas', input, recoveryCodesPage(lead, codes));
      },
      form: totpPage,
    }),
    consoleRoute({
      method: 'post',
      path: '/console/verificacao/recuperacao',
      summary: 'New recovery codes (urlencoded `senha`, `codigo`, `csrf`): the password and a current or recovery code; the page shows 10 new codes, once, and the earlier ones stop working',
      errors: [400],
      async handle(input) {
        const codes = await renewRecoveryCodes(input.app, input.principal, field(input.body, 'senha'), field(input.body, 'codigo'), input.ctx.ip);
        return page(200, 'Verificação em duas etapas', input, recoveryCodesPage('Novos códigos de recuperação gerados. Os anteriores deixaram de valer.', codes));
      },
      form: totpPage,
    }),
    consoleRoute({
      method: 'post',
      path: '/console/verificacao/desativar',
      summary: 'Turn TOTP off (urlencoded `senha`, `codigo`, `csrf`): the password and a current or recovery code',
      errors: [400],
      async handle(input) {
        await disableTotp(input.app, input.principal, field(input.body, 'senha'), field(input.body, 'codigo'), input.ctx.ip);
        return page(200, 'Verificação em duas etapas', input, '<p class="aviso" role="status">Verificação em duas etapas desativada.</p><p><a href="/console">Voltar ao início</a></p>');
      },
      form: totpPage,
    }),
    consoleRoute({
      method: 'get',
      path: '/console/api',
      summary: "API settings (HTML): the user's credentials (client ids), a new one, revocation, how to authenticate",
      handle: async (input) => htmlReply(200, await apiSettings(input)),
    }),
    consoleRoute({
      method: 'post',
      path: '/console/api/credenciais',
      summary: 'Create a credential for the signed-in user (urlencoded `csrf`): the page shows its secret, once',
      async handle(input) {
        const issued = await issueCredential(input.app, input.principal.userId);
        return page(201, 'Nova credencial', input, newCredentialPage(issued.clientId, issued.clientSecret, input.app.config.PUBLIC_BASE_URL));
      },
      form: apiSettings,
    }),
    consoleRoute({
      method: 'post',
      path: '/console/api/credenciais/:credentialId/revogar',
      summary: "Revoke one of the signed-in user's credentials (urlencoded `csrf`): its tokens stop working at once",
      params: Type.Object({ credentialId: ObjectIdSchema() }),
      redirects: 'back to the API settings',
      errors: [404],
      async handle(input) {
        const credential = (await credentialsOfUser(input.app.db, input.principal.userId)).find((c) => c.id === input.params.credentialId);
        // Another user's credential is as unknown as a missing one.
        if (!credential) throw new DomainError('not_found', Messages.recordNotFound);
        if (!credential.revokedAt) await revokeCredential(input.app, credential.clientId);
        return seeOther('/console/api');
      },
      form: apiSettings,
    }),
    ...oauthPageRoutes,
    consoleAssetRoute,
    ...reportPageRoutes,
    ...policyPageRoutes,
    ...proposalPageRoutes,
    ...dashboardPageRoutes,
    ...webhookPageRoutes,
    ...screeningPageRoutes,
    ...collectionPageRoutes,
  ],
};

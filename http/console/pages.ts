import { PASSWORD_LENGTH } from '../../domain/identity/password.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { csrfField, errorBox } from './html.ts';
import { escape } from '../../domain/shared/html.ts';

const DATE = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' });
const when = (date: Date) => DATE.format(date);

const codeInput = '<input id="codigo" name="codigo" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6">';
/** Where a recovery code (xxxx-xxxx-xxxx-xxxx) may stand in for the six digits. */
const codeOrRecoveryInput = (required: boolean) => `<input id="codigo" name="codigo" autocomplete="one-time-code" maxlength="24"${required ? ' required' : ''}>`;

export function loginForm(csrf: string, message?: string, email = '', returnTo = '/console'): string {
  return `${errorBox(message)}<form class="cartao" method="post" action="/console/entrar">${csrfField(csrf)}${returnTo === '/console' ? '' : `<input type="hidden" name="voltar" value="${escape(returnTo)}">`}
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(email)}">
<label for="senha">Senha</label><input id="senha" name="senha" type="password" autocomplete="current-password" required>
<label for="codigo">Código de verificação ou de recuperação (só se você ativou a verificação em duas etapas)</label>${codeOrRecoveryInput(false)}
<button class="primario" type="submit">Entrar</button></form>`;
}

export function homePage(principal: Principal, organizationName: string): string {
  const list = (items: Iterable<string>) =>
    [...items]
      .sort()
      .map((item) => `<li><code>${escape(item)}</code></li>`)
      .join('') || '<li>nenhum</li>';
  return `<section class="cartao"><p>Olá, ${escape(principal.userName)}. Você está em <strong>${escape(organizationName)}</strong>.</p>
<p><a href="/console/api">Credenciais de API</a> · <a href="/console/senha">Trocar senha</a> · <a href="/console/verificacao">Verificação em duas etapas</a></p></section>
<section class="cartao"><h2>Módulos da organização</h2><ul>${list(principal.modules)}</ul>
<h2>Suas permissões</h2><ul>${list(principal.permissions)}</ul></section>`;
}

export function passwordForm(csrf: string, message?: string): string {
  return `${errorBox(message)}<form class="cartao" method="post" action="/console/senha">${csrfField(csrf)}
<label for="atual">Senha atual</label><input id="atual" name="atual" type="password" autocomplete="current-password" required>
<label for="nova">Nova senha (de ${PASSWORD_LENGTH.min} a ${PASSWORD_LENGTH.max} caracteres)</label><input id="nova" name="nova" type="password" autocomplete="new-password" minlength="${PASSWORD_LENGTH.min}" maxlength="${PASSWORD_LENGTH.max}" required>
<label for="confirmacao">Repita a nova senha</label><input id="confirmacao" name="confirmacao" type="password" autocomplete="new-password" required>
<button class="primario" type="submit">Trocar senha</button></form>`;
}

/** TOTP off: a new secret (base32 and otpauth:// URI) and a current code to confirm it. */
export function totpEnrolForm(csrf: string, enrolment: { secret: string; uri: string; pending: string }, message?: string): string {
  return `${errorBox(message)}<section class="cartao"><p>A verificação em duas etapas está <strong>desativada</strong>. Para ativá-la, adicione esta chave ao seu aplicativo autenticador (TOTP, 6 dígitos, 30 segundos) e digite o código que ele mostrar.</p>
<p>Chave: <code id="totp-secret">${escape(enrolment.secret)}</code></p><p>Endereço para o aplicativo: <code id="totp-uri">${escape(enrolment.uri)}</code></p>
<form method="post" action="/console/verificacao/ativar">${csrfField(csrf)}<input type="hidden" name="pendente" value="${escape(enrolment.pending)}">
<label for="codigo">Código do aplicativo</label>${codeInput.replace('>', ' required>')}
<button class="primario" type="submit">Ativar</button></form></section>`;
}

/** The password and a code (of the app or a recovery one), for a change a session left open must not make. */
const reauthenticationFields = (id: string) =>
  `<label for="senha-${id}">Senha</label><input id="senha-${id}" name="senha" type="password" autocomplete="current-password" required>
<label for="codigo-${id}">Código do aplicativo ou de recuperação</label>${codeOrRecoveryInput(true).replace('id="codigo"', `id="codigo-${id}"`)}`;

/** TOTP on: how many recovery codes are left, new ones, and turning it off (each asks for the password and a code). */
export function totpDisableForm(csrf: string, recoveryCodesLeft: number, message?: string): string {
  return `${errorBox(message)}<section class="cartao"><p>A verificação em duas etapas está <strong>ativada</strong>: ao entrar, o console pede o código do seu aplicativo autenticador.</p>
<p>Códigos de recuperação não usados: <strong id="codigos-restantes">${recoveryCodesLeft}</strong>. Cada um substitui uma vez o código do aplicativo, se você perder o acesso a ele.</p></section>
<section class="cartao"><h2>Novos códigos de recuperação</h2><p>Os códigos anteriores deixam de valer.</p>
<form method="post" action="/console/verificacao/recuperacao">${csrfField(csrf)}${reauthenticationFields('novos')}
<button class="primario" type="submit">Gerar novos códigos</button></form></section>
<section class="cartao"><h2>Desativar</h2><form method="post" action="/console/verificacao/desativar">${csrfField(csrf)}${reauthenticationFields('desativar')}
<button class="perigo" type="submit">Desativar</button></form></section>`;
}

/** Recovery codes in clear, this once: they are kept only as hashes. */
export function recoveryCodesPage(lead: string, codes: string[]): string {
  return `<section class="cartao"><p class="aviso" role="status">${escape(lead)}</p>
<p>Guarde estes códigos de recuperação num lugar seguro: eles não serão mostrados de novo. Cada um pode ser usado uma única vez no lugar do código do aplicativo.</p>
<ol id="codigos-recuperacao">${codes.map((code) => `<li><code>${escape(code)}</code></li>`).join('')}</ol>
<p><a href="/console">Voltar ao início</a></p></section>`;
}

function authenticateExample(baseUrl: string, clientId: string, secret: string): string {
  return `<pre>curl -X POST ${escape(baseUrl)}/auth/authenticate \\
  -H 'service-client-id: ${escape(clientId)}' \\
  -H 'service-client-secret: ${escape(secret)}'</pre>`;
}

interface ApiPageData {
  baseUrl: string;
  credentials: Array<{ id: string; clientId: string; createdAt: Date; revokedAt: Date | null }>;
  /** The MCP clients the user let in. */
  grants: Array<{ grantId: string; clientId: string; clientName: string | null; expiresAt: Date | null }>;
  csrf: string;
  message?: string;
}

export function apiPage({ baseUrl, credentials, grants, csrf, message }: ApiPageData): string {
  const rows = credentials
    .map((c) => {
      const state = c.revokedAt
        ? `revogada em ${when(c.revokedAt)}`
        : `<form method="post" action="/console/api/credenciais/${escape(c.id)}/revogar">${csrfField(csrf)}<button class="perigo" type="submit">Revogar</button></form>`;
      return `<tr><td><code>${escape(c.clientId)}</code></td><td>${when(c.createdAt)}</td><td>${state}</td></tr>`;
    })
    .join('');
  return `${errorBox(message)}<section class="cartao"><h2>Suas credenciais</h2>
<p>Cada credencial é um par client id e secret que um sistema usa para obter um token em <code>POST /auth/authenticate</code>. O secret é mostrado uma única vez, ao criar; guarde-o num cofre de segredos.</p>
${rows ? `<table><thead><tr><th>Client id</th><th>Criada em</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : '<p>Você ainda não tem credenciais.</p>'}
<form method="post" action="/console/api/credenciais">${csrfField(csrf)}<button class="primario" type="submit">Criar credencial</button></form></section>
<section class="cartao"><h2>Como autenticar</h2>${authenticateExample(baseUrl, '<client id>', '<secret>')}
<p>A resposta traz <code>accessToken</code>: envie-o em <code>Authorization: Bearer &lt;token&gt;</code>. A documentação completa está em <a href="/openapi.json">/openapi.json</a>.</p></section>
${mcpSection(baseUrl, grants, csrf)}`;
}

/** How to connect an AI agent, and the agents already allowed in (each revocable). */
function mcpSection(baseUrl: string, grants: ApiPageData['grants'], csrf: string): string {
  const rows = grants
    .map(
      (g) =>
        `<tr><td>${escape(g.clientName ?? g.clientId)}</td><td>${g.expiresAt ? when(g.expiresAt) : '—'}</td><td><form method="post" action="/console/api/mcp/${escape(g.grantId)}/revogar">${csrfField(csrf)}<button class="perigo" type="submit">Revogar</button></form></td></tr>`,
    )
    .join('');
  return `<section class="cartao" id="mcp"><h2>Conector MCP para agentes de IA</h2>
<p>Agentes de IA (Claude, ChatGPT, IDEs e outros clientes MCP) usam este serviço pelo endereço <code id="mcp-url">${escape(baseUrl)}/mcp</code> (Streamable HTTP). Adicione-o como conector remoto no seu cliente: ele abrirá esta página para você entrar e autorizar o acesso (OAuth 2.1 com PKCE). Nenhum secret é copiado.</p>
<p>O agente age como você: vê só a sua organização e só pode o que as suas permissões permitem. Ferramentas: listar políticas, criar relatório e aguardar a decisão, ler relatório, explicação, pareceres e comitê, criar e ler propostas, simular operação, status e trilha de coletas.</p>
${rows ? `<table><thead><tr><th>Aplicativo autorizado</th><th>Válido até</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : '<p>Nenhum agente autorizado.</p>'}</section>`;
}

/**
 * The consent page. Registration is open (RFC 7591): the name is whatever the client wrote about
 * itself, so the page says the application is not verified and shows the whole address the
 * authorization would be sent to, which is what a user can actually check.
 */
export function consentPage(input: { clientName: string; redirectUri: string; userName: string; organizationName: string; csrf: string; action: string }): string {
  return `<section class="cartao"><h2>Autorizar acesso</h2>
<div class="erro" role="alert" id="nao-verificado"><p><strong>Aplicativo não verificado.</strong> O nome <strong>${escape(input.clientName)}</strong> foi informado pelo próprio aplicativo ao se registrar e não foi confirmado por este serviço. Só permita se foi você quem acabou de conectar este aplicativo e se reconhece o endereço de retorno abaixo.</p>
<p>Endereço de retorno (para onde a autorização será enviada): <code id="retorno">${escape(input.redirectUri)}</code></p></div>
<p>O aplicativo <strong id="cliente">${escape(input.clientName)}</strong> quer usar o conector MCP em seu nome.</p>
<p>Ele poderá ler e criar, como <strong>${escape(input.userName)}</strong> em <strong>${escape(input.organizationName)}</strong>, o que as suas permissões permitem: políticas, relatórios, propostas, simulações e coletas. Você pode revogar o acesso a qualquer momento em <a href="/console/api#mcp">API e MCP</a>.</p>
<form method="post" action="${escape(input.action)}">${csrfField(input.csrf)}<button class="primario" type="submit" name="decisao" value="permitir">Permitir</button> <button type="submit" name="decisao" value="negar">Negar</button></form></section>`;
}

export function newCredentialPage(clientId: string, secret: string, baseUrl: string): string {
  return `<section class="cartao"><p class="aviso" role="status">Credencial criada. Copie o secret agora: ele não será mostrado de novo.</p>
<p>Client id: <code id="client-id">${escape(clientId)}</code></p><p>Secret: <code id="client-secret">${escape(secret)}</code></p>
${authenticateExample(baseUrl, clientId, secret)}<p><a href="/console/api">Voltar às credenciais</a></p></section>`;
}

import { PASSWORD_LENGTH } from '../../domain/identity/password.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { csrfField, errorBox, escape } from './html.ts';

const DATE = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' });
const when = (date: Date) => DATE.format(date);

export function loginForm(csrf: string, message?: string, email = ''): string {
  return `${errorBox(message)}<form class="cartao" method="post" action="/console/entrar">${csrfField(csrf)}
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(email)}">
<label for="senha">Senha</label><input id="senha" name="senha" type="password" autocomplete="current-password" required>
<button class="primario" type="submit">Entrar</button></form>`;
}

export function homePage(principal: Principal, organizationName: string): string {
  const list = (items: Iterable<string>) => [...items].sort().map((item) => `<li><code>${escape(item)}</code></li>`).join('') || '<li>nenhum</li>';
  return `<section class="cartao"><p>Olá, ${escape(principal.userName)}. Você está em <strong>${escape(organizationName)}</strong>.</p>
<p><a href="/console/api">Credenciais de API</a> · <a href="/console/senha">Trocar senha</a></p></section>
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

function authenticateExample(baseUrl: string, clientId: string, secret: string): string {
  return `<pre>curl -X POST ${escape(baseUrl)}/auth/authenticate \\
  -H 'service-client-id: ${escape(clientId)}' \\
  -H 'service-client-secret: ${escape(secret)}'</pre>`;
}

interface ApiPageData {
  baseUrl: string;
  credentials: Array<{ id: string; clientId: string; createdAt: Date; revokedAt: Date | null }>;
  csrf: string;
  message?: string;
}

export function apiPage({ baseUrl, credentials, csrf, message }: ApiPageData): string {
  const rows = credentials
    .map((c) => {
      const state = c.revokedAt ? `revogada em ${when(c.revokedAt)}` : `<form method="post" action="/console/api/credenciais/${escape(c.id)}/revogar">${csrfField(csrf)}<button class="perigo" type="submit">Revogar</button></form>`;
      return `<tr><td><code>${escape(c.clientId)}</code></td><td>${when(c.createdAt)}</td><td>${state}</td></tr>`;
    })
    .join('');
  return `${errorBox(message)}<section class="cartao"><h2>Suas credenciais</h2>
<p>Cada credencial é um par client id e secret que um sistema usa para obter um token em <code>POST /auth/authenticate</code>. O secret é mostrado uma única vez, ao criar; guarde-o num cofre de segredos.</p>
${rows ? `<table><thead><tr><th>Client id</th><th>Criada em</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : '<p>Você ainda não tem credenciais.</p>'}
<form method="post" action="/console/api/credenciais">${csrfField(csrf)}<button class="primario" type="submit">Criar credencial</button></form></section>
<section class="cartao"><h2>Como autenticar</h2>${authenticateExample(baseUrl, '<client id>', '<secret>')}
<p>A resposta traz <code>accessToken</code>: envie-o em <code>Authorization: Bearer &lt;token&gt;</code>. A documentação completa está em <a href="/openapi.json">/openapi.json</a>.</p></section>`;
}

export function newCredentialPage(clientId: string, secret: string, baseUrl: string): string {
  return `<section class="cartao"><p class="aviso" role="status">Credencial criada. Copie o secret agora: ele não será mostrado de novo.</p>
<p>Client id: <code id="client-id">${escape(clientId)}</code></p><p>Secret: <code id="client-secret">${escape(secret)}</code></p>
${authenticateExample(baseUrl, clientId, secret)}<p><a href="/console/api">Voltar às credenciais</a></p></section>`;
}

import { SANDBOX_MARK } from '../../domain/shared/provenance.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { allows, Gates } from '../gates.ts';
import type { Reply } from '../route.ts';
import { escape } from '../../domain/shared/html.ts';

const csp = (formAction: string) => `default-src 'self'; frame-ancestors 'none'; form-action ${formAction}; base-uri 'none'; object-src 'none'`;

/**
 * A page whose form ends, through redirects, at another address (the OAuth consent, back to the
 * client): browsers hold a form's redirects to form-action too, so that address is allowed there.
 */
export const formLeadingTo = (address: string): Record<string, string> => {
  const url = new URL(address);
  const target = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  return { 'content-security-policy': csp(`'self' ${target}`) };
};

/** What every console page answers with: never cached, never framed, nothing from elsewhere. */
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // htmx's own indicator style is switched off (htmx-config meta), so no inline style is needed.
  'content-security-policy': csp("'self'"),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

export const htmlReply = (status: number, text: string, headers: Record<string, string> = {}): Reply => ({ status, raw: Buffer.from(text), headers: { ...HEADERS, ...headers } });

export const seeOther = (location: string, headers: Record<string, string> = {}): Reply => ({ status: 303, raw: Buffer.alloc(0), headers: { location, ...headers } });

/** The console's one stylesheet, served as /console/assets/console.css (the CSP allows no inline style). */
export const CONSOLE_CSS = `*{box-sizing:border-box}body{font-family:system-ui,sans-serif;margin:0;color:#1a1a1a;background:#f6f7f9}
header{background:#12355b;color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.8rem;align-items:center}
header a,header button{color:#fff;text-decoration:none;background:none;border:0;font:inherit;cursor:pointer;padding:0}
header .marca{font-weight:700;margin-right:auto}main{max-width:60rem;margin:0 auto;padding:1rem}
.cartao{background:#fff;border:1px solid #dde1e6;border-radius:.5rem;padding:1rem;margin:1rem 0}
label{display:block;margin-top:.8rem;font-weight:600}input{font-size:1rem;width:100%;max-width:24rem;padding:.5rem;margin-top:.3rem;border:1px solid #aab;border-radius:.3rem}
button.primario{margin-top:1rem;background:#12355b;color:#fff;border:0;border-radius:.3rem;padding:.6rem 1.2rem;font-size:1rem;cursor:pointer}
button.perigo{background:#b00020;color:#fff;border:0;border-radius:.3rem;padding:.3rem .7rem;cursor:pointer}
.erro{background:#fde8ea;border:1px solid #f3b4bb;padding:.6rem;border-radius:.3rem}.aviso{background:#e8f1fd;border:1px solid #b4cdf3;padding:.6rem;border-radius:.3rem}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.4rem;border-bottom:1px solid #e3e6ea;vertical-align:top}
code{background:#eef0f3;padding:.1rem .3rem;border-radius:.2rem;word-break:break-all}pre{background:#eef0f3;padding:.6rem;overflow:auto}
.filtros{display:flex;flex-wrap:wrap;gap:.6rem;align-items:end}.filtros label{margin-top:0}select{font-size:1rem;padding:.45rem;margin-top:.3rem}
.ok{color:#0a6b2c;font-weight:600}.nao{color:#b00020;font-weight:600}.neutro{color:#555}
.estado{font-size:1.2rem}input[type=radio]{width:auto;margin-right:.4rem}.indicadores{display:grid;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr));gap:.6rem}.indicador{margin:0}canvas{max-width:100%}textarea{width:100%;font-family:monospace;font-size:.9rem;margin-top:.3rem}.fatos{font-size:.9rem;color:#333}.sandbox{margin:0;background:#b42318;color:#fff;padding:.6rem 1rem;text-align:center}@media(max-width:40rem){td,th{display:block;border:0;padding:.2rem}tr{display:block;border-bottom:1px solid #e3e6ea;padding:.4rem 0}thead{display:none}}`;

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false}'><title>${escape(title)} · Console de crédito</title><link rel="stylesheet" href="/console/assets/console.css"></head>
<body>${body}</body></html>`;
}

/** The menu: each page shown to those its gates let in, as the API gates its routes. */
const MENU = [
  { href: '/console/relatorios', label: 'Relatórios', gates: [Gates.reportsRead] },
  { href: '/console/politicas', label: 'Políticas', gates: [Gates.creditPolicyRead] },
  { href: '/console/propostas', label: 'Propostas', gates: [Gates.proposalsOperate] },
  { href: '/console/painel', label: 'Painel', gates: [Gates.proposalsOperate] },
  { href: '/console/coletas', label: 'Coletas', gates: [Gates.collections] },
  { href: '/console/webhooks', label: 'Webhooks', gates: [Gates.namedWebhooks, Gates.legacyWebhooks] },
  { href: '/console/listas-de-triagem', label: 'Listas de triagem', gates: [Gates.reportsRead] },
];

/** Why a page shows the sandbox banner: the whole deployment is a sandbox, or what the page shows holds a sandbox result. */
export type SandboxShown = 'deployment' | 'item' | null;

/** The banner above a page whose content is sandbox: what it shows is no real result. */
export function sandboxBanner(shown: SandboxShown): string {
  if (!shown) return '';
  const why =
    shown === 'deployment'
      ? 'Este serviço roda com DEPLOYMENT=sandbox: fontes, verificações e pareceres de teste, nada aqui é um resultado real.'
      : 'O que esta página mostra contém resultados de sandbox, que não são resultados reais.';
  return `<p class="sandbox" role="alert"><strong>${escape(SANDBOX_MARK)}</strong> · ${escape(why)}</p>`;
}

/** A page for a signed-in user: the menu, the sandbox banner when the content is sandbox, then the content. */
export function consolePage(title: string, principal: Principal, csrf: string, content: string, scripts: readonly string[] = [], sandbox: SandboxShown = null): string {
  const links = MENU.filter((item) => item.gates.some((gate) => allows(gate, principal)))
    .map((item) => `<a href="${item.href}">${item.label}</a>`)
    .join('');
  const menu = `<header><a class="marca" href="/console">Console de crédito</a>${links}<a href="/console/api">API</a><a href="/console/senha">Senha</a>
<span>${escape(principal.userName)}</span>
<form method="post" action="/console/sair">${csrfField(csrf)}<button type="submit">Sair</button></form></header>`;
  const tags = scripts.map((name) => `<script src="/console/assets/${name}"></script>`).join('');
  return document(title, `${menu}${sandboxBanner(sandbox)}<main><h1>${escape(title)}</h1>${content}</main>${tags}`);
}

/** A page before signing in (the sign-in itself, a refusal). */
export function publicPage(title: string, content: string): string {
  return document(title, `<header><span class="marca">Console de crédito</span></header><main><h1>${escape(title)}</h1>${content}</main>`);
}

export const csrfField = (token: string) => `<input type="hidden" name="csrf" value="${escape(token)}">`;
export const errorBox = (message: string | null | undefined) => (message ? `<p class="erro" role="alert">${escape(message)}</p>` : '');

import type { BacktestResult } from '../../domain/credit-policy/backtest.ts';
import { DECISIONS } from '../../domain/credit-policy/backtest.ts';
import type { PolicyChange } from '../../domain/credit-policy/diff.ts';
import { statusObject } from '../../domain/report/statuses.ts';
import type { PolicyView } from '../../projections/credit-policy/queries.ts';
import { csrfField, errorBox } from './html.ts';
import { escape } from '../../domain/shared/html.ts';

const DATE = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' });
const when = (iso: string) => DATE.format(new Date(iso));
const json = (value: unknown) => (value === null || value === undefined ? '—' : `<pre>${escape(JSON.stringify(value, null, 2))}</pre>`);
const title = (decision: string) => escape(statusObject(decision).title);

export function policyListPage(policies: readonly PolicyView[]): string {
  const rows = policies
    .map(
      (p) =>
        `<tr><td><a href="/console/politicas/${escape(p.id)}">${escape(p.content.name)}</a></td><td>${p.content.documentType.toUpperCase()}</td><td>v${p.version}</td><td>${p.status === 'ACTIVE' ? 'ativa' : 'arquivada'}</td><td>${when(p.versionCreatedAt)}</td></tr>`,
    )
    .join('');
  return `<section class="cartao">${rows ? `<table><thead><tr><th>Política</th><th>Tipo</th><th>Versão</th><th>Situação</th><th>Desde</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>Nenhuma política.</p>'}</section>`;
}

const KIND = { added: 'incluída', removed: 'removida', changed: 'alterada' } as const;

/** Two versions side by side: every difference with its before and after. */
export function diffTable(a: number, b: number, changes: readonly PolicyChange[]): string {
  if (!changes.length) return `<p>As versões ${a} e ${b} são iguais.</p>`;
  const rows = changes.map((c) => `<tr><td>${escape(c.what)} ${KIND[c.kind]}</td><td>${escape(c.where)}</td><td>${json(c.before)}</td><td>${json(c.after)}</td></tr>`).join('');
  return `<table><thead><tr><th>O quê</th><th>Onde</th><th>Versão ${a}</th><th>Versão ${b}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function policyPage(policy: PolicyView, versions: readonly PolicyView[], compare: { a: number; b: number; changes: readonly PolicyChange[] } | null, canManage: boolean): string {
  const options = (selected: number) =>
    versions.map((v) => `<option value="${v.version}"${v.version === selected ? ' selected' : ''}>versão ${v.version} (${when(v.versionCreatedAt)})</option>`).join('');
  const rules = policy.content.groups
    .map(
      (g) =>
        `<h3>${escape(g.name)}</h3><ul>${g.rules.map((r) => `<li><strong>${escape(r.name)}</strong> · se falhar: ${r.onFail === 'DENY' ? 'nega' : 'análise manual'}${json(r.condition)}</li>`).join('')}</ul>`,
    )
    .join('');
  const { score } = policy.content;
  return `<section class="cartao"><p>${policy.content.documentType.toUpperCase()} · versão ${policy.version} · ${policy.status === 'ACTIVE' ? 'ativa' : 'arquivada'}${canManage ? ` · <a href="/console/politicas/${escape(policy.id)}/editar">Editar e testar</a>` : ''}</p>
<p>Seções consultadas: ${policy.content.sections.map(escape).join(', ')}</p>
<p>Score: base ${score.base}, de ${score.min} a ${score.max}; aprova a partir de ${score.approveFrom}, nega abaixo de ${score.denyBelow}</p>${rules}</section>
<section class="cartao"><h2>Comparar versões</h2><form class="filtros" method="get" action="/console/politicas/${escape(policy.id)}">
<label>De<select name="de">${options(compare?.a ?? Math.max(1, policy.version - 1))}</select></label><label>Para<select name="para">${options(compare?.b ?? policy.version)}</select></label>
<button class="primario" type="submit">Comparar</button></form>${compare ? diffTable(compare.a, compare.b, compare.changes) : ''}</section>`;
}

export interface EditPageData {
  policyId: string;
  draft: string;
  limit: number;
  csrf: string;
  message?: string;
  result?: BacktestResult;
}

function backtestResult(result: BacktestResult, limit: number): string {
  if (!result.total) return `<section class="cartao" id="backtest"><h2>Backtest</h2><p>Nenhum relatório finalizado deste tipo de documento para testar.</p></section>`;
  const head = DECISIONS.map((d) => `<th>${title(d)}</th>`).join('');
  const matrix = DECISIONS.map(
    (before) =>
      `<tr><th>${title(before)}</th>${DECISIONS.map((after) => `<td${before !== after && result.matrix[before][after] ? ' class="nao"' : ''}>${result.matrix[before][after]}</td>`).join('')}</tr>`,
  ).join('');
  const changed = result.outcomes
    .filter((o) => o.before !== o.after)
    .map(
      (o) =>
        `<tr><td><a href="/console/relatorios/${escape(o.reportId)}">${escape(o.document)}</a></td><td>${when(o.createdAt)}</td><td>${title(o.before)}</td><td>${title(o.after)}</td><td>${o.score}</td><td>${o.unjudged.map(escape).join(', ') || '—'}</td></tr>`,
    )
    .join('');
  return `<section class="cartao" id="backtest"><h2>Backtest</h2><p>${result.changed} de ${result.total} decisões mudariam (os ${limit} relatórios finalizados mais recentes do tipo; nada foi gravado).</p>
<table><thead><tr><th>Antes \\ Depois</th>${head}</tr></thead><tbody>${matrix}</tbody></table>
${changed ? `<h3>Relatórios que mudariam</h3><table><thead><tr><th>Documento</th><th>Criado em</th><th>Antes</th><th>Depois</th><th>Score</th><th>Regras não julgadas</th></tr></thead><tbody>${changed}</tbody></table>` : ''}</section>`;
}

/** The draft as JSON (the API's body), tested over past reports or saved as a new version. */
export function editPage({ policyId, draft, limit, csrf, message, result }: EditPageData): string {
  const base = `/console/politicas/${escape(policyId)}`;
  return `${errorBox(message)}<form class="cartao" method="post" action="${base}/editar">${csrfField(csrf)}
<label for="politica">A política, no formato do corpo de <code>PUT /credit-policy/policy/{id}</code></label>
<textarea id="politica" name="politica" rows="24" spellcheck="false">${escape(draft)}</textarea>
<label for="limite">Relatórios no backtest (até 500)</label><input id="limite" name="limite" type="number" min="1" max="500" value="${limit}">
<p><button class="primario" type="submit" formaction="${base}/backtest">Testar sobre relatórios anteriores</button>
<button class="primario" type="submit">Salvar como nova versão</button></p></form>${result ? backtestResult(result, limit) : ''}`;
}

import type { ReportSummaryRow } from '../../projections/report/queries.ts';
import { statusObject } from '../../domain/report/statuses.ts';
import type { PolicyEvaluation } from '../../domain/credit-policy/evaluate.ts';
import type { readReport } from '../report/read-routes.ts';
import { csrfField, errorBox } from './html.ts';
import { escape } from '../../domain/shared/html.ts';

const DATE = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' });
const when = (value: string | Date | null | undefined) => (value ? DATE.format(new Date(value)) : '—');

/** The statuses a list filters on, as the API names them, with their Portuguese titles. */
const FILTER_STATUSES = ['PENDING', 'PROCESSING', 'APPROVED', 'DENIED', 'MANUAL_ANALYSIS', 'FAILED'];

export interface ListPageData {
  rows: ReportSummaryRow[];
  total: number;
  filter: { document: string; status: string };
  policies: Array<{ id: string; name: string; documentType: string }>;
  csrf: string;
  canCreate: boolean;
  message?: string;
  typed?: { document: string; type: string; policyId: string };
}

function createForm({ policies, csrf, message, typed }: ListPageData): string {
  const options = policies.map((p) => `<option value="${escape(p.id)}"${typed?.policyId === p.id ? ' selected' : ''}>${escape(p.name)} (${p.documentType.toUpperCase()})</option>`).join('');
  return `<form class="cartao" method="post" action="/console/relatorios"><h2>Novo relatório</h2>${errorBox(message)}${csrfField(csrf)}
<div class="filtros"><label>CPF ou CNPJ<input name="documento" required value="${escape(typed?.document ?? '')}"></label>
<label>Tipo<select name="tipo"><option value="cnpj"${typed?.type === 'cpf' ? '' : ' selected'}>CNPJ</option><option value="cpf"${typed?.type === 'cpf' ? ' selected' : ''}>CPF</option></select></label>
<label>Política<select name="politica" required>${options}</select></label></div>
<button class="primario" type="submit">Gerar relatório</button></form>`;
}

export function reportListPage(data: ListPageData): string {
  const statusOptions = ['', ...FILTER_STATUSES].map((s) => `<option value="${s}"${data.filter.status === s ? ' selected' : ''}>${s ? escape(statusObject(s).title) : 'Todos'}</option>`).join('');
  const rows = data.rows
    .map(
      (r) =>
        `<tr><td><a href="/console/relatorios/${escape(r.id)}">${escape(r.document)}</a></td><td>${escape(r.policy_name)} v${r.policy_version}</td><td>${escape(statusObject(r.status).title)}</td><td>${r.score ?? '—'}</td><td>${when(r.created_at)}</td></tr>`,
    )
    .join('');
  return `${data.canCreate ? createForm(data) : ''}<form class="cartao filtros" method="get" action="/console/relatorios">
<label>Documento<input name="documento" value="${escape(data.filter.document)}"></label><label>Status<select name="status">${statusOptions}</select></label>
<button class="primario" type="submit">Filtrar</button></form>
<section class="cartao"><p>${data.total} relatório(s); os 50 mais recentes.</p>
${rows ? `<table><thead><tr><th>Documento</th><th>Política</th><th>Status</th><th>Score</th><th>Criado em</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>Nenhum relatório.</p>'}</section>`;
}

type Presented = Awaited<ReturnType<typeof readReport>>;

const verdict = (passed: boolean | null) => (passed === null ? '<span class="neutro">não julgada</span>' : passed ? '<span class="ok">passou</span>' : '<span class="nao">não passou</span>');

const facts = (values: Record<string, unknown> | undefined) =>
  Object.entries(values ?? {})
    .map(([name, value]) => `<code>${escape(name)}</code> = ${escape(JSON.stringify(value) ?? 'null')}`)
    .join('<br>');

/** The CREDIT_POLICY section: the decision's reasons, then every rule with the facts it read. */
function explanation(policy: PolicyEvaluation | undefined): string {
  if (!policy) return '';
  const reasons = policy.reasons.map((line) => `<li>${escape(line)}</li>`).join('');
  const groups = policy.groups
    .map((group) => {
      const rules = group.rules
        .map((rule) => `<tr><td>${escape(rule.name)}</td><td>${verdict(rule.passed)}</td><td>${escape(rule.reason ?? '')}</td><td class="fatos">${facts(rule.facts)}</td></tr>`)
        .join('');
      return `<h3>${escape(group.name)}</h3><table><thead><tr><th>Regra</th><th>Resultado</th><th>Motivo</th><th>Fatos lidos</th></tr></thead><tbody>${rules}</tbody></table>`;
    })
    .join('');
  const factors = policy.scoreFactors
    .map(
      (f) => `<tr><td>${escape(f.label)}</td><td>${f.applied === null ? 'não julgado' : f.applied ? 'aplicado' : 'não aplicado'}</td><td>${f.points}</td><td class="fatos">${facts(f.facts)}</td></tr>`,
    )
    .join('');
  return `<section class="cartao"><h2>Por que esta decisão</h2><p>Decisão da política: <strong>${escape(statusObject(policy.decision).title)}</strong> · score ${policy.score} (aprova a partir de ${policy.scoreModel.approveFrom}, nega abaixo de ${policy.scoreModel.denyBelow})</p>
<ul>${reasons}</ul>${groups}${factors ? `<h3>Fatores de score</h3><table><thead><tr><th>Fator</th><th>Situação</th><th>Pontos</th><th>Fatos lidos</th></tr></thead><tbody>${factors}</tbody></table>` : ''}</section>`;
}

const list = (title: string, items: readonly string[]) => (items.length ? `<h3>${title}</h3><ul>${items.map((item) => `<li>${escape(item)}</li>`).join('')}</ul>` : '');

/** The AI committee's latest deliberation: the chair's synthesis, the alçada and dissent computed by code, each specialist. */
function deliberation(result: Presented['committeeResult']): string {
  if (!result) return '';
  const { synthesis: s } = result;
  const opinions = result.agentOpinions
    .map((o) => `<tr><td>${escape(o.agentLabel)}</td><td>${escape(o.recommendation)}</td><td>${o.score}</td><td>${escape(o.resumo)}</td><td>${o.sectionsSeen.map(escape).join(', ')}</td></tr>`)
    .join('');
  const synthesis = s
    ? `<p><strong>${escape(s.decision)}</strong> · confiança ${Math.round((result.confidence ?? 0) * 100)}% · alçada ${escape(s.alcadaLevel ?? 'nenhuma cobre o caso')}</p><p>${escape(s.resumo)}</p><p>Próxima ação: ${escape(s.proximaAcao)}</p>
${list('Condições', s.conditions)}${list('Monitoramento', s.monitoringItems)}${list('Informações que faltam', s.infoGapsBeforeDecision)}${list(
        'Divergências',
        s.dissentLog.map((d) => `${d.agent}: ${d.divergedHow}`),
      )}`
    : '<p>Em deliberação: os especialistas que já opinaram estão abaixo.</p>';
  return `<section class="cartao"><h2>Comitê de crédito</h2>${synthesis}${opinions ? `<table><thead><tr><th>Especialista</th><th>Recomendação</th><th>Nota</th><th>Resumo</th><th>Seções vistas</th></tr></thead><tbody>${opinions}</tbody></table>` : ''}</section>`;
}

/** What the report page shows and replaces live: status, progress, the explanation, the sections. */
export function reportFragment(report: Presented): string {
  const sections = report.sections
    .map(
      (s) =>
        `<tr><td>${escape(s.type?.value ?? '')}</td><td>${escape(s.status ?? '')}</td><td>${s.parecerStatus ? `${escape(s.parecerStatus)} ${s.parecerScore ?? ''} ${escape(s.parecerRiskLevel ?? '')}` : '—'}</td></tr>`,
    )
    .join('');
  const steps = (report.reportProgress.steps ?? []) as Array<{ status?: string }>;
  const done = steps.filter((s) => s.status && s.status !== 'PENDING').length;
  const policy = report.sections.find((s) => s.type.value === 'CREDIT_POLICY')?.sectionDetails as PolicyEvaluation | undefined;
  const exports = [report.exportUrl && `<a href="${escape(report.exportUrl)}">PDF</a>`, report.exportExcelUrl && `<a href="${escape(report.exportExcelUrl)}">Planilha</a>`].filter(Boolean).join(' · ');
  const committee = report.committeeStatus ? `<p>Comitê: ${escape(report.committeeStatus)}${report.committeeDecision ? ` · recomendação ${escape(report.committeeDecision)}` : ''}</p>` : '';
  return `<section class="cartao"><p class="estado">Status: <strong id="status" data-status="${escape(report.status.value)}">${escape(report.status.title)}</strong></p>
<p>${escape(report.type.toUpperCase())} ${escape(report.document)} · política ${escape(report.policyName)} v${report.policyVersion} · score ${report.score ?? '—'}</p>
<p>Fontes: ${done} de ${steps.length}${report.reportProgress?.isFinalized ? ` · finalizado em ${when(report.reportProgress.finalizedAt)}` : ' · em andamento'}</p>${committee}
${exports ? `<p>Exportar: ${exports}</p>` : ''}</section>${explanation(policy)}${deliberation(report.committeeResult)}
<section class="cartao"><h2>Seções</h2><table><thead><tr><th>Seção</th><th>Status</th><th>Parecer</th></tr></thead><tbody>${sections}</tbody></table></section>`;
}

/** The analyst's form: outside the live fragment, so an update never wipes what is being typed. */
function analysisForm(reportId: string, again: boolean, csrf: string, message?: string): string {
  return `<form class="cartao" method="post" action="/console/relatorios/${escape(reportId)}/analise"><h2>${again ? 'Refazer a análise manual' : 'Análise manual'}</h2>${errorBox(message)}${csrfField(csrf)}
<label><input type="radio" name="decisao" value="aprovar" required> Aprovar</label><label><input type="radio" name="decisao" value="negar"> Negar</label>
<label for="comentario">Parecer do analista (substitui o anterior)</label><textarea id="comentario" name="comentario" rows="4" maxlength="10000" required></textarea>
<button class="primario" type="submit">Registrar decisão</button></form>`;
}

export interface ReportPageOptions {
  /** The analysis form, when the report is finalized and the user may decide (again). */
  analysis: { again: boolean; csrf: string; message?: string } | null;
}

/** The page around the fragment: htmx's SSE extension swaps the fragment in as the report moves. */
export function reportPage(reportId: string, fragment: string, options: ReportPageOptions): string {
  const live = `/console/relatorios/${escape(reportId)}/ao-vivo`;
  const form = options.analysis ? analysisForm(reportId, options.analysis.again, options.analysis.csrf, options.analysis.message) : '';
  return `<div id="relatorio" hx-ext="sse" sse-connect="${live}" sse-swap="relatorio">${fragment}</div>${form}
<p><a href="/console/relatorios">Voltar à lista</a></p>`;
}

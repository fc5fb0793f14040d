import type { ExportFormat } from '../../../domain/report/events.ts';

/** What an export shows: the report as GET /v2/report returns it, reduced to what a reader needs. */
export interface ExportableReport {
  id: string;
  document: string;
  documentType: 'cpf' | 'cnpj';
  externalId: string | null;
  status: { value: string; title: string };
  policyStatus: string;
  score: number | null;
  policyName: string;
  policyVersion: number;
  createdAt: string;
  finalizedAt: string | null;
  analystName: string | null;
  commentary: string | null;
  ranWithoutSCRReason: string | null;
  policyErrorStatusApplied: string | null;
  sections: Array<{
    type: string;
    title: string;
    status: string;
    details: Record<string, unknown> | null;
    errors: Array<{ code: string; message: string }>;
  }>;
}

export interface RenderedFile {
  bytes: Buffer;
  contentType: string;
  extension: string;
}

export type Renderer = (report: ExportableReport) => Promise<RenderedFile>;
export type Renderers = Record<ExportFormat, Renderer>;

/** Section data as `field.sub.field = value` lines; long lists are cut, since exports are for reading. */
export function flatten(value: unknown, prefix = '', out: Array<[string, string]> = [], maxItems = 20): Array<[string, string]> {
  if (Array.isArray(value)) {
    if (value.length === 0) out.push([prefix, '(nenhum)']);
    value.slice(0, maxItems).forEach((item, i) => flatten(item, `${prefix}[${i + 1}]`, out, maxItems));
    if (value.length > maxItems) out.push([prefix, `... e mais ${value.length - maxItems}`]);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) flatten(item, prefix ? `${prefix}.${key}` : key, out, maxItems);
  } else {
    out.push([prefix, value === null || value === undefined ? '-' : String(value)]);
  }
  return out;
}

/** CREDIT_POLICY details as rule lines for both formats. */
export function ruleLines(report: ExportableReport): Array<{ group: string; rule: string; result: string; onFail: string; facts: string }> {
  const details = report.sections.find((s) => s.type === 'CREDIT_POLICY')?.details as
    | { groups?: Array<{ name: string; rules: Array<{ name: string; passed: boolean | null; onFail: string; facts: Record<string, unknown>; reason: string | null }> }> }
    | null
    | undefined;
  return (details?.groups ?? []).flatMap((group) =>
    group.rules.map((rule) => ({
      group: group.name,
      rule: rule.name,
      result: rule.passed === true ? 'Atendida' : rule.passed === false ? 'Não atendida' : `Não avaliada (${rule.reason ?? ''})`,
      onFail: rule.onFail === 'DENY' ? 'Nega' : 'Análise manual',
      facts: Object.entries(rule.facts).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join('; '),
    })),
  );
}

export function summaryLines(report: ExportableReport): Array<[string, string]> {
  const lines: Array<[string, string | null | number]> = [
    ['Relatório', report.id],
    ['Documento', `${report.documentType.toUpperCase()} ${report.document}`],
    ['Identificador externo', report.externalId],
    ['Status', `${report.status.title} (${report.status.value})`],
    ['Resultado da política', report.policyStatus],
    ['Pontuação', report.score],
    ['Política', `${report.policyName} (versão ${report.policyVersion})`],
    ['Solicitado em', report.createdAt],
    ['Finalizado em', report.finalizedAt],
    ['Status aplicado por falha de fonte', report.policyErrorStatusApplied],
    ['Sem SCR', report.ranWithoutSCRReason],
    ['Analista', report.analystName],
    ['Parecer do analista', report.commentary],
  ];
  return lines.map(([k, v]) => [k, v === null || v === undefined ? '-' : String(v)]);
}

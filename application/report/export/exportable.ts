import { SANDBOX_MARK } from '../../../domain/shared/provenance.ts';
import type { ExportFormat } from '../../../domain/report/events.ts';
import { formatDocument } from '../../../domain/shared/document.ts';
import { DECISION_TITLES, fieldLabel, SECTION_ERROR_TITLES, SECTION_STATUS_TITLES, inReadingOrder, itemLabel, topFieldLabel, valueLabel, variableLabel } from './labels.ts';
import { formatValue, instant, integer, text, valueOf, type Value } from './pt-br.ts';

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
  /** It holds a sandbox result: every page and sheet carries SANDBOX_MARK. */
  sandbox: boolean;
  sections: Array<{
    type: string;
    title: string;
    status: string;
    details: Record<string, unknown> | null;
    errors: Array<{ code: string; message: string }>;
  }>;
}

/** Every page of a PDF and every sheet of a workbook of a report holding a sandbox result says it. */
export { SANDBOX_MARK };

export interface RenderedFile {
  bytes: Buffer;
  contentType: string;
  extension: string;
}

export interface RenderContext {
  /** Printed on the file; from the application clock, so a test can know it. */
  generatedAt: Date;
}

export type Renderer = (report: ExportableReport, context: RenderContext) => Promise<RenderedFile>;
export type Renderers = Record<ExportFormat, Renderer>;

/** One line of an export: a label and a typed value. */
export interface Field {
  label: string;
  value: Value;
}

/** A line of section data: where it sits (labels from the section down) and its value; a heading has none. */
export interface SectionLine {
  path: string[];
  value: Value | null;
}

/** Lists are cut: an export is for reading, and the full data stays in the API. */
const MAX_ITEMS = 20;

interface CreditPolicyDetails {
  reasons?: string[];
  scoreModel?: { min: number; max: number; approveFrom: number; denyBelow: number };
  groups?: Array<{ name: string; rules: Array<{ name: string; passed: boolean | null; onFail: string; facts: Record<string, unknown>; reason: string | null }> }>;
  scoreFactors?: Array<{ label: string; applied: boolean | null; points: number; reason: string | null }>;
}

const detailsOf = (report: ExportableReport, type: string) => report.sections.find((s) => s.type === type)?.details ?? null;
const policyDetails = (report: ExportableReport) => (detailsOf(report, 'CREDIT_POLICY') ?? {}) as CreditPolicyDetails;

export function subjectOf(report: ExportableReport): { name: string | null; documentLabel: string; document: string } {
  const name = detailsOf(report, 'SUMMARY')?.name ?? detailsOf(report, 'BASIC_INFORMATION')?.name;
  return {
    name: typeof name === 'string' ? name : null,
    documentLabel: report.documentType.toUpperCase(),
    document: formatDocument({ type: report.documentType, digits: report.document }),
  };
}

const decisionTitle = (status: string) => DECISION_TITLES[status] ?? status;

/** Why the report was decided as it was, in the policy's own Portuguese lines. */
export function reasonsOf(report: ExportableReport): string[] {
  return policyDetails(report).reasons ?? [];
}

export function scoreModelOf(report: ExportableReport) {
  return policyDetails(report).scoreModel ?? null;
}

/** What backs the decision: the policy's result, the score, a failed source's weight, the analyst. */
export function decisionFields(report: ExportableReport): Field[] {
  return [
    { label: 'Resultado da política', value: text(decisionTitle(report.policyStatus)) },
    { label: 'Pontuação', value: integer(report.score) },
    { label: 'Status aplicado por falha de fonte', value: text(report.policyErrorStatusApplied && decisionTitle(report.policyErrorStatusApplied)) },
    { label: 'Analista', value: text(report.analystName) },
    { label: 'Parecer do analista', value: text(report.commentary) },
  ];
}

/** Who and what was analysed, under which policy, when. */
export function subjectFields(report: ExportableReport): Field[] {
  const subject = subjectOf(report);
  return [
    { label: 'Nome', value: text(subject.name) },
    { label: subject.documentLabel, value: text(subject.document) },
    { label: 'Identificador externo', value: text(report.externalId) },
    { label: 'Política', value: text(`${report.policyName} (versão ${report.policyVersion})`) },
    { label: 'Solicitado em', value: instant(report.createdAt) },
    { label: 'Finalizado em', value: instant(report.finalizedAt) },
    { label: 'Consulta sem SCR', value: text(report.ranWithoutSCRReason) },
    { label: 'Relatório', value: text(report.id) },
  ];
}

function factText(path: string, value: unknown): string {
  const key = path.split('.').at(-1) ?? path;
  const shown = Array.isArray(value) ? `${value.length} ${value.length === 1 ? 'item' : 'itens'}` : formatValue(valueOf(key, value, valueLabel));
  return `${variableLabel(path)} = ${shown}`;
}

export interface RuleRow {
  group: string;
  rule: string;
  passed: boolean | null;
  result: string;
  onFail: string;
  facts: string;
}

export function ruleRows(report: ExportableReport): RuleRow[] {
  return (policyDetails(report).groups ?? []).flatMap((group) =>
    group.rules.map((rule) => ({
      group: group.name,
      rule: rule.name,
      passed: rule.passed,
      result: rule.passed === true ? 'Atendida' : rule.passed === false ? 'Não atendida' : `Não avaliada${rule.reason ? ` (${rule.reason})` : ''}`,
      onFail: rule.onFail === 'DENY' ? 'Nega' : 'Análise manual',
      facts: Object.entries(rule.facts)
        .map(([path, value]) => factText(path, value))
        .join('; '),
    })),
  );
}

export function scoreFactorRows(report: ExportableReport): Array<{ label: string; points: number; applied: string }> {
  return (policyDetails(report).scoreFactors ?? []).map((factor) => ({
    label: factor.label,
    points: factor.points,
    applied: factor.applied === true ? 'Aplicado' : factor.applied === false ? 'Não aplicado' : `Não avaliado${factor.reason ? ` (${factor.reason})` : ''}`,
  }));
}

/** The sections a reader goes through: the summary and the policy are told before them. */
export function dataSections(report: ExportableReport) {
  return report.sections
    .filter((s) => s.type !== 'SUMMARY' && s.type !== 'CREDIT_POLICY')
    .map((s) => ({
      ...s,
      statusTitle: SECTION_STATUS_TITLES[s.status] ?? s.status,
      errors: s.errors.map((e) => ({ ...e, title: SECTION_ERROR_TITLES[e.code] ?? e.code })),
    }));
}

const zipCode = (raw: unknown) => (typeof raw === 'string' && /^\d{8}$/.test(raw) ? `${raw.slice(0, 5)}-${raw.slice(5)}` : raw);

/** Section data as labelled lines: objects become headings over their fields, lists numbered items. */
export function sectionLines(section: { type: string; details: Record<string, unknown> | null }, documentType: 'cpf' | 'cnpj'): SectionLine[] {
  const lines: SectionLine[] = [];
  const walk = (key: string, raw: unknown, path: string[]) => {
    if (Array.isArray(raw)) {
      if (raw.length === 0) return lines.push({ path, value: text('Nenhum') });
      if (raw.every((item) => item === null || typeof item !== 'object')) {
        return lines.push({ path, value: text(raw.map((item) => formatValue(valueOf(key, item, valueLabel))).join(', ')) });
      }
      lines.push({ path, value: null });
      raw.slice(0, MAX_ITEMS).forEach((item, i) => walk(key, item, [...path, itemLabel(key, i + 1)]));
      if (raw.length > MAX_ITEMS) lines.push({ path: [...path, 'Outros'], value: text(`e mais ${raw.length - MAX_ITEMS}`) });
      return;
    }
    if (raw !== null && typeof raw === 'object') {
      if (path.length) lines.push({ path, value: null });
      for (const [child, value] of inReadingOrder(Object.entries(raw))) {
        walk(child, value, [...path, path.length ? fieldLabel(child) : topFieldLabel(child, section.type, documentType)]);
      }
      return;
    }
    lines.push({ path, value: valueOf(key, key === 'zipCode' ? zipCode(raw) : raw, valueLabel) });
  };
  if (section.details) walk('', section.details, []);
  return lines;
}

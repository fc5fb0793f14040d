import { CORE_LINES, type FinancialPeriod } from './analysis.ts';
import { STANDARD_LINES } from './lines.ts';

/** The integration type the report lists once its BALANCE_SHEET came from uploaded statements. */
export const FINANCIAL_STATEMENTS_INTEGRATION = 'FINANCIAL_STATEMENTS';

/** One uploaded file as the analysis saw it. */
export interface AnalysedFile {
  key: string;
  fileName: string;
  sha256: string;
  /** Its registry document (DEMONSTRACOES_FINANCEIRAS), or null when it could not be registered. */
  registryDocumentId: string | null;
  /** pdf-parse could open it. */
  readable: boolean;
  /** How its text was read: the PDF's text layer, Tesseract's OCR (a scan), or not at all (null). */
  textSource: 'TEXT' | 'OCR' | null;
  /** Tesseract's mean word confidence (0 to 1) when read by OCR, else null. */
  ocrConfidence: number | null;
  /** A scan whose text could not be recognised (OCR not installed, or it failed): why; else null. */
  ocrProblem: string | null;
  /** Period ends it printed. */
  periods: string[];
  /** Lines with amounts that are no standard line, and standard lines that could not be placed. */
  unrecognizedLines: string[];
  ambiguousLines: string[];
}

/** What the language model was asked and did (absent: every core line was read by the rules). */
export interface ModelUse {
  asked: number;
  filled: number;
  model: string | null;
  promptVersion: string | null;
  costUsd: number;
  /** Why the model gave nothing (its error), null when it answered. */
  error: string | null;
}

export interface FinancialAnalysis {
  periods: FinancialPeriod[];
  files: AnalysedFile[];
  model: ModelUse | null;
}

/** A period as registry.financial.extracted sends it (docs/financial-statements.md). */
export interface PublishedPeriod {
  periodEnd: string;
  values: FinancialPeriod['values'];
  ratios: FinancialPeriod['ratios'];
  missing: FinancialPeriod['missing'];
}

export const publishedPeriods = (analysis: FinancialAnalysis): PublishedPeriod[] => analysis.periods.map(({ periodEnd, values, ratios, missing }) => ({ periodEnd, values, ratios, missing }));

/** The latest period's end as a date-time (midnight UTC), null without periods. */
export const latestPeriodAt = (analysis: FinancialAnalysis): string | null => (analysis.periods[0] ? `${analysis.periods[0].periodEnd}T00:00:00.000Z` : null);

/**
 * The BALANCE_SHEET section's details: the summary keys the sandbox source writes (so policy rules
 * reading BALANCE_SHEET.revenueCents keep working) taken from the latest period, then every period
 * with its lines, sources, ratios and gaps, the files, and the core lines nobody could read.
 */
export function balanceSheetDetails(batchId: string, analysis: FinancialAnalysis): Record<string, unknown> {
  const latest = analysis.periods[0];
  const v = latest?.values ?? {};
  const liabilities = v.currentLiabilities !== undefined && v.nonCurrentLiabilities !== undefined ? v.currentLiabilities + v.nonCurrentLiabilities : null;
  return {
    source: FINANCIAL_STATEMENTS_INTEGRATION,
    batchId,
    referenceYear: latest ? Number(latest.periodEnd.slice(0, 4)) : null,
    referenceDate: latest?.periodEnd ?? null,
    revenueCents: v.netRevenue ?? v.grossRevenue ?? null,
    netIncomeCents: v.netIncome ?? null,
    totalAssetsCents: v.totalAssets ?? null,
    totalLiabilitiesCents: liabilities,
    equityCents: v.equity ?? null,
    periods: analysis.periods.map(({ periodEnd, values, sources, ratios, missing, files }) => ({
      periodEnd,
      values,
      sources,
      ratios,
      missing,
      registryDocumentIds: files.map((i) => analysis.files[i]?.registryDocumentId).filter((id): id is string => !!id),
    })),
    files: analysis.files,
    unread: analysis.periods.flatMap((p) => p.missing.filter((k) => CORE_LINES.includes(k)).map((key) => ({ periodEnd: p.periodEnd, key, label: STANDARD_LINES[key].label }))),
    model: analysis.model,
  };
}

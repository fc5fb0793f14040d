import { isSourceSectionType } from '../../domain/report/sections.ts';
import { modelProvenance } from '../../domain/shared/provenance.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { findReport, type ReportWithSections } from '../../projections/report/queries.ts';
import { latestDeliberation, type DeliberationView } from '../../projections/committee/queries.ts';
import type { SectionRow } from '../../projections/report/view.ts';
import { REPORT_PROJECTION } from '../../projections/report/projection.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import { InsightsQuery, InsightsSchema } from './insights-schemas.ts';
import { sectionType } from './present.ts';
import { ReportParams } from './schemas.ts';

function presentInsight(row: SectionRow) {
  const record = row.parecer;
  const call = record?.call;
  return {
    sectionId: row.id,
    type: sectionType(row.type),
    parecerStatus: row.parecer_status,
    parecerScore: row.parecer_score,
    parecerRiskLevel: row.parecer_risk_level as 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL' | null,
    parecer: record?.opinion?.parecer ?? null,
    highlights: record?.opinion?.highlights ?? [],
    error: record?.error ?? null,
    model: call?.model ?? null,
    promptVersion: call?.promptVersion ?? null,
    inputTokens: call?.inputTokens ?? 0,
    outputTokens: call?.outputTokens ?? 0,
    costUsd: call?.costUsd ?? 0,
    durationMs: call?.durationMs ?? 0,
    recordedAt: record?.recordedAt ?? null,
    provenance: record ? modelProvenance(call?.model ?? null, row.provenance?.sandbox ?? null) : null,
  };
}

/** Opinions of the source sections (SUMMARY and CREDIT_POLICY are the service's own, with none). */
function presentInsights({ report, sections }: ReportWithSections, only: string | undefined, deliberation: DeliberationView | null) {
  const shown = sections.filter((s) => isSourceSectionType(s.type) && (only === undefined || s.type === only)).map(presentInsight);
  const sum = (pick: (s: (typeof shown)[number]) => number) => shown.reduce((total, s) => total + pick(s), 0);
  return {
    reportId: report.id,
    parecerEnabled: report.parecer_enabled,
    sections: shown,
    totals: { inputTokens: sum((s) => s.inputTokens), outputTokens: sum((s) => s.outputTokens), costUsd: Math.round(sum((s) => s.costUsd) * 1e6) / 1e6 },
    // The latest deliberation in full (spec: the committee.result field of this route).
    committee: deliberation ? { status: deliberation.status, decision: deliberation.finalRecommendation, result: deliberation } : null,
  };
}

export const reportInsightsRoutes: RouteTable = {
  module: 'report',
  routes: [
    route({
      method: 'get',
      path: '/report/:id/insights',
      summary: 'AI opinions per section and the committee summary',
      description:
        'Opinions exist when the organization has module committee and the report ran under a policy version with parecerEnabled (docs/committee.md). `section` narrows to one section type.',
      gate: Gates.reportsRead,
      params: ReportParams,
      query: InsightsQuery,
      responses: { 200: InsightsSchema },
      errors: [404],
      reads: [REPORT_PROJECTION],
      async handle({ app, principal, params, query }) {
        const found = await findReport(app.db, principal.organizationId, params.id);
        if (!found) throw new DomainError('not_found', Messages.reportNotFound);
        return presentInsights(found, query.section, await latestDeliberation(app.db, principal.organizationId, params.id));
      },
    }),
  ],
};

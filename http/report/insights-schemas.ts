import Type from 'typebox';
import { ALL_SECTION_TYPES } from '../../domain/report/sections.ts';
import { RISK_LEVELS } from '../../domain/credit-policy/policy.ts';
import { ProvenanceSchema } from '../provenance.ts';
import { DeliberationSchema } from '../committee/schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const InsightsQuery = Type.Object({
  section: Type.Optional(Type.Enum(ALL_SECTION_TYPES, { description: 'only this section type' })),
});

const SectionInsight = Type.Object({
  sectionId: Type.String(),
  type: Type.Object({ id: Type.Integer(), title: Type.String(), value: Type.Enum(ALL_SECTION_TYPES) }),
  parecerStatus: Nullable(Type.Union([Type.Literal('PENDING'), Type.Literal('DONE'), Type.Literal('ERROR')])),
  parecerScore: Nullable(Type.Number({ minimum: 0, maximum: 10 })),
  parecerRiskLevel: Nullable(Type.Enum(RISK_LEVELS)),
  parecer: Nullable(Type.String({ description: 'the opinion, in Portuguese' })),
  highlights: Type.Array(Type.String()),
  error: Nullable(Type.String({ description: 'why the opinion is ERROR (no valid reply after the retries)' })),
  model: Nullable(Type.String()),
  promptVersion: Nullable(Type.String()),
  inputTokens: Type.Integer(),
  outputTokens: Type.Integer(),
  costUsd: Type.Number(),
  durationMs: Type.Integer(),
  recordedAt: Nullable(Type.String({ format: 'date-time' })),
  provenance: Type.Union([ProvenanceSchema, Type.Null()], { description: "the opinion's model and whether it is a sandbox result; null: no opinion yet" }),
});

/**
 * The committee summary: null until a committee deliberated on the report (the committee module
 * fills it with the latest deliberation's status, decision and full result).
 */
export const CommitteeSummary = Nullable(
  Type.Object({ status: Type.Union([Type.Literal('RUNNING'), Type.Literal('DONE'), Type.Literal('ERROR')]), decision: Nullable(Type.String()), result: DeliberationSchema }),
);

export const InsightsSchema = Type.Object(
  {
    reportId: Type.String(),
    parecerEnabled: Type.Boolean(),
    sections: Type.Array(SectionInsight),
    totals: Type.Object({ inputTokens: Type.Integer(), outputTokens: Type.Integer(), costUsd: Type.Number() }),
    committee: CommitteeSummary,
  },
  { description: 'AI opinions per section and the committee summary (docs/committee.md)' },
);

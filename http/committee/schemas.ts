import Type from 'typebox';
import { ProvenanceSchema } from '../provenance.ts';
import { COMMITTEE_AGENTS } from '../../domain/committee/agents.ts';
import { ObjectIdSchema } from '../route.ts';
import { AgentOpinionOutput, ChairOutput } from '../../application/committee/schemas.ts';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Agent = Type.Union(COMMITTEE_AGENTS.map((a) => Type.Literal(a)));

export const AgentOpinionSchema = Type.Object({
  agent: Agent,
  agentLabel: Type.String(),
  ...AgentOpinionOutput.properties,
  model: Type.String(),
  costUsd: Type.Number(),
  sectionsSeen: Type.Array(Type.String()),
});

export const SynthesisSchema = Type.Object({
  ...ChairOutput.properties,
  dissentLog: Type.Array(Type.Object({ agent: Agent, divergedHow: Type.String() }), { description: 'computed by code: each specialist whose vote points elsewhere than the decision' }),
  alcadaLevel: Nullable(Type.String({ description: "computed by code from the policy's committee.alcadas (amount and risk); null when no level covers the case" })),
});

export const DeliberationSchema = Type.Object(
  {
    id: Type.String(),
    reportId: Type.String(),
    organizationId: Type.String(),
    policyId: Type.String(),
    policyVersion: Type.Integer(),
    trigger: Type.Union([Type.Literal('AUTO_SUGGEST'), Type.Literal('AUTO_DECIDE'), Type.Literal('MANUAL'), Type.Literal('RERUN')]),
    status: Type.Union([Type.Literal('RUNNING'), Type.Literal('DONE'), Type.Literal('ERROR')]),
    agentOpinions: Type.Array(AgentOpinionSchema, { description: 'in the committee order; while RUNNING, those recorded so far' }),
    synthesis: Nullable(SynthesisSchema),
    finalRecommendation: Nullable(Type.Union([Type.Literal('APPROVED'), Type.Literal('REJECTED'), Type.Literal('REQUIRES_ALCADA'), Type.Literal('NEEDS_INFO')])),
    confidence: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    promptVersion: Type.String(),
    customPrompts: Type.Boolean(),
    promptVersionsByAgent: Type.Record(Type.String(), Type.Object({ baseVersion: Type.String(), orgVersion: Nullable(Type.Integer()) })),
    totalInputTokens: Type.Integer(),
    totalOutputTokens: Type.Integer(),
    totalCostUsd: Type.Number(),
    webSearchRequests: Type.Integer(),
    durationMs: Nullable(Type.Integer({ description: 'null while RUNNING' })),
    modelVersions: Type.Record(Type.String(), Type.String(), { description: 'stage (specialists, chair) to model' }),
    error: Nullable(Type.String()),
    createdAt: DateTime,
    updatedAt: DateTime,
    provenance: ProvenanceSchema,
  },
  { description: 'Committee deliberation (spec, Resources)' },
);

export const ReportIdParams = Type.Object({ reportId: ObjectIdSchema() });

/** The report's committee fields (spec, Report): the latest deliberation in short. */
export const CommitteeResultSchema = Type.Object({
  deliberationId: Type.String(),
  synthesis: Nullable(SynthesisSchema),
  agentOpinions: Type.Array(AgentOpinionSchema),
  confidence: Nullable(Type.Number()),
  costUsd: Type.Number(),
  durationMs: Nullable(Type.Integer()),
  models: Type.Record(Type.String(), Type.String()),
  provenance: ProvenanceSchema,
});
export const CommitteeStatusSchema = Nullable(Type.Union([Type.Literal('RUNNING'), Type.Literal('DONE'), Type.Literal('ERROR')]));
export const CommitteeDecisionSchema = Nullable(Type.String({ description: 'finalRecommendation of the latest deliberation: APPROVED, REJECTED, REQUIRES_ALCADA or NEEDS_INFO' }));

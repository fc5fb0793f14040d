import Type, { type Static } from 'typebox';

/** What the model must answer; every reply is validated against these (the port retries an invalid one). */

const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const Confidence = Type.Number({ minimum: 0, maximum: 1 });

export const AgentOpinionOutput = Type.Object({
  score: Type.Number({ minimum: 0, maximum: 10 }),
  resumo: Text(600),
  parecer: Text(4000),
  redFlags: Type.Array(Type.Object({ severity: Type.Union([Type.Literal('WARNING'), Type.Literal('CRITICAL')]), label: Text(200), detail: Text(1000) }), { maxItems: 20 }),
  positiveFactors: Type.Array(Type.Object({ label: Text(200), detail: Text(1000) }), { maxItems: 20 }),
  confidence: Confidence,
  infoGaps: Type.Array(Text(300), { maxItems: 20 }),
  recommendation: Type.Union([Type.Literal('APPROVE'), Type.Literal('APPROVE_WITH_RESTRICTION'), Type.Literal('REJECT'), Type.Literal('NEEDS_INFO')]),
});
export type AgentOpinionOutput = Static<typeof AgentOpinionOutput>;

export const ChairOutput = Type.Object({
  decision: Type.Union([Type.Literal('APPROVED'), Type.Literal('REJECTED'), Type.Literal('NEEDS_INFO')]),
  resumo: Text(600),
  reasoning: Text(4000),
  proximaAcao: Text(600),
  conditions: Type.Array(Text(500), { maxItems: 20 }),
  monitoringItems: Type.Array(Text(500), { maxItems: 20 }),
  infoGapsBeforeDecision: Type.Array(Text(500), { maxItems: 20 }),
  limitReview: Type.Object({
    status: Type.Union([Type.Literal('ADEQUADO'), Type.Literal('REDUZIR'), Type.Literal('AUMENTAR'), Type.Literal('NAO_APLICAVEL')]),
    limite: Type.Number({ minimum: 0, description: 'reais' }),
    taxa: Type.Number({ minimum: 0, description: 'percent a month' }),
    prazo: Type.Integer({ minimum: 0, description: 'months' }),
    justificativa: Text(1000),
  }),
  confidence: Confidence,
});
export type ChairOutput = Static<typeof ChairOutput>;

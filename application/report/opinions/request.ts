import Type from 'typebox';
import type { StructuredRequest } from '../../llm/port.ts';
import type { Prompt } from '../../llm/prompts.ts';
import { RISK_LEVELS } from '../../../domain/credit-policy/policy.ts';
import { offlineOpinion, type OpinionInput } from '../../../domain/report/opinion-rules.ts';

/** The reply the parecer prompt asks for (prompts/parecer/v1.md). */
export const OpinionReply = Type.Object({
  parecer: Type.String({ minLength: 1, maxLength: 3000 }),
  score: Type.Number({ minimum: 0, maximum: 10 }),
  riskLevel: Type.Union([Type.Literal(RISK_LEVELS[0]), Type.Literal(RISK_LEVELS[1]), Type.Literal(RISK_LEVELS[2]), Type.Literal(RISK_LEVELS[3])]),
  highlights: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 5 }),
});

export const PARECER_AGENT = 'parecer';
export const PARECER_PROMPT = 'parecer';

export function opinionRequest(prompt: Prompt, input: OpinionInput): StructuredRequest<typeof OpinionReply> {
  return { agent: PARECER_AGENT, prompt: { version: prompt.version, text: prompt.text }, input, schema: OpinionReply, offline: offlineOpinion };
}

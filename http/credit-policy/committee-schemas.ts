import Type, { type Static } from 'typebox';
import { COMMITTEE_AGENTS } from '../../domain/committee/agents.ts';
import { MAX_INSTRUCTIONS_CHARS } from '../../domain/credit-policy/committee.ts';
import { CommitteePolicyMessages as M } from '../../domain/credit-policy/messages.ts';
import { RISK_LEVELS, type CommitteePolicy } from '../../domain/credit-policy/policy.ts';

/** The policy's AI fields (docs/committee.md): opinions per section and the committee. */
const Trigger = Type.Union([Type.Literal('OFF'), Type.Literal('AUTO_SUGGEST'), Type.Literal('AUTO_DECIDE')], { errorMessage: M.trigger });
const Risk = Type.Union(RISK_LEVELS.map((level) => Type.Literal(level)), { errorMessage: M.alcadaRiskLevel });
const Alcada = Type.Object({
  level: Type.String({ minLength: 1, maxLength: 60, errorMessage: M.alcadaLevelRequired }),
  maxAmountCents: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, errorMessage: M.alcadaAmount }),
  maxRiskLevel: Risk,
});
const Instruction = Type.String({ maxLength: MAX_INSTRUCTIONS_CHARS, errorMessage: M.instructionsTooLong });
const Instructions = Type.Object(Object.fromEntries(COMMITTEE_AGENTS.map((agent) => [agent, Type.Optional(Instruction)])), {
  additionalProperties: false,
  errorMessage: M.instructionsAgent,
  description: `extra instructions per agent, at most ${MAX_INSTRUCTIONS_CHARS} characters each (module committee-custom-prompts)`,
});

export const ParecerEnabledBody = Type.Boolean({ default: false, errorMessage: M.parecerEnabled, description: 'AI opinions per section when a report finalizes (module committee)' });

export const CommitteeBody = Type.Object(
  {
    trigger: Trigger,
    alcadas: Type.Array(Alcada, { maxItems: 20, default: [] }),
    committeeMaxLevel: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }),
    instructions: Type.Optional(Instructions),
  },
  { description: 'the AI credit committee: trigger, alçada table (lowest authority first) and the highest level the committee may decide at' },
);

export const CommitteeSchema = Type.Object({
  trigger: Trigger,
  alcadas: Type.Array(Alcada),
  committeeMaxLevel: Type.Union([Type.String(), Type.Null()]),
  instructions: Type.Optional(Type.Record(Type.String(), Type.String())),
  instructionsVersion: Type.Integer({ description: "the organization's instructions version (orgVersion of a deliberation); 0 without instructions" }),
});

/** Blank instructions are none; the decider sets instructionsVersion. */
export function committeeOf(body: Static<typeof CommitteeBody> | undefined): CommitteePolicy | undefined {
  if (!body) return undefined;
  const given = Object.entries(body.instructions ?? {}).flatMap(([agent, text]) => (typeof text === 'string' && text.trim() ? [[agent, text.trim()]] : []));
  return {
    trigger: body.trigger,
    alcadas: body.alcadas.map((a) => ({ level: a.level.trim(), maxAmountCents: a.maxAmountCents, maxRiskLevel: a.maxRiskLevel })),
    committeeMaxLevel: body.committeeMaxLevel?.trim() ?? null,
    ...(given.length ? { instructions: Object.fromEntries(given) } : {}),
    instructionsVersion: 0,
  };
}

import { sameContent } from '../shared/canonical.ts';
import { DomainError } from '../shared/errors.ts';
import type { CommitteePolicy, PolicyContent } from './policy.ts';
import { CommitteePolicyMessages } from './messages.ts';

/** Characters of extra instructions per committee agent (spec, Limits). */
export const MAX_INSTRUCTIONS_CHARS = 4000;
/** The organization module that unlocks extra instructions per agent. */
export const CUSTOM_PROMPTS_MODULE = 'committee-custom-prompts';

const refuse = (message: string): never => {
  throw new DomainError('invalid', message);
};

const instructionsOf = (content: PolicyContent | undefined) => content?.committee?.instructions ?? {};
const hasInstructions = (content: PolicyContent | undefined) => Object.keys(instructionsOf(content)).length > 0;

/** The meaning checks of a policy's committee part (the HTTP schema checks its shape). */
export function validateCommittee(committee: CommitteePolicy | undefined, customPromptsAllowed: boolean): void {
  if (!committee) return;
  const levels = committee.alcadas.map((a) => a.level);
  if (levels.some((level) => !level.trim())) refuse(CommitteePolicyMessages.alcadaLevelRequired);
  if (new Set(levels).size !== levels.length) refuse(CommitteePolicyMessages.alcadaLevelRepeated);
  for (const alcada of committee.alcadas) {
    if (!Number.isSafeInteger(alcada.maxAmountCents) || alcada.maxAmountCents < 0) refuse(CommitteePolicyMessages.alcadaAmount);
  }
  if (committee.committeeMaxLevel !== null && !levels.includes(committee.committeeMaxLevel)) refuse(CommitteePolicyMessages.committeeMaxLevelUnknown);
  if (committee.trigger === 'AUTO_DECIDE' && committee.committeeMaxLevel === null) refuse(CommitteePolicyMessages.autoDecideNeedsLevel);
  const instructions = Object.values(committee.instructions ?? {});
  if (instructions.length && !customPromptsAllowed) refuse(CommitteePolicyMessages.customPromptsModule);
  if (instructions.some((text) => (text ?? '').length > MAX_INSTRUCTIONS_CHARS)) refuse(CommitteePolicyMessages.instructionsTooLong);
}

/**
 * The content a new version stores: its committee gets the organization's instructions version.
 * 0 without instructions; the same number while the instructions stay those of the latest
 * version that had any; otherwise one more than any number used before (A, B, then A again is
 * 1, 2, 3: a deliberation's orgVersion always names one text).
 */
export function stampInstructionsVersion(content: PolicyContent, history: readonly PolicyContent[]): PolicyContent {
  if (!content.committee) return content;
  const last = [...history].reverse().find(hasInstructions);
  const used = Math.max(0, ...history.map((v) => v.committee?.instructionsVersion ?? 0));
  const instructionsVersion = !hasInstructions(content) ? 0 : last && sameContent(instructionsOf(last), instructionsOf(content)) ? last.committee!.instructionsVersion : used + 1;
  return { ...content, committee: { ...content.committee, instructionsVersion } };
}

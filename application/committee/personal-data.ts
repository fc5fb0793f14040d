import type { PersonalDataRule } from '../../platform/personal-data/index.ts';
import { documentSubjectOf } from '../proposal/personal-data.ts';

/**
 * Deliberation events name the report's person by document (the COMMITTEE_FINISHED webhook sends
 * it), sealed like the report's. Opinion and synthesis texts are kept free of names and documents
 * by the prompts and the offline rules (docs/committee.md), and the read model copies no document.
 */
export const committeePersonalData: PersonalDataRule = {
  subjectOf: documentSubjectOf,
  fields: {
    DeliberationStarted: ['document'],
    AgentOpinionRecorded: ['document'],
    DeliberationFinished: ['document'],
    DeliberationFailed: ['document'],
  },
};

import type { PersonalDataRule } from '../../platform/personal-data/index.ts';
import { documentSubjectOf } from '../proposal/personal-data.ts';

/** An execution names its proposal's holder by document at its start and in its final status (the OPERATION webhook's `document`). */
export const executionPersonalData: PersonalDataRule = {
  subjectOf: documentSubjectOf,
  fields: {
    ExecutionStarted: ['document'],
    ExecutionFinished: ['document'],
  },
};

import type { PersonalDataRule } from '../../../platform/personal-data/index.ts';
import { reportPersonalData } from '../personal-data.ts';

/**
 * Personal data in the opinion events (docs/personal-data.md), sealed with the key of the report's
 * subject like every report event: the document, and the opinion, whose text a hosted model may
 * write with the subject's data in it. An erased opinion reads as `{}`: no text, no score.
 */
export const opinionPersonalData: PersonalDataRule = {
  subjectOf: reportPersonalData.subjectOf,
  fields: {
    SectionOpinionsRequested: ['document'],
    SectionOpinionRecorded: ['document', 'opinion'],
  },
};

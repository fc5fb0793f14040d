import type { RiskLevel } from '../credit-policy/policy.ts';
import type { ModelCallRecord } from '../shared/model-call.ts';
import type { DomainEvent } from '../shared/decider.ts';
import type { ReportFacts } from './public-events.ts';
import type { SourceSectionType } from './sections.ts';

/** An AI opinion on one section of a report (spec, Section: parecerStatus, parecerScore, parecerRiskLevel). */
export interface SectionOpinion {
  /** Portuguese text. */
  parecer: string;
  /** 0 (highest risk) to 10. */
  score: number;
  riskLevel: RiskLevel;
  highlights: string[];
}

export type { ModelCallRecord };

/** The report finalized under a policy with opinions on, for an organization with module committee. */
export type SectionOpinionsRequested = DomainEvent<
  'SectionOpinionsRequested',
  ReportFacts & { sections: Array<{ sectionId: string; sectionType: SourceSectionType }>; promptVersion: string; requestedAt: string }
>;

/** One section's opinion, or ERROR when the model gave no valid reply after its retries. */
export type SectionOpinionRecorded = DomainEvent<
  'SectionOpinionRecorded',
  ReportFacts & {
    sectionId: string;
    sectionType: SourceSectionType;
    status: 'DONE' | 'ERROR';
    opinion: SectionOpinion | null;
    error: string | null;
    call: ModelCallRecord | null;
    /** The LLM_PRICES version costUsd was computed with. */
    priceTableVersion: string;
    recordedAt: string;
  }
>;

export type OpinionEvent = SectionOpinionsRequested | SectionOpinionRecorded;

import type { OpinionEvent, ModelCallRecord, SectionOpinion } from './opinion-events.ts';
import type { SourceSectionType } from './sections.ts';
import type { ReportState } from './state.ts';

/** Opinions per section (docs/committee.md, Opinions): asked once per report, one record per section. */
export interface OpinionState {
  /** The sections asked about; null until requested. */
  requested: Array<{ sectionId: string; sectionType: SourceSectionType }> | null;
  recorded: string[];
}

export const initialOpinionState = (): OpinionState => ({ requested: null, recorded: [] });

export function evolveOpinions(state: OpinionState, event: OpinionEvent): OpinionState {
  if (event.type === 'SectionOpinionsRequested') return { ...state, requested: event.data.sections };
  return { ...state, recorded: [...state.recorded, event.data.sectionId] };
}

export type OpinionCommand =
  | { type: 'RequestSectionOpinions'; promptVersion: string; at: string }
  | {
      type: 'RecordSectionOpinion';
      sectionId: string;
      result: { status: 'DONE'; opinion: SectionOpinion; error: null } | { status: 'ERROR'; opinion: null; error: string };
      call: ModelCallRecord | null;
      priceTableVersion: string;
      at: string;
    };

/** Sections still without an opinion. */
export function sectionsAwaitingOpinion(state: ReportState): Array<{ sectionId: string; sectionType: SourceSectionType }> {
  return (state.opinions.requested ?? []).filter((s) => !state.opinions.recorded.includes(s.sectionId));
}

/**
 * Once the sources finished, every source section that answered (data or error) gets an opinion.
 * Repeats decide nothing, so the process manager may replay after a crash.
 */
export function decideOpinion(command: OpinionCommand, state: ReportState): OpinionEvent[] {
  const facts = state.facts;
  if (!facts || !state.sourcesFinished) throw new Error('opinions are asked only of a finalized report');
  if (command.type === 'RequestSectionOpinions') {
    if (state.opinions.requested) return [];
    const sections = state.sourceSections.filter((type) => state.results[type]).map((type) => ({ sectionId: state.sectionIds[type]!, sectionType: type }));
    return [{ type: 'SectionOpinionsRequested', data: { ...facts, sections, promptVersion: command.promptVersion, requestedAt: command.at } }];
  }
  const section = sectionsAwaitingOpinion(state).find((s) => s.sectionId === command.sectionId);
  if (!section) return [];
  const { result, call, priceTableVersion, at } = command;
  return [{ type: 'SectionOpinionRecorded', data: { ...facts, sectionId: section.sectionId, sectionType: section.sectionType, ...result, call, priceTableVersion, recordedAt: at } }];
}

import type { Decider } from '../shared/decider.ts';
import type { Provenance } from '../shared/provenance.ts';
import { DomainError } from '../shared/errors.ts';
import type { DocumentVerdict, ExpectedDocumentType } from '../collection/enums.ts';
import type { DocumentReading, DocumentReceivedData, RegistryDocumentEvent, RegistryDocumentStatus } from './document-events.ts';
import { RegistryMessages } from './messages.ts';

/** What the analysis concluded: an opinion, or a technical failure (no opinion, reprocessing possible). */
export type AnalysisOutcome =
  /** `sandbox`: sandbox rules gave it (the offline keyword analyser), not a real reading. `provenance`: the analyser that gave it. */
  | {
      kind: 'opinion';
      type: ExpectedDocumentType;
      verdict: DocumentVerdict;
      score: number;
      reason: string | null;
      validUntil: string | null;
      sandbox?: true;
      reading?: DocumentReading;
      provenance?: Provenance;
    }
  | { kind: 'failure'; reason: string };

export type RegistryDocumentCommand =
  | ({ type: 'ReceiveDocument' } & DocumentReceivedData)
  /** The process manager starts the analysis of `attempt` (ignored when that attempt already started or ended). */
  | { type: 'StartAnalysis'; attempt: number; at: string }
  | { type: 'RecordAnalysis'; attempt: number; outcome: AnalysisOutcome; at: string }
  | { type: 'ReprocessDocument'; organizationId: string; forceType: ExpectedDocumentType | null; at: string }
  | { type: 'DecideDocument'; organizationId: string; verdict: DocumentVerdict; comment: string | null; userId: string; at: string }
  | { type: 'DownloadDocument'; organizationId: string; userId: string | null; at: string }
  /** Records that the file is gone (its subject was erased); nothing when already recorded. */
  | { type: 'RecordFileDeleted'; at: string };

export interface RegistryDocumentState {
  received: DocumentReceivedData | null;
  status: RegistryDocumentStatus;
  attempt: number;
  /** The type the next analysis must take instead of classifying (reprocess with forceType). */
  forceType: ExpectedDocumentType | null;
  type: ExpectedDocumentType | null;
  verdict: DocumentVerdict | null;
  score: number | null;
  reason: string | null;
  validUntil: string | null;
  decidedByUserId: string | null;
  comment: string | null;
  fileDeleted: boolean;
}

/** The status a verdict leaves the document in, whoever gave it. */
export function statusOfVerdict(verdict: DocumentVerdict): RegistryDocumentStatus {
  return verdict === 'VALIDO' ? 'VALIDATED' : verdict === 'INVALIDO' ? 'REJECTED' : 'MANUAL_REVIEW';
}

const inAnalysis = (state: RegistryDocumentState) => state.status === 'RECEIVED' || state.status === 'PROCESSING';

function existing(state: RegistryDocumentState, organizationId: string): DocumentReceivedData {
  if (!state.received || state.received.organizationId !== organizationId) throw new DomainError('not_found', RegistryMessages.documentNotFound);
  return state.received;
}

function settled(state: RegistryDocumentState, organizationId: string): DocumentReceivedData {
  const received = existing(state, organizationId);
  if (inAnalysis(state)) throw new DomainError('conflict', RegistryMessages.stillAnalysing);
  return received;
}

const ids = (r: DocumentReceivedData) => ({ organizationId: r.organizationId, registryId: r.registryId, registryDocumentId: r.registryDocumentId });

export const registryDocumentDecider: Decider<RegistryDocumentCommand, RegistryDocumentEvent, RegistryDocumentState> = {
  initialState: () => ({
    received: null,
    status: 'RECEIVED',
    attempt: 0,
    forceType: null,
    type: null,
    verdict: null,
    score: null,
    reason: null,
    validUntil: null,
    decidedByUserId: null,
    comment: null,
    fileDeleted: false,
  }),

  evolve(state, event) {
    switch (event.type) {
      case 'RegistryDocumentReceived':
        return { ...state, received: event.data, status: 'RECEIVED', attempt: 1, type: event.data.expectedType };
      case 'RegistryDocumentProgressed':
        return { ...state, status: 'PROCESSING' };
      case 'RegistryDocumentAssessed':
      case 'RegistryDocumentFailed': {
        const { status, type, verdict, score, reason, validUntil } = event.data;
        return { ...state, status, type, verdict, score, reason, validUntil, decidedByUserId: null, comment: null };
      }
      case 'RegistryDocumentReprocessed':
        return { ...state, status: 'RECEIVED', attempt: event.data.attempt, forceType: event.data.forceType };
      case 'RegistryDocumentDecided': {
        const { status, verdict, decidedByUserId, comment } = event.data;
        return { ...state, status, verdict, decidedByUserId, comment };
      }
      case 'RegistryDocumentFileDeleted':
        return { ...state, fileDeleted: true };
      default:
        return state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'ReceiveDocument': {
        if (state.received) throw new DomainError('conflict', RegistryMessages.documentExists);
        const { type: _type, ...data } = command;
        return [{ type: 'RegistryDocumentReceived', data }];
      }
      case 'StartAnalysis': {
        if (!state.received || command.attempt !== state.attempt || state.status !== 'RECEIVED') return [];
        const type = state.forceType ?? state.type;
        return [{ type: 'RegistryDocumentProgressed', data: { ...ids(state.received), at: command.at, stage: 'EXTRACTING', type, attempt: state.attempt } }];
      }
      case 'RecordAnalysis': {
        if (!state.received || command.attempt !== state.attempt || state.status !== 'PROCESSING') return [];
        const { outcome, at } = command;
        const common = { ...ids(state.received), at, document: state.received.document, attempt: state.attempt, source: state.received.source };
        if (outcome.kind === 'failure') {
          const data = { ...common, type: state.forceType ?? state.type, status: 'FAILED' as const, verdict: null, score: null, reason: outcome.reason, validUntil: null };
          return [{ type: 'RegistryDocumentFailed', data }];
        }
        const { type, verdict, score, reason, validUntil, sandbox, reading, provenance } = outcome;
        return [
          {
            type: 'RegistryDocumentAssessed',
            data: {
              ...common,
              type,
              status: statusOfVerdict(verdict),
              verdict,
              score,
              reason,
              validUntil,
              ...(sandbox ? { sandbox } : {}),
              ...(reading ? { reading } : {}),
              ...(provenance ? { provenance } : {}),
            },
          },
        ];
      }
      case 'ReprocessDocument': {
        const received = settled(state, command.organizationId);
        const data = { ...ids(received), at: command.at, attempt: state.attempt + 1, forceType: command.forceType, overriddenFeedbackVerdict: state.verdict };
        return [{ type: 'RegistryDocumentReprocessed', data }];
      }
      case 'DecideDocument': {
        const received = settled(state, command.organizationId);
        const { verdict, comment, userId, at } = command;
        const data = {
          ...ids(received),
          document: received.document,
          at,
          type: state.type,
          status: statusOfVerdict(verdict),
          attempt: state.attempt,
          verdict,
          comment,
          decidedByUserId: userId,
          source: received.source,
        };
        return [{ type: 'RegistryDocumentDecided', data }];
      }
      case 'DownloadDocument': {
        const received = existing(state, command.organizationId);
        return [{ type: 'RegistryDocumentDownloaded', data: { ...ids(received), at: command.at, byUserId: command.userId } }];
      }
      case 'RecordFileDeleted': {
        if (!state.received || state.fileDeleted) return [];
        return [{ type: 'RegistryDocumentFileDeleted', data: { ...ids(state.received), at: command.at, blobId: state.received.blobId, cause: 'PERSONAL_DATA_ERASED' } }];
      }
    }
  },
};

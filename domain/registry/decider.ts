import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { sameContent } from '../shared/canonical.ts';
import type { EntityType, KycStatus, RegistryActor, RegistryBasicData, RegistryContact, RegistryEvent, RegistryRecordData } from './events.ts';
import { completenessOf, kycStatusOf, type DocumentOutcome } from './kyc.ts';
import { RegistryMessages } from './messages.ts';

export interface RegistryFields {
  name: string;
  contacts: RegistryContact[];
  basicData: RegistryBasicData;
}

export type RegistryCommand =
  /** Create, or nothing when the registry exists (`ifAbsent`: find-or-create) or 409 otherwise. */
  | ({ type: 'CreateRegistry'; organizationId: string; registryId: string; document: string; entityType: EntityType; ifAbsent: boolean; at: string; selfDeclared?: boolean } & RegistryFields &
      RegistryActor)
  | ({ type: 'UpdateRegistry'; organizationId: string; registryId: string; changes: Partial<RegistryFields>; at: string } & RegistryActor)
  | {
      type: 'RecordDocumentOutcome';
      organizationId: string;
      registryId: string;
      registryDocumentId: string;
      outcome: DocumentOutcome;
      at: string;
    }
  /**
   * Completeness and KYC status again as of `at` (the scheduler's, when a document's validity
   * ended): RegistryKycChanged only when either differs, so a repeated run appends nothing.
   */
  | { type: 'RecomputeKyc'; organizationId: string; registryId: string; at: string };

export interface RegistryState {
  record: Omit<RegistryRecordData, 'at' | 'actorType' | 'actorId'> | null;
  documents: Record<string, DocumentOutcome>;
}

function existing(state: RegistryState, organizationId: string): NonNullable<RegistryState['record']> {
  if (!state.record || state.record.organizationId !== organizationId) throw new DomainError('not_found', RegistryMessages.registryNotFound);
  return state.record;
}

/** RegistryKycChanged when completeness or the KYC status computed as of `at` differs from the record's; else nothing. */
function kycChange(record: NonNullable<RegistryState['record']>, outcomes: readonly DocumentOutcome[], at: string): RegistryEvent[] {
  const completeness = completenessOf(record.entityType, outcomes, at);
  const kycStatus: KycStatus = kycStatusOf(completeness, outcomes);
  if (completeness === record.completeness && kycStatus === record.kycStatus) return [];
  const { organizationId, registryId, document } = record;
  return [{ type: 'RegistryKycChanged', data: { organizationId, registryId, document, kycStatus, completeness, at } }];
}

const sameOutcome = (a: DocumentOutcome | undefined, b: DocumentOutcome) => a !== undefined && sameContent(a, b);

export const registryDecider: Decider<RegistryCommand, RegistryEvent, RegistryState> = {
  initialState: () => ({ record: null, documents: {} }),

  evolve(state, event) {
    switch (event.type) {
      case 'RegistryCreated':
      case 'RegistryUpdated': {
        const { at: _at, actorType: _type, actorId: _id, ...record } = event.data;
        if ('changed' in record) delete (record as { changed?: string[] }).changed;
        return { ...state, record };
      }
      case 'RegistryDocumentRecorded': {
        const { type, status, verdict, validUntil } = event.data;
        return { ...state, documents: { ...state.documents, [event.data.registryDocumentId]: { type, status, verdict, validUntil } } };
      }
      case 'RegistryKycChanged':
        return { ...state, record: state.record && { ...state.record, kycStatus: event.data.kycStatus, completeness: event.data.completeness } };
      default:
        return state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateRegistry': {
        if (state.record) {
          if (command.ifAbsent && state.record.organizationId === command.organizationId) return [];
          throw new DomainError('conflict', RegistryMessages.registryExists);
        }
        const { type: _type, ifAbsent: _ifAbsent, ...data } = command;
        return [{ type: 'RegistryCreated', data: { ...data, kycStatus: 'PENDING', completeness: 0 } }];
      }
      case 'UpdateRegistry': {
        const record = existing(state, command.organizationId);
        const changed = (Object.keys(command.changes) as Array<keyof RegistryFields>).filter((field) => command.changes[field] !== undefined && !sameContent(command.changes[field], record[field]));
        if (!changed.length) return [];
        const { at, actorType, actorId } = command;
        return [{ type: 'RegistryUpdated', data: { ...record, ...command.changes, at, actorType, actorId, changed } }];
      }
      case 'RecordDocumentOutcome': {
        const record = existing(state, command.organizationId);
        if (sameOutcome(state.documents[command.registryDocumentId], command.outcome)) return [];
        const { organizationId, registryId, registryDocumentId, outcome, at } = command;
        const recorded: RegistryEvent = { type: 'RegistryDocumentRecorded', data: { organizationId, registryId, registryDocumentId, ...outcome, at } };
        return [recorded, ...kycChange(record, Object.values({ ...state.documents, [registryDocumentId]: outcome }), at)];
      }
      case 'RecomputeKyc':
        return kycChange(existing(state, command.organizationId), Object.values(state.documents), command.at);
    }
  },
};

import { DomainError } from '../shared/errors.ts';
import { FinancialUploadMessages } from '../financial-upload/messages.ts';
import type { ReportEvent } from './events.ts';
import type { FinancialStatementsSubmitted, SubmittedFinancialFile } from './financial-events.ts';
import type { ReportState } from './state.ts';

export interface SubmitFinancialStatements {
  type: 'SubmitFinancialStatements';
  organizationId: string;
  userId: string;
  /** A fresh ObjectId, used when the batch is new. */
  batchId: string;
  files: SubmittedFinancialFile[];
  via: FinancialStatementsSubmitted['data']['via'];
  at: string;
}

/**
 * A batch whose keys were all submitted already is a retried complete (a lost reply, a client
 * retry): nothing new is appended and the caller gets the report as it is. A batch with at least
 * one new key is a new analysis of all its files, earlier ones included (the client consolidates
 * them again on purpose). Reports of another organization do not exist for the caller.
 */
export function submitFinancialStatements(command: SubmitFinancialStatements, state: ReportState): ReportEvent[] {
  if (!state.facts || state.facts.organizationId !== command.organizationId) throw new DomainError('not_found', FinancialUploadMessages.reportNotFound);
  const submitted = state.financialKeys ?? {};
  if (command.files.every((file) => submitted[file.key] !== undefined)) return [];
  const { batchId, files, via, userId, at } = command;
  return [{ type: 'FinancialStatementsSubmitted', data: { ...state.facts, batchId, files, via, userId, submittedAt: at } }];
}

/** The keys submitted so far, each with the batch that first carried it. */
export function evolveFinancial(state: ReportState, event: FinancialStatementsSubmitted): ReportState {
  const financialKeys = { ...state.financialKeys };
  for (const file of event.data.files) financialKeys[file.key] ??= event.data.batchId;
  return { ...state, financialKeys };
}

import { createHash } from 'node:crypto';
import { assembleInputData, hashedContent, INPUT_DATA_VERSION, type InputValue } from '../../domain/input-data/values.ts';
import type { ProposalState } from '../../domain/proposal/state.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { completedCollectionsOf } from '../../projections/input-data/queries.ts';
import { canonicalize } from '../../projections/collection/trail-chain.ts';
import type { AppContext } from '../context.ts';
import { loadProposal } from '../proposal/commands.ts';
import { registryIdOf } from '../registry/intake-commands.ts';

export interface ProposalInputData {
  version: number;
  asOf: string;
  sha256: string;
  proposalId: string;
  collectionIds: string[];
  fields: InputValue[];
}

type Reader = Pick<AppContext, 'db' | 'config'>;

/** The proposal's keys and those of its holder's completed collections (one registry per organization and document). */
export async function inputFieldsOf(app: Reader, proposal: ProposalState) {
  const { organizationId, document } = proposal.created!;
  return assembleInputData(proposal, await completedCollectionsOf(app.db, organizationId, await registryIdOf(app, organizationId, document)));
}

/**
 * GET /v1/proposals/{id}/input-data: assembled now, from the proposal's stream (current even
 * right after a write) and the collections' read model. The hash is SHA-256 over the canonical
 * JSON (RFC 8785) of the version and each key's value, so the same values hash alike whichever
 * collection gave them, and any changed value changes it. Another organization's proposal is
 * absent (404); a failure to read is 502 with the spec's text.
 */
export async function proposalInputData(app: Pick<AppContext, 'db' | 'store' | 'clock' | 'log' | 'config'>, organizationId: string, proposalId: string): Promise<ProposalInputData> {
  let proposal: ProposalState;
  let assembled: Awaited<ReturnType<typeof inputFieldsOf>>;
  try {
    proposal = await loadProposal(app, proposalId);
    if (proposal.created?.organizationId !== organizationId) throw new DomainError('not_found', Messages.proposalNotFound);
    assembled = await inputFieldsOf(app, proposal);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    app.log.error({ err: error, proposalId }, 'input data could not be read');
    throw new DomainError('upstream', Messages.inputDataLoadFailed);
  }
  const sha256 = createHash('sha256')
    .update(canonicalize(hashedContent(assembled.fields))!, 'utf8')
    .digest('hex');
  return { version: INPUT_DATA_VERSION, asOf: app.clock.now().toISOString(), sha256, proposalId, ...assembled };
}

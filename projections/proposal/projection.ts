import type { Knex } from 'knex';
import { ProposalEventTypes, type ProposalEvent } from '../../domain/proposal/events.ts';
import { isTerminal } from '../../domain/proposal/statuses.ts';
import { ERASED, PERSONAL_DATA_ERASED, SUBJECTS_METADATA, type PersonalDataErased } from '../../platform/personal-data/index.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { Projection } from '../../platform/projections/projection.ts';
import { DASHBOARD_TABLES, shiftRollups } from '../dashboard/rollup.ts';

export const PROPOSAL_PROJECTION = 'proposal';

/**
 * Every write is an upsert, an absolute set, or a "first" kept with coalesce: applying an event
 * twice leaves the row as applying it once did.
 */
async function apply(event: ProposalEvent, trx: Knex.Transaction, subject: string | null): Promise<void> {
  const facts = () => trx('proposal_facts').where({ id: event.data.proposalId });
  const first = (column: string, at: string) => trx.raw('coalesce(??, ?)', [column, at]);
  const stopWaiting = (offerId: string) => facts().where({ waiting_offer_id: offerId }).update({ waiting_offer_id: null, waiting_offer_until: null });
  switch (event.type) {
    case 'ProposalCreated': {
      const d = event.data;
      await trx('proposal_facts')
        .insert({
          id: d.proposalId,
          organization_id: d.organizationId,
          created_at: d.createdAt,
          created_by: d.userId,
          document: d.document,
          name: d.name,
          entity_type: d.entityType,
          kind: d.kind,
          origin: d.origin,
          correspondent_id: d.correspondentId,
          agent_id: d.agentId,
          external_id: d.externalId,
          product_id: d.productId,
          product_key: d.productKey,
          product_name: d.productName,
          portfolio_id: d.portfolioId,
          portfolio_name: d.portfolioName,
          status: 'DRAFT',
          status_changed_at: d.createdAt,
          requested_cents: d.requestedAmountCents,
          requested_term_months: d.requestedTermMonths,
          fixed_amount_cents: d.fixedAmountCents,
          subject_id: subject,
        })
        .onConflict('id')
        .ignore();
      return;
    }
    case 'ProposalStatusChanged': {
      const { to, at } = event.data;
      await facts().update({ status: to, status_changed_at: at });
      if (to === 'ISSUED') await facts().update({ issued_at: first('issued_at', at) });
      if (to === 'EXPIRED') await facts().whereNull('chosen_at').update({ expired_without_choice: true });
      if (isTerminal(to)) await facts().update({ waiting_offer_id: null, waiting_offer_until: null });
      return;
    }
    case 'ProposalDecided': {
      const { decision, step, at } = event.data;
      await facts().update({ decision, rejection_step: decision === 'REJECTED' ? step : null, analyzed_at: first('analyzed_at', at) });
      return;
    }
    case 'IndicativeOfferSent': {
      const { at, linkHash, organizationId, proposalId, offerId, validUntil } = event.data;
      await facts().update({ pre_approved_at: first('pre_approved_at', at), analyzed_at: first('analyzed_at', at), waiting_offer_id: offerId, waiting_offer_until: validUntil });
      await trx('proposal_offer_links').insert({ link_hash: linkHash, organization_id: organizationId, proposal_id: proposalId, offer_id: offerId }).onConflict('link_hash').ignore();
      return;
    }
    case 'OfferLinkReissued': {
      const { linkHash, previousLinkHash, organizationId, proposalId, offerId } = event.data;
      await trx('proposal_offer_links').where({ link_hash: previousLinkHash }).delete();
      await trx('proposal_offer_links').insert({ link_hash: linkHash, organization_id: organizationId, proposal_id: proposalId, offer_id: offerId }).onConflict('link_hash').ignore();
      return;
    }
    case 'OfferChosen': {
      const { amountCents, by, at } = event.data;
      await facts().update({ chosen_cents: amountCents, chosen_by: by, chosen_at: at });
      await stopWaiting(event.data.offerId);
      return;
    }
    case 'OfferExpired':
      await stopWaiting(event.data.offerId);
      return;
    case 'FirmOfferIssued': {
      const { amountCents, at } = event.data;
      await facts().update({ firm_cents: amountCents, firm_offer_at: first('firm_offer_at', at), analyzed_at: first('analyzed_at', at) });
      return;
    }
    case 'ProposalClosed':
      if (event.data.status === 'ISSUED') await facts().update({ issued_on: event.data.date, issued_at: first('issued_at', event.data.at) });
      return;
    default:
      // Participants and analysis links are read from the stream (the detail folds it).
      return;
  }
}

/** Events that move a dashboard fact (participants, links and offer deadlines move none). */
const COUNTED: ReadonlySet<string> = new Set<ProposalEvent['type']>([
  'ProposalCreated',
  'ProposalStatusChanged',
  'ProposalDecided',
  'IndicativeOfferSent',
  'OfferChosen',
  'FirmOfferIssued',
  'ProposalClosed',
]);

/** The proposals list and dashboard facts with their rollups, and the index of offer links by hash. */
export const proposalProjection: Projection = {
  name: PROPOSAL_PROJECTION,
  eventTypes: [...Object.values(ProposalEventTypes), PERSONAL_DATA_ERASED],
  tables: ['proposal_facts', 'proposal_offer_links', ...DASHBOARD_TABLES],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    // The batch's proposals leave the rollups as they were and come back as they are now.
    const counted = [...new Set(events.filter((e) => COUNTED.has(e.type)).map((e) => (e.data as { proposalId: string }).proposalId))];
    if (counted.length) await shiftRollups(trx, counted, -1);
    for (const event of events) {
      if (event.type === PERSONAL_DATA_ERASED) {
        // The holder's copies; participants are read from the stream, where their fields read erased.
        const { subjectId } = event.data as unknown as PersonalDataErased;
        await trx('proposal_facts').where({ subject_id: subjectId }).update({ document: ERASED, name: ERASED });
        continue;
      }
      const subjects = event.metadata[SUBJECTS_METADATA] as string[] | undefined;
      await apply({ type: event.type, data: event.data } as unknown as ProposalEvent, trx, subjects?.[0] ?? null);
    }
    if (counted.length) await shiftRollups(trx, counted, 1);
  },
};

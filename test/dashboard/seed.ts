import { randomBytes } from 'node:crypto';
import { proposalStream } from '../../domain/proposal/events.ts';
import { PROPOSAL_PROJECTION } from '../../projections/proposal/projection.ts';
import type { TestApp } from '../support/app.ts';

/**
 * The dashboard's hand-computed set (test/dashboard/http.test.ts): proposals of one organization
 * appended as the proposal commands would leave them, at chosen instants (Z; Brasília is Z-3).
 */
export const NOW = '2026-11-18T15:00:00.000Z';

const newId = () => randomBytes(12).toString('hex');

/** Correspondent and agent ids (24 hex, like every id); C1 sorts before C2 as the breakdown expects. */
export const C1 = 'c1'.repeat(12);
export const C2 = 'c2'.repeat(12);
export const A1 = 'a1'.repeat(12);
export const A2 = 'a2'.repeat(12);

type Step = [type: string, at: string, data?: Record<string, unknown>];
interface Seed {
  name: string;
  createdAt: string;
  origin: string;
  correspondentId?: string;
  agentId?: string;
  productKey?: 'credito-pessoal' | 'capital-giro';
  portfolioId?: string | null;
  requested?: number | null;
  fixed?: number | null;
  steps?: Step[];
}

const status = (from: string, to: string, at: string): Step => ['ProposalStatusChanged', at, { from, to, reason: null, by: 'PIPELINE', executionId: null }];
const decided = (decision: string, at: string, step: string | null = null): Step => ['ProposalDecided', at, { executionId: 'e', decision, step }];
const indicative = (at: string, offerId: string, validUntil: string): Step => [
  'IndicativeOfferSent',
  at,
  {
    executionId: 'e',
    offerId,
    round: 1,
    linkHash: `h-${offerId}`,
    minAmountCents: 100,
    maxAmountCents: 10_000_000,
    minTermMonths: 6,
    maxTermMonths: 24,
    rateBpsYear: 2000,
    rate: null,
    model: 'PRICE',
    validUntil,
  },
];
const chosen = (at: string, offerId: string, amountCents: number, by: string): Step => [
  'OfferChosen',
  at,
  { executionId: 'e', offerId, round: 1, amountCents, termMonths: 12, reason: null, by, userId: null },
];
const firm = (at: string, amountCents: number): Step => [
  'FirmOfferIssued',
  at,
  { executionId: 'e', offerId: newId(), round: 1, amountCents, termMonths: 12, rateBpsYear: 2000, rate: null, model: 'PRICE', installmentCents: 1000, validUntil: at },
];
const issued = (at: string): Step[] => [['ProposalClosed', at, { executionId: 'e', status: 'ISSUED', date: at.slice(0, 10) }], status('OFFER_ISSUED', 'ISSUED', at)];
/** Decision, pre-approval, the customer's (or operator's) choice, the firm offer, issue: day offsets from creation. */
function fullFlow(created: string, chosenCents: number, by: string, days: { analyzed: number; chosen: number; firm: number; issued: number }): Step[] {
  const at = (d: number) => new Date(Date.parse(created) + d * 86_400_000).toISOString();
  const offer = newId();
  return [
    decided('APPROVED', at(days.analyzed)),
    indicative(at(days.analyzed), offer, at(days.analyzed + 7)),
    status('DRAFT', 'WAITING_CUSTOMER', at(days.analyzed)),
    chosen(at(days.chosen), offer, chosenCents, by),
    firm(at(days.firm), chosenCents),
    status('WAITING_CUSTOMER', 'OFFER_ISSUED', at(days.firm)),
    ...issued(at(days.issued)),
  ];
}

export function dashboardSet(portfolioId: string): Seed[] {
  const expiredOffer = newId();
  const seeds: Seed[] = [
    // Monday 00:30 in Brasília: the first week of the period. CHANNEL, issued 5 days after creation.
    {
      name: 'P1',
      createdAt: '2026-11-02T03:30:00Z',
      origin: 'CHANNEL',
      correspondentId: C1,
      agentId: A1,
      requested: 1_000_000,
      steps: fullFlow('2026-11-02T03:30:00Z', 800_000, 'CUSTOMER', { analyzed: 1, chosen: 3, firm: 4, issued: 5 }),
    },
    // Sunday 23:30 in Brasília: the comparison period and the week before.
    { name: 'P2', createdAt: '2026-11-02T02:30:00Z', origin: 'API', correspondentId: C1, agentId: A1, requested: 500_000 },
    {
      name: 'P3',
      createdAt: '2026-11-03T13:00:00Z',
      origin: 'API',
      productKey: 'capital-giro',
      portfolioId: null,
      requested: null,
      fixed: 2_000_000,
      steps: [decided('REJECTED', '2026-11-03T14:00:00Z', 'politica'), status('DRAFT', 'REJECTED', '2026-11-03T14:00:00Z')],
    },
    { name: 'P4', createdAt: '2026-11-04T12:00:00Z', origin: 'OPERATOR', correspondentId: C2, agentId: A2, requested: 500_000, steps: [status('DRAFT', 'IN_ANALYSIS', '2026-11-04T13:00:00Z')] },
    {
      name: 'P5',
      createdAt: '2026-11-10T12:00:00Z',
      origin: 'CRM',
      correspondentId: C2,
      agentId: A2,
      requested: 600_000,
      steps: [indicative('2026-11-17T12:00:00Z', newId(), '2026-11-24T12:00:00Z'), status('DRAFT', 'WAITING_CUSTOMER', '2026-11-17T12:00:00Z')],
    },
    { name: 'P6', createdAt: '2026-11-12T12:00:00Z', origin: 'PUBLIC_FORM', portfolioId: null, requested: 700_000, steps: [status('DRAFT', 'WAITING_OPERATOR', '2026-11-12T15:00:00Z')] },
    {
      name: 'P7',
      createdAt: '2026-11-13T12:00:00Z',
      origin: 'BATCH',
      correspondentId: C1,
      agentId: A1,
      requested: 300_000,
      steps: [
        indicative('2026-11-13T13:00:00Z', expiredOffer, '2026-11-14T13:00:00Z'),
        status('DRAFT', 'WAITING_CUSTOMER', '2026-11-13T13:00:00Z'),
        ['OfferExpired', '2026-11-14T13:00:00Z', { executionId: 'e', offerId: expiredOffer, round: 1, validUntil: '2026-11-14T13:00:00Z' }],
        status('WAITING_CUSTOMER', 'EXPIRED', '2026-11-14T13:00:00Z'),
      ],
    },
    { name: 'P8', createdAt: '2026-11-14T12:00:00Z', origin: 'API', correspondentId: C1, agentId: A1, requested: 900_000, steps: [status('DRAFT', 'CANCELED', '2026-11-14T13:00:00Z')] },
    // Sunday 20:00 in Brasília, the period's last day.
    { name: 'P9', createdAt: '2026-11-15T23:00:00Z', origin: 'API', correspondentId: C2, agentId: A2, requested: 100_000 },
    // Analyzed 132 days after creation: the cycle's last bucket (120).
    { name: 'P10', createdAt: '2026-06-10T12:00:00Z', origin: 'API', correspondentId: C1, requested: 200_000, steps: [decided('APPROVED', '2026-10-20T12:00:00Z')] },
    {
      name: 'P11',
      createdAt: '2026-10-20T12:00:00Z',
      origin: 'API',
      correspondentId: C2,
      agentId: A2,
      requested: 400_000,
      steps: fullFlow('2026-10-20T12:00:00Z', 300_000, 'OPERATOR', { analyzed: 1, chosen: 2, firm: 3, issued: 5 }),
    },
  ];
  return seeds.map((seed) => ({ portfolioId, ...seed }));
}

const PRODUCTS = { 'credito-pessoal': ['Crédito pessoal', 'PERSON'], 'capital-giro': ['Capital de giro', 'COMPANY'] } as const;

/** Appends the proposals and waits for the projection; returns their ids by name. */
export async function seedProposals(app: TestApp, organizationId: string, seeds: Seed[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  let position = null;
  for (const seed of seeds) {
    const proposalId = newId();
    ids[seed.name] = proposalId;
    const productKey = seed.productKey ?? 'credito-pessoal';
    const [productName, entityType] = PRODUCTS[productKey];
    const created = {
      proposalId,
      organizationId,
      at: seed.createdAt,
      createdAt: seed.createdAt,
      document: entityType === 'PERSON' ? '12345678909' : '11222333000181',
      entityType,
      name: seed.name,
      productId: 'p',
      productKey,
      productName,
      fixedAmountCents: seed.fixed ?? null,
      kind: 'FINANCING',
      origin: seed.origin,
      portfolioId: seed.portfolioId ?? null,
      portfolioName: seed.portfolioId ? 'Varejo' : null,
      correspondentId: seed.correspondentId ?? null,
      agentId: seed.agentId ?? null,
      externalId: null,
      requestedAmountCents: seed.requested === undefined ? null : seed.requested,
      requestedTermMonths: 12,
      contact: null,
      userId: 'seed',
    };
    const steps = (seed.steps ?? []).map(([type, at, data]) => ({ type, data: { proposalId, organizationId, at, ...data } }));
    ({ position } = await app.app.store.appendToStream(proposalStream(proposalId), [{ type: 'ProposalCreated', data: created }, ...steps]));
  }
  await app.app.readYourWrites([PROPOSAL_PROJECTION], position);
  return ids;
}

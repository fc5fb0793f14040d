import Type, { type TSchema } from 'typebox';
import { CYCLE_PAIRS, DIMS } from '../../domain/dashboard/blocks.ts';
import { INDICATOR_NAMES } from '../../domain/dashboard/indicators.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Int = (description?: string) => Type.Integer({ minimum: 0, ...(description && { description }) });
const Instant = (description?: string) => Type.String({ format: 'date-time', ...(description && { description }) });
const Rate = Type.Number({ minimum: 0, maximum: 1, description: 'a fraction from 0 to 1, four decimals' });

const INDICATOR_DOCS: Record<(typeof INDICATOR_NAMES)[number], string> = {
  received: 'proposals created in the period',
  requestedCents: "sum of the product's fixed amount, else the requested amount",
  approvalRate: 'approved over decided (approved: reached pre-approval, an approved final decision or beyond; decided: approved or rejected)',
  issuedOfferedCents: 'over issued proposals: the last firm offer, else the chosen value, else the requested value',
  ticketCents: 'requestedCents over received, rounded',
  timeToOfferDays: 'median whole days from creation to issue (nearest rank)',
  conversion: 'issued over received',
  openNow: 'proposals of the period now in an open state',
  outOfSla: 'open ones longer in their current state than the sla allows',
};
export const IndicatorsSchema = Type.Object(
  Object.fromEntries(INDICATOR_NAMES.map((name) => [name, name === 'approvalRate' || name === 'conversion' ? { ...Rate, description: INDICATOR_DOCS[name] } : Int(INDICATOR_DOCS[name])])),
  { description: 'the nine indicators; 0 when there is no data' },
);
const WeeklySchema = Type.Object(Object.fromEntries(INDICATOR_NAMES.map((name) => [name, Type.Array(Type.Number({ minimum: 0 }))])), {
  description: 'the nine indicators, one position per week of range.weekStarts',
});
const Stage = Type.Object({ stage: Type.Integer({ minimum: 0, maximum: 5 }), count: Int(), valueCents: Int() });

export const DashboardSchema = Type.Object({
  range: Type.Object({
    from: Instant('inclusive start, defaults applied'),
    to: Instant('exclusive end, defaults applied'),
    prevFrom: Instant(),
    prevTo: Instant(),
    weekStarts: Type.Array(Instant(), { description: 'Mondays at midnight in Brasília: the weeks of the period, or the last 12 up to `to` when it is shorter' }),
  }),
  kpis: Type.Object({ cur: IndicatorsSchema, prev: IndicatorsSchema }),
  weekly: Type.Object({ cur: WeeklySchema, prev: WeeklySchema }, { description: 'prev: as many weeks, ending at the week of prevTo' }),
  statusWeekly: Type.Array(Type.Object({ weekStart: Instant(), issued: Int(), open: Int('draft included'), rejected: Int(), closed: Int('expired or canceled') })),
  funnel: Type.Object(
    { cur: Type.Array(Stage), prev: Type.Array(Stage) },
    {
      description:
        'stages 0 received, 1 analyzed, 2 pre-approved, 3 firm offer, 4 offer chosen, 5 issued (each counts those that reached it or a later one); value: requested amount through stage 2, offered amount from stage 3',
    },
  ),
  breakdown: Type.Object({
    dim: Type.Union(DIMS.map((d) => Type.Literal(d))),
    rows: Type.Array(
      Type.Object({
        key: Nullable(Type.String({ description: 'null groups the proposals without one' })),
        label: Nullable(Type.String({ description: 'product and portfolio only: their names' })),
        cur: IndicatorsSchema,
        prev: IndicatorsSchema,
        weekly: Type.Array(Int(), { description: 'received in each of the last 12 weeks' }),
      }),
      { description: 'most received first' },
    ),
  }),
  mix: Type.Array(Type.Object({ productKey: Type.String(), productName: Type.String(), count: Int(), requestedCents: Int() }), { description: 'per product, most first' }),
  cycle: Type.Array(Type.Object({ pair: Type.Union(CYCLE_PAIRS.map((p) => Type.Literal(p))), medianDays: Int(), p90Days: Int(), n: Int() }), {
    description: 'whole days, nearest rank; 120 or more days fall into one last bucket, 120',
  }),
  offers: Type.Object({
    firm: Int(),
    chosen: Int(),
    expiredWithoutChoice: Int(),
    chosenAmountCents: Int(),
    requestedOfChosenCents: Int(),
    byCustomer: Int(),
    byOperator: Int(),
  }),
  rejections: Type.Object({ total: Int(), requestedCents: Int(), rows: Type.Array(Type.Object({ step: Nullable(Type.String({ description: 'null when unknown' })), count: Int() })) }),
  aging: Type.Object(
    {
      rows: Type.Array(Type.Object({ status: Type.String(), slaDays: Nullable(Int()), upTo2: Int(), upTo7: Int(), over7: Int(), total: Int(), outOfSla: Int() }), {
        description: 'whole days in the current state',
      }),
      oldest: Type.Array(
        Type.Object({
          id: Type.String(),
          name: Type.String(),
          document: Type.String(),
          status: Type.String(),
          days: Int('whole days in the current state'),
          correspondentId: Nullable(Type.String()),
          origin: Type.String(),
        }),
        { maxItems: 5 },
      ),
    },
    { description: 'proposals open now: the filters apply, the period does not' },
  ),
  generatedAt: Instant('when this result was computed: an identical query within 60 seconds answers the same one'),
});

import Type, { type TSchema } from 'typebox';
import { PERCENT_PATTERN } from '../../domain/pricing/rates.ts';
import { MARKET_INDEX_KEYS } from '../../domain/pricing/terms.ts';

/** Portuguese texts for the fields an integrator gets wrong most (the spec gives none). */
const Msg = {
  amount: 'amountCents deve ser um inteiro entre 1 e 100000000000 (centavos).',
  term: 'termMonths deve ser um inteiro entre 1 e 600 (meses).',
  entityType: 'entityType deve ser COMPANY ou PERSON.',
  model: 'model deve ser PRICE ou SAC.',
  date: (field: string) => `${field} deve ser uma data no formato AAAA-MM-DD.`,
  bps: (field: string) => `${field} deve ser um inteiro entre 0 e 100000 (bps ao ano).`,
  rate: (field: string) => `${field} deve ser {"value": "<percentual decimal>", "period": "MONTH" ou "YEAR"}.`,
  index: 'index deve ser CDI, SELIC ou IPCA.',
  percent: (field: string) => `${field} deve ser um percentual decimal, por exemplo "14.90".`,
  period: 'period deve ser MONTH ou YEAR.',
  productKey: 'productKey deve ser uma chave de produto válida.',
};

const DateText = (field: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', errorMessage: Msg.date(field), description: 'YYYY-MM-DD' });
const Bps = (field: string) => Type.Integer({ minimum: 0, maximum: 100_000, errorMessage: Msg.bps(field) });
const Rate = (field: string) =>
  Type.Object(
    {
      value: Type.String({ pattern: PERCENT_PATTERN, errorMessage: Msg.percent('value'), description: 'percent as a decimal string: "1.99"' }),
      period: Type.Union([Type.Literal('MONTH'), Type.Literal('YEAR')], { errorMessage: Msg.period }),
    },
    { errorMessage: Msg.rate(field) },
  );
const Nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);

const FeeSchema = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 64 }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  amountCents: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000_000 })),
  percentBps: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
  financed: Type.Boolean({ default: false }),
});

export const SimulateBody = Type.Object({
  productKey: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      errorMessage: Msg.productKey,
      description: "price with this catalog product's pricing (rate, model, fees and IOF fields of the body are then ignored)",
    }),
  ),
  amountCents: Type.Integer({ minimum: 1, maximum: 100_000_000_000, errorMessage: Msg.amount }),
  termMonths: Type.Integer({ minimum: 1, maximum: 600, errorMessage: Msg.term }),
  entityType: Type.Union([Type.Literal('COMPANY'), Type.Literal('PERSON')], { errorMessage: Msg.entityType }),
  simplesNacional: Type.Optional(Type.Boolean({ description: 'a COMPANY under Simples Nacional: the reduced IOF rate up to R$ 30,000' })),
  releaseDate: DateText('releaseDate'),
  firstDueDate: DateText('firstDueDate'),
  model: Type.Optional(Type.Union([Type.Literal('PRICE'), Type.Literal('SAC')], { errorMessage: Msg.model })),
  rateBpsYear: Type.Optional(Bps('rateBpsYear')),
  rate: Type.Optional(Rate('rate')),
  index: Type.Optional(Type.Union([Type.Literal('CDI'), Type.Literal('SELIC'), Type.Literal('IPCA')], { errorMessage: Msg.index })),
  spreadBpsYear: Type.Optional(Bps('spreadBpsYear')),
  spread: Type.Optional(Rate('spread')),
  fees: Type.Optional(Type.Array(FeeSchema, { maxItems: 20 })),
  iof: Type.Optional(Type.Object({ applies: Type.Optional(Type.Boolean()), financed: Type.Optional(Type.Boolean()) })),
  moveDueDatesToBusinessDay: Type.Optional(Type.Boolean()),
});

const InstallmentSchema = Type.Object({
  number: Type.Integer(),
  dueDate: Type.String(),
  principalCents: Type.Integer(),
  interestCents: Type.Integer(),
  iofCents: Type.Integer(),
  balanceCents: Type.Integer(),
  amountCents: Type.Integer(),
});

export const SimulationSchema = Type.Object({
  productKey: Nullable(Type.String()),
  model: Type.Union([Type.Literal('PRICE'), Type.Literal('SAC')]),
  rate: Type.Object({ monthlyPercent: Type.String(), yearlyPercent: Type.String(), rateBpsYear: Type.Integer() }),
  index: Nullable(Type.Object({ key: Type.String(), percentYear: Type.String(), date: Type.String() })),
  iof: Nullable(Type.Object({ bracket: Type.String(), dailyPercent: Type.String(), additionalPercent: Type.String(), source: Type.String(), totalCents: Type.Integer(), financed: Type.Boolean() })),
  fees: Type.Array(Type.Object({ key: Type.String(), name: Type.String(), amountCents: Type.Integer(), financed: Type.Boolean() })),
  installments: Type.Array(InstallmentSchema),
  totals: Type.Object({
    requestedCents: Type.Integer(),
    principalCents: Type.Integer(),
    netReleasedCents: Type.Integer(),
    interestCents: Type.Integer(),
    iofCents: Type.Integer(),
    feesCents: Type.Integer(),
    installmentsCents: Type.Integer(),
  }),
  cet: Type.Object({ yearPercent: Type.String(), monthPercent: Type.String() }),
});

export const IndexSchema = Type.Object({
  key: Type.Union(MARKET_INDEX_KEYS.map((k) => Type.Literal(k))),
  percentYear: Type.String({ description: 'yearly percent as a decimal string' }),
  date: Type.String(),
  source: Type.Union([Type.Literal('ORGANIZATION'), Type.Literal('BCB_SGS'), Type.Literal('DEFAULT')]),
  updatedAt: Nullable(Type.String()),
});

export const IndexParams = Type.Object({
  key: Type.Union(
    MARKET_INDEX_KEYS.map((k) => Type.Literal(k)),
    { errorMessage: Msg.index },
  ),
});
export const IndexBody = Type.Object({
  percentYear: Type.String({ pattern: PERCENT_PATTERN, errorMessage: Msg.percent('percentYear') }),
  date: DateText('date'),
});

export const ModelsSchema = Type.Object({
  models: Type.Array(Type.Object({ key: Type.String(), name: Type.String(), description: Type.String() })),
  entityTypes: Type.Array(Type.String()),
  indexes: Type.Array(Type.String()),
  iofRates: Type.Array(Type.Object({ bracket: Type.String(), from: Type.String(), dailyPercent: Type.String(), additionalPercent: Type.String(), source: Type.String() })),
});

export const MODEL_DESCRIPTIONS = { PRICE: 'Tabela Price: parcelas iguais; juros decrescentes, amortização crescente.', SAC: 'SAC: amortização constante; parcelas decrescentes.' };

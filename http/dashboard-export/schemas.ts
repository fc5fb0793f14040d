import Type, { type TSchema } from 'typebox';
import { MAX_EXPORT_ROWS } from '../../domain/dashboard-export/rows.ts';
import { DashboardPeriodSchema } from '../dashboard/filters.ts';

/** Ours: the spec names no format parameter. */
export const FORMAT_MESSAGE = 'O formato informado não é válido: use json, csv ou xlsx.';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Instant = Type.String({ format: 'date-time' });
const Cents = Nullable(Type.Integer({ minimum: 0, description: 'cents' }));

export const ExportRowSchema = Type.Object({
  id: Type.String(),
  createdAt: Instant,
  document: Type.String(),
  name: Type.String(),
  entityType: Type.Union([Type.Literal('COMPANY'), Type.Literal('PERSON')]),
  origin: Type.String({ description: 'CHANNEL for proposals of the correspondent channel' }),
  correspondentId: Nullable(Type.String()),
  agentId: Nullable(Type.String()),
  productKey: Type.String(),
  productName: Type.String(),
  portfolioName: Nullable(Type.String()),
  status: Type.String(),
  requestedCents: { ...Cents, description: "the product's fixed value, else the requested amount" },
  firmCents: { ...Cents, description: 'approved value of the last firm offer' },
  chosenCents: { ...Cents, description: 'the last chosen value' },
  decision: Nullable(Type.Union([Type.Literal('APPROVED'), Type.Literal('REJECTED')], { description: 'the latest final decision' })),
  rejectionStep: Nullable(Type.String()),
  analyzedAt: { ...Nullable(Instant), description: 'first' },
  preApprovedAt: { ...Nullable(Instant), description: 'first' },
  firmOfferAt: { ...Nullable(Instant), description: 'first' },
  chosenAt: { ...Nullable(Instant), description: 'last' },
  issuedAt: Nullable(Instant),
  statusChangedAt: Instant,
});

export const ExportRowsSchema = Type.Object({
  ...DashboardPeriodSchema,
  rows: Type.Array(ExportRowSchema, { description: 'newest first' }),
  truncated: Type.Boolean({ description: 'true when more proposals matched than maxRows' }),
  maxRows: Type.Integer({ const: MAX_EXPORT_ROWS }),
});

import Type, { type Static, type TSchema } from 'typebox';
import { POINTS_BOUNDS, SCORE_BOUNDS, type PolicyContent } from '../../domain/credit-policy/policy.ts';
import { SECTION_ERROR_CODES, SOURCE_SECTION_TYPES } from '../../domain/report/sections.ts';
import type { DocumentType } from '../../domain/shared/document.ts';
import { ObjectIdSchema } from '../route.ts';
import { MAX_INT32 } from '../validation.ts';
import { CommitteeBody, CommitteeSchema, committeeOf, ParecerEnabledBody } from './committee-schemas.ts';

const Slug = Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', description: 'stable id: letters, digits, _ . - (generated from the position when absent)' });
const Logic = Type.Unknown({ description: 'JSON Logic (jsonlogic.com); reads <SECTION_TYPE>.<field>, inputs.<key>, document.type' });
const Score = (options: { default?: number } = {}) => Type.Integer({ minimum: SCORE_BOUNDS.min, maximum: SCORE_BOUNDS.max, ...options });
const Decisions = Type.Union([Type.Literal('DENIED'), Type.Literal('MANUAL_ANALYSIS'), Type.Literal('IGNORE')]);

const Rule = Type.Object({
  id: Type.Optional(Slug),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  condition: Logic,
  onFail: Type.Union([Type.Literal('DENY'), Type.Literal('MANUAL_ANALYSIS')]),
});

const Factor = Type.Object({
  id: Type.Optional(Slug),
  label: Type.String({ minLength: 1, maxLength: 200 }),
  when: Type.Optional(Logic),
  points: Type.Union(
    [Type.Number({ minimum: POINTS_BOUNDS.min, maximum: POINTS_BOUNDS.max }), Type.Record(Type.String(), Type.Unknown(), { description: 'JSON Logic giving the points (jsonlogic.com)' })],
    { description: 'a number, or JSON Logic giving one' },
  ),
});

export const PolicyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  documentType: Type.String({
    pattern: '^(?:[cC][pP][fF]|[cC][nN][pP][jJ])$',
    errorMessage: 'documentType must be one of the following values: cpf, cnpj',
  }),
  sections: Type.Array(Type.Enum(SOURCE_SECTION_TYPES), { minItems: 1, maxItems: SOURCE_SECTION_TYPES.length }),
  score: Type.Object({
    base: Score(),
    min: Score({ default: 0 }),
    max: Score({ default: 1000 }),
    approveFrom: Score(),
    denyBelow: Score(),
    factors: Type.Array(Factor, { default: [], maxItems: 200 }),
  }),
  groups: Type.Array(Type.Object({ id: Type.Optional(Slug), name: Type.String({ minLength: 1, maxLength: 200 }), rules: Type.Array(Rule, { maxItems: 200 }) }), {
    default: [],
    maxItems: 50,
  }),
  sourceErrors: Type.Optional(
    Type.Object({
      INTEGRATION_TIMEOUT: Type.Optional(Decisions),
      INTEGRATION_UNAVAILABLE: Type.Optional(Decisions),
      INTEGRATION_NO_DATA: Type.Optional(Decisions),
      INTEGRATION_INVALID_DOCUMENT: Type.Optional(Decisions),
    }),
  ),
  parecerEnabled: ParecerEnabledBody,
  committee: Type.Optional(CommitteeBody),
});
export type PolicyBody = Static<typeof PolicyBody>;

/** The body as a complete policy: ids from positions, absent failure statuses as MANUAL_ANALYSIS. */
export function contentOf(body: PolicyBody): PolicyContent {
  const sourceErrors = Object.fromEntries(SECTION_ERROR_CODES.map((code) => [code, body.sourceErrors?.[code] ?? 'MANUAL_ANALYSIS'])) as PolicyContent['sourceErrors'];
  return {
    name: body.name.trim(),
    description: body.description ?? null,
    documentType: body.documentType.toLowerCase() as DocumentType,
    sections: body.sections as PolicyContent['sections'],
    score: {
      base: body.score.base,
      min: body.score.min,
      max: body.score.max,
      approveFrom: body.score.approveFrom,
      denyBelow: body.score.denyBelow,
      factors: body.score.factors.map((f, i) => ({ id: f.id ?? `f${i + 1}`, label: f.label, when: f.when ?? null, points: f.points })),
    },
    groups: body.groups.map((g, i) => {
      const groupId = g.id ?? `g${i + 1}`;
      return {
        id: groupId,
        name: g.name,
        rules: g.rules.map((r, j) => ({ id: r.id ?? `${groupId}.r${j + 1}`, name: r.name, description: r.description ?? null, condition: r.condition, onFail: r.onFail })),
      };
    }),
    sourceErrors,
    parecerEnabled: body.parecerEnabled,
    ...(body.committee ? { committee: committeeOf(body.committee) } : {}),
  };
}

const Nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

export const PolicySchema = Type.Object(
  {
    id: Type.String(),
    organizationId: Type.String(),
    version: Type.Integer(),
    status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('ARCHIVED')]),
    name: Type.String(),
    description: Nullable(Type.String()),
    documentType: Type.Union([Type.Literal('cpf'), Type.Literal('cnpj')]),
    sections: Type.Array(Type.Enum(SOURCE_SECTION_TYPES)),
    score: Type.Object({
      base: Type.Integer(),
      min: Type.Integer(),
      max: Type.Integer(),
      approveFrom: Type.Integer(),
      denyBelow: Type.Integer(),
      factors: Type.Array(Type.Object({ id: Type.String(), label: Type.String(), when: Logic, points: Type.Unknown({ description: 'a number, or JSON Logic giving one' }) })),
    }),
    groups: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        rules: Type.Array(
          Type.Object({ id: Type.String(), name: Type.String(), description: Nullable(Type.String()), condition: Logic, onFail: Type.Union([Type.Literal('DENY'), Type.Literal('MANUAL_ANALYSIS')]) }),
        ),
      }),
    ),
    sourceErrors: Type.Object(Object.fromEntries(SECTION_ERROR_CODES.map((code) => [code, Decisions]))),
    parecerEnabled: Type.Boolean(),
    committee: Type.Optional(CommitteeSchema),
    createdBy: Type.String({ description: 'user id' }),
    createdAt: Type.String({ format: 'date-time', description: 'when the policy was first created' }),
    versionCreatedAt: Type.String({ format: 'date-time', description: 'when this version was' }),
    updatedAt: DateTime,
    archivedAt: Nullable(DateTime),
  },
  { description: 'a policy version: the whole record (docs/reports.md)' },
);

export const PolicyParams = Type.Object({ id: ObjectIdSchema() });
export const PolicyVersionParams = Type.Object({ id: ObjectIdSchema(), version: Type.Integer({ minimum: 1, maximum: MAX_INT32 }) });
export const PolicyListQuery = Type.Object({
  documentType: Type.Optional(Type.Union([Type.Literal('cpf'), Type.Literal('cnpj')])),
  includeArchived: Type.Boolean({ default: false }),
});

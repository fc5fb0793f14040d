import Type from 'typebox';
import { identityEvaluation } from '../../../domain/collection/kinds/identity.ts';
import { Messages } from '../../../domain/shared/messages.ts';
import { COLLECTION_IDENTITY_PROJECTION, IDENTITY_ORIGINS } from '../../../projections/collection/identity-projection.ts';
import { IDENTITY_WINDOW, listIdentityValidations } from '../../../projections/collection/identity-queries.ts';
import type { Gate } from '../../gates.ts';
import { route, type RouteSpec } from '../../route.ts';
import { IdentityCheckSchema, IDENTITY_VERDICTS } from './identity.ts';

const hidden = { status: 404, message: Messages.resourceNotFound } as const;
/** The collections' callers, and the organization must have contracted kyc (kycEnabled): scrEnabled alone is 404. */
const identityValidationsGate: Gate = {
  modules: ['kyc'],
  permissions: ['can-use-registry-api', 'can-generate-report'],
  moduleDenied: hidden,
  permissionDenied: hidden,
};

const MAX_INT32 = 2_147_483_647;
const Query = Type.Object({
  origin: Type.Optional(
    Type.Enum(IDENTITY_ORIGINS, {
      description: 'COLLECTION: IDENTITY item; SIGNATURE: check before signing (SIGNATURE_AND_IDENTITY); PUBLIC_FORM: IDENTITY item of a collection opened by the public form',
    }),
  ),
  verdict: Type.Optional(Type.Enum(IDENTITY_VERDICTS)),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'completed at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'completed at or before' })),
  skip: Type.Integer({ minimum: 0, maximum: MAX_INT32, default: 0 }),
  take: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

const Counts = <K extends readonly string[]>(keys: K) => Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Integer()])) as Record<K[number], ReturnType<typeof Type.Integer>>);
const ValidationSchema = Type.Object({
  ...IdentityCheckSchema.properties,
  origin: Type.Enum(IDENTITY_ORIGINS),
  collectionId: Type.String(),
  itemId: Type.String(),
  registryId: Type.String(),
  document: Type.String({ description: "the subject's CPF/CNPJ, always masked (***.456.789-**); *** once erased" }),
});
const ListSchema = Type.Object({
  total: Type.Integer({ description: 'verifications in the window matching the filters' }),
  skip: Type.Integer(),
  take: Type.Integer(),
  items: Type.Array(ValidationSchema),
  summary: Type.Object({
    verifications: Type.Integer({ description: 'verifications in the window (the verdict filter aside)' }),
    byVerdict: Counts(IDENTITY_VERDICTS),
    byOrigin: Counts(IDENTITY_ORIGINS),
    window: Type.Object({
      applied: Type.Boolean({ description: `true when an origin had more than ${IDENTITY_WINDOW} verifications in the period: only its most recent count` }),
      size: Type.Integer(),
      origins: Type.Array(Type.Enum(IDENTITY_ORIGINS), { description: 'origins the window cut' }),
    }),
  }),
});

export const identityListingRoutes: RouteSpec[] = [
  route({
    method: 'get',
    path: '/v1/identity-validations',
    summary: `Identity checks of the organization, newest first, with counts over the ${IDENTITY_WINDOW} most recent of each origin`,
    description:
      'Needs kycEnabled (an organization with only scrEnabled: 404). Documents always masked; never images nor the provider raw return. The period and origin filters choose the verifications, the window keeps the most recent of each origin, then the verdict filter applies to total and items; summary counts the window (docs/identity-checks.md).',
    gate: identityValidationsGate,
    query: Query,
    responses: { 200: ListSchema },
    reads: [COLLECTION_IDENTITY_PROJECTION],
    async handle({ app, principal, query }) {
      const page = await listIdentityValidations(app.db, principal.organizationId, query);
      return { total: page.total, skip: query.skip, take: query.take, items: page.items.map((v) => ({ ...v, evaluation: identityEvaluation(v) })), summary: page.summary };
    },
  }),
];

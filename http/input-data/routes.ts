import Type from 'typebox';
import { inputCatalog } from '../../application/input-data/catalog.ts';
import { proposalInputData } from '../../application/input-data/proposal.ts';
import { TEMPLATE_SLUG_PATTERN } from '../../domain/collection-template/content.ts';
import { PRODUCT_KEY_PATTERN } from '../../domain/catalog/validate.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { Gates } from '../gates.ts';
import { ObjectIdSchema, route, type RouteTable } from '../route.ts';

const Source = Type.Union([Type.Literal('PROPOSAL'), Type.Literal('FORM'), Type.Literal('DOCUMENT'), Type.Literal('VERIFICATION')]);
const InputFieldProperties = {
  key: Type.String({ description: 'proposta.*, form.<template>.<field>, doc.<type>.<field> (lists as _qtd, numeric lists also _soma) or kyc.*' }),
  label: Type.String({ description: 'Portuguese display name' }),
  type: Type.Union([Type.Literal('NUMBER'), Type.Literal('STRING'), Type.Literal('BOOLEAN'), Type.Literal('DATE')]),
  source: Source,
  group: Type.Union([Type.Literal('Proposta'), Type.Literal('Formulário'), Type.Literal('Documentos'), Type.Literal('Verificações')]),
};
const InputFieldSchema = Type.Object(InputFieldProperties);
const InputValueSchema = Type.Object({
  ...InputFieldProperties,
  value: Type.Union([Type.Number(), Type.String(), Type.Boolean(), Type.Null()], { description: 'null when it cannot be read' }),
  sourceId: Type.String({ description: 'the proposal or the collection it came from' }),
});

const InputDataSchema = Type.Object({
  version: Type.Integer({ description: 'version of the assembly rules' }),
  asOf: Type.String({ format: 'date-time', description: 'when it was assembled (at this call)' }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the canonical JSON (RFC 8785) of {version, values by key}: a changed hash means a changed value' }),
  proposalId: Type.String(),
  collectionIds: Type.Array(Type.String(), { description: 'completed collections that gave at least one field, most recently completed first' }),
  fields: Type.Array(InputValueSchema),
});

// The spec's texts for a malformed filter; the same texts answer a well-formed one the organization does not have.
const CatalogQuery = Type.Object({
  templateSlug: Type.Optional(
    Type.String({ pattern: TEMPLATE_SLUG_PATTERN, errorMessage: Messages.invalidTemplate, description: "letters, digits, hyphen, underscore, up to 120: only this template's form keys" }),
  ),
  productKey: Type.Optional(Type.String({ pattern: PRODUCT_KEY_PATTERN.source, errorMessage: Messages.invalidProduct, description: 'only the form keys of the templates the product asks for' })),
});

export const inputDataRoutes: RouteTable = {
  module: 'input-data',
  description: 'Input data: the keys policy rules read as inputs.<key>, and their values for one proposal',
  routes: [
    route({
      method: 'get',
      path: '/v1/input-data/catalog',
      summary: "The input data keys the organization can have (proposal, its templates' forms, documents it extracts, verifications)",
      gate: Gates.inputData,
      query: CatalogQuery,
      responses: { 200: Type.Array(InputFieldSchema) },
      errors: [502],
      async handle({ app, principal, query }) {
        return inputCatalog(app, principal.organizationId, query);
      },
    }),
    route({
      method: 'get',
      path: '/v1/proposals/:id/input-data',
      summary: "A proposal's input data, assembled now from the proposal and its holder's completed collections",
      gate: Gates.inputData,
      params: Type.Object({ id: ObjectIdSchema() }),
      responses: { 200: InputDataSchema },
      errors: [502],
      async handle({ app, principal, params }) {
        return proposalInputData(app, principal.organizationId, params.id);
      },
    }),
  ],
};

import Type, { type TSchema } from 'typebox';
import { DOCUMENT_VERDICTS, EXPECTED_DOCUMENT_TYPES } from '../../domain/collection/enums.ts';
import { ENTITY_TYPES, KYC_STATUSES } from '../../domain/registry/events.ts';
import { ProvenanceSchema } from '../provenance.ts';
import { ObjectIdSchema } from '../route.ts';
import { MAX_INT32 } from '../validation.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const Enum = <T extends string>(values: readonly T[], description?: string) => Type.Enum(values as T[], { description });
const OptionalText = (max: number) => Type.Optional(Nullable(Type.String({ maxLength: max })));

const DOCUMENT_STATUSES = ['RECEIVED', 'PROCESSING', 'VALIDATED', 'REJECTED', 'MANUAL_REVIEW', 'FAILED'] as const;
const ExpectedType = Enum(EXPECTED_DOCUMENT_TYPES, 'one of the contract expected document types');

const Contact = Type.Object({
  name: OptionalText(200),
  email: OptionalText(320),
  phone: Type.Optional(Nullable(Type.String({ maxLength: 32, description: 'kept in E.164; without a country code taken as Brazilian' }))),
});
const ContactView = Type.Object({ name: Nullable(Type.String()), email: Nullable(Type.String()), phone: Nullable(Type.String()) });

const BasicData = Type.Object({
  tradeName: OptionalText(200),
  birthOrFoundationDate: Type.Optional(Nullable(Type.String({ format: 'date', description: 'YYYY-MM-DD: birth (PERSON) or foundation (COMPANY)' }))),
  address: OptionalText(300),
  city: OptionalText(120),
  state: Type.Optional(Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'UF' }))),
  zipCode: Type.Optional(Nullable(Type.String({ pattern: '^\\d{8}$', description: 'CEP, 8 digits' }))),
});

export const RegistryParams = Type.Object({ id: ObjectIdSchema() });
export const DocumentParams = Type.Object({ id: ObjectIdSchema(), documentId: ObjectIdSchema() });

export const CreateRegistryBody = Type.Object({
  document: Type.String({ minLength: 1, maxLength: 30, description: 'CPF (PERSON) or CNPJ (COMPANY), masked or not' }),
  name: Text(200),
  entityType: Enum(ENTITY_TYPES),
  contacts: Type.Optional(Type.Array(Contact, { maxItems: 20 })),
  basicData: Type.Optional(BasicData),
});

/** Document and entity type never change: a registry is its CPF/CNPJ. Absent fields stay as they are. */
export const UpdateRegistryBody = Type.Object({
  name: Type.Optional(Text(200)),
  contacts: Type.Optional(Type.Array(Contact, { maxItems: 20 })),
  basicData: Type.Optional(BasicData),
});

export const RegistryListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200, description: 'part of the name, or the first digits of the CPF/CNPJ' })),
  entityType: Type.Optional(Enum(ENTITY_TYPES)),
  kycStatus: Type.Optional(Enum(KYC_STATUSES)),
  skip: Type.Integer({ minimum: 0, maximum: MAX_INT32, default: 0 }),
  take: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

export const UploadDocumentBody = Type.Object({ expectedType: Type.Optional(ExpectedType) });
export const ReprocessBody = Type.Object({ forceType: Type.Optional(Nullable(ExpectedType)) });
export const DecisionBody = Type.Object({ verdict: Enum(DOCUMENT_VERDICTS), comment: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))) });

const Requirement = Type.Object({ types: Type.Array(Type.String(), { description: 'any of these meets it' }), met: Type.Boolean() });

export const RegistrySchema = Type.Object({
  id: Type.String(),
  document: Type.String({ description: 'digits' }),
  name: Type.String(),
  entityType: Enum(ENTITY_TYPES),
  kycStatus: Enum(KYC_STATUSES),
  completeness: Type.Integer({ minimum: 0, maximum: 100, description: 'share of the required documents validated and valid (docs/registry.md)' }),
  contacts: Type.Array(ContactView),
  basicData: Type.Record(Type.String(), Type.Unknown()),
  selfDeclared: Type.Boolean({ description: "true when a public form's intake created it: everything in it is what an anonymous visitor declared (docs/public-form.md)" }),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export const RegistryDetailSchema = Type.Intersect([RegistrySchema, Type.Object({ requirements: Type.Array(Requirement) })]);
export const RegistryListSchema = Type.Object({ total: Type.Integer(), items: Type.Array(RegistrySchema) });

export const DocumentSchema = Type.Object({
  id: Type.String(),
  registryId: Type.String(),
  fileName: Type.String(),
  mimeType: Type.String({ description: 'sniffed from the bytes' }),
  sizeBytes: Type.Integer(),
  sha256: Type.String(),
  expectedType: Nullable(Type.String()),
  status: Enum(DOCUMENT_STATUSES),
  stage: Nullable(Type.String()),
  source: Nullable(Type.Object({ collectionId: Type.String(), itemId: Type.String(), recipientId: Nullable(Type.String()) })),
  opinion: Type.Object({
    type: Nullable(Type.String()),
    verdict: Nullable(Enum(DOCUMENT_VERDICTS)),
    score: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    reason: Nullable(Type.String()),
    attempt: Type.Integer(),
    status: Enum(DOCUMENT_STATUSES),
    validUntil: Nullable(Type.String({ format: 'date' })),
    provenance: Type.Union([ProvenanceSchema, Type.Null()], {
      description: "the analyser that gave the opinion (offline-keywords, offline-unread, the vision model's name) and whether it is a sandbox result; null: no opinion yet",
    }),
  }),
  decision: Nullable(Type.Object({ verdict: Enum(DOCUMENT_VERDICTS), comment: Nullable(Type.String()), decidedByUserId: Type.String() })),
  createdAt: DateTime,
  updatedAt: DateTime,
});

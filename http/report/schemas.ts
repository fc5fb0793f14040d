import Type from 'typebox';
import { ALL_SECTION_TYPES, SECTION_ERROR_CODES } from '../../domain/report/sections.ts';
import { ObjectIdSchema } from '../route.ts';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** Ids in bodies: presence first (class-validator style), then the form, checked by the handler. */
export const BodyId = Type.String({ minLength: 1 });

export const CreateReportBody = Type.Object({
  document: Type.String({ minLength: 1, description: 'CPF (11 digits) or CNPJ (14 digits), masked or not' }),
  type: Type.String({
    pattern: '^(?:[cC][pP][fF]|[cC][nN][pP][jJ])$',
    errorMessage: 'type must be one of the following values: cpf, cnpj',
    description: 'cpf or cnpj (capitals accepted)',
  }),
  policyId: Type.String({ minLength: 1, description: 'from GET /credit-policy/policy' }),
  externalId: Type.Optional(Nullable(Type.String({ maxLength: 200, description: "the caller's own id; returned in the report and its webhooks" }))),
});

export const StatusSchema = Type.Object({ id: Type.Integer(), value: Type.String(), title: Type.String() });

export const CreatedReportSchema = Type.Object({
  id: Type.String(),
  status: StatusSchema,
  policyStatus: Type.String(),
  policyId: Type.String(),
  policyVersion: Type.Integer(),
  policyName: Type.String(),
  document: Type.String(),
  type: Type.String(),
  externalId: Nullable(Type.String()),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const SectionErrorSchema = Type.Object({
  integrationId: Type.String(),
  integrationType: Type.String(),
  message: Type.String(),
  code: Type.Enum(SECTION_ERROR_CODES),
  occurredAt: DateTime,
});

export const SectionSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.Object({ id: Type.Integer(), title: Type.String(), value: Type.Enum(ALL_SECTION_TYPES) }),
    parecerStatus: Nullable(Type.String()),
    parecerScore: Nullable(Type.Number()),
    parecerRiskLevel: Nullable(Type.String()),
    sectionDetails: Type.Optional(Type.Unknown({ description: 'normalized data of the section (docs/reports.md); absent with details=false' })),
    selectedIntegrations: Type.Array(Type.String()),
    errors: Type.Array(SectionErrorSchema),
    integrationCount: Type.Integer(),
    status: Type.String({ description: 'PENDING, DONE or ERROR' }),
  },
  { additionalProperties: true },
);

export const ReportSchema = Type.Object(
  {
    id: Type.String(),
    document: Type.String(),
    policyStatus: Type.String(),
    status: StatusSchema,
    reportProgress: Type.Object({ isFinalized: Type.Boolean(), finalizedAt: Nullable(DateTime), steps: Type.Array(Type.Unknown()) }),
    sections: Type.Array(SectionSchema),
    exportUrl: Nullable(Type.String()),
    exportExcelUrl: Nullable(Type.String()),
    externalId: Nullable(Type.String()),
  },
  { additionalProperties: true, description: 'every Report field of the spec, plus type and score' },
);

export const ReportParams = Type.Object({ id: ObjectIdSchema() });

export const ReportQuery = Type.Object({
  tabType: Type.Optional(Type.String({ description: 'section type(s), comma separated: only those sections' })),
  details: Type.Boolean({ default: true, description: 'false: sections without sectionDetails' }),
});

export const SectionTypeParams = Type.Object({
  id: ObjectIdSchema(),
  sectionType: Type.String({ minLength: 1 }),
});

export const ManualAnalysisBody = Type.Object({
  id: BodyId,
  approved: Type.Boolean(),
  commentary: Type.String({ minLength: 1, maxLength: 10_000 }),
});

export const ManualAnalysisReply = Type.Object({
  id: Type.String(),
  analystId: Nullable(Type.String()),
  analystName: Nullable(Type.String()),
  policyStatus: Type.String(),
  commentary: Nullable(Type.String()),
  status: StatusSchema,
  updatedAt: DateTime,
});

export const ExportBody = Type.Object({
  format: Type.Union([Type.Literal('pdf'), Type.Literal('xlsx')]),
});

export const ExportReply = Type.Object({
  id: Type.String(),
  format: Type.String(),
  url: Type.String({ description: 'signed link, no bearer needed, valid until expiresAt' }),
  expiresAt: DateTime,
  fileName: Type.String(),
  sizeBytes: Type.Integer(),
});

export const DownloadParams = Type.Object({ blobId: ObjectIdSchema() });
// Expiries are Unix seconds; the last second of year 9999 is as far as a Date goes in ISO 8601.
export const DownloadQuery = Type.Object({ expires: Type.Integer({ minimum: 0, maximum: 253_402_300_799 }), signature: Type.String({ minLength: 1 }) });

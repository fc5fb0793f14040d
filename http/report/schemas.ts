import Type from 'typebox';
import { ALL_SECTION_TYPES, SECTION_ERROR_CODES } from '../../domain/report/sections.ts';
import { REPORT_STATUSES } from '../../domain/report/statuses.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { ObjectIdSchema } from '../route.ts';
import { ProvenanceSchema } from '../provenance.ts';
import { CommitteeDecisionSchema, CommitteeResultSchema, CommitteeStatusSchema } from '../committee/schemas.ts';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, options?: { description: string }) => Type.Union([schema, Type.Null()], options);

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

export const CreatedReportSchema = Type.Object(
  {
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
  },
  {
    examples: [
      {
        id: '6553f2a0a1b2c3d4e5f60720',
        status: { id: 1, value: 'PENDING', title: 'Não iniciado' },
        policyStatus: 'PENDING',
        policyId: '6553f1f0a1b2c3d4e5f60719',
        policyVersion: 1,
        policyName: 'Política PF padrão',
        document: '12345678909',
        type: 'cpf',
        externalId: 'pedido-42',
        createdAt: '2026-11-23T10:00:00.000Z',
        updatedAt: '2026-11-23T10:00:00.000Z',
      },
    ],
  },
);

export const SectionErrorSchema = Type.Object({
  integrationId: Type.String(),
  integrationType: Type.String(),
  message: Type.String(),
  code: Type.Enum(SECTION_ERROR_CODES),
  occurredAt: DateTime,
});

const SectionTypeObject = Type.Object({ id: Type.Integer(), title: Type.String(), value: Type.Enum(ALL_SECTION_TYPES) });

export const SectionSchema = Type.Object({
  id: Type.String(),
  type: SectionTypeObject,
  parecerStatus: Nullable(Type.String()),
  parecerScore: Nullable(Type.Number()),
  parecerRiskLevel: Nullable(Type.String()),
  sectionDetails: Type.Optional(Type.Unknown({ description: 'normalized data of the section (docs/reports.md); absent with details=false' })),
  selectedIntegrations: Type.Array(Type.String()),
  errors: Type.Array(SectionErrorSchema),
  integrationCount: Type.Integer(),
  status: Type.Union([Type.Literal('PENDING'), Type.Literal('DONE'), Type.Literal('ERROR')]),
  createdAt: DateTime,
  updatedAt: DateTime,
  finishedAt: Nullable(DateTime),
  provenance: Nullable(ProvenanceSchema, { description: 'which source produced the section and whether it is a sandbox result; null while PENDING' }),
  parecerProvenance: Nullable(ProvenanceSchema, { description: "the opinion's model and whether it is a sandbox result (the offline model, or an opinion on sandbox data); null: no opinion" }),
});

const StepSchema = Type.Object({
  type: Type.Enum(ALL_SECTION_TYPES),
  title: Type.String(),
  status: Type.Union([Type.Literal('PENDING'), Type.Literal('DONE'), Type.Literal('ERROR'), Type.Literal('SKIPPED')]),
  finishedAt: Nullable(DateTime),
});

const ExportFailure = Type.Object({ reason: Type.String(), failedAt: DateTime });

export const ReportSchema = Type.Object(
  {
    id: Type.String(),
    createdAt: DateTime,
    updatedAt: DateTime,
    document: Type.String({ description: 'digits' }),
    type: Type.Union([Type.Literal('cpf'), Type.Literal('cnpj')]),
    yearMonthDay: Type.Integer({ description: 'YYYYMMDD' }),
    policyId: Type.String(),
    policyVersion: Type.Integer(),
    policyName: Type.String(),
    organizationId: Type.String(),
    userId: Type.String(),
    commentary: Nullable(Type.String()),
    previousAnalystId: Nullable(Type.String()),
    analystId: Nullable(Type.String()),
    analystName: Nullable(Type.String()),
    policyErrorStatusApplied: Nullable(Type.String({ description: 'the decision a source failure imposed, when one did' })),
    policyStatus: Type.String({ description: 'PENDING, APPROVED, DENIED, MANUAL_ANALYSIS' }),
    score: Nullable(Type.Number()),
    status: StatusSchema,
    reportProgress: Type.Object({ isFinalized: Type.Boolean(), finalizedAt: Nullable(DateTime), steps: Type.Array(StepSchema) }),
    sandboxDecision: Type.Boolean({ description: "true when the report's current decision is the committee's taken on the offline model (a sandbox result, never a real one)" }),
    ranWithoutSCRReason: Nullable(Type.String()),
    sections: Type.Array(SectionSchema),
    product: Nullable(
      Type.Object(
        { id: Type.String(), key: Type.String(), name: Type.String() },
        { description: "the product of the proposal the report belongs to (run from POST /v1/proposals/{id}/run or a pipeline's report step); null for a report of no proposal" },
      ),
    ),
    verified: Type.Boolean(),
    exportUrl: Nullable(Type.String({ description: 'signed link to the PDF, valid DOWNLOAD_URL_TTL_SECONDS from this reply' })),
    exportExcelUrl: Nullable(Type.String({ description: 'signed link to the spreadsheet' })),
    exportErrors: Type.Object({ pdf: Type.Optional(ExportFailure), xlsx: Type.Optional(ExportFailure) }, { description: 'last failed export of each format' }),
    parecerEnabled: Type.Boolean(),
    committeeStatus: CommitteeStatusSchema,
    committeeDecision: CommitteeDecisionSchema,
    committeeResult: Nullable(CommitteeResultSchema),
    integrationTypes: Type.Array(Type.String()),
    externalId: Nullable(Type.String()),
    sandbox: Type.Boolean({ description: 'true when the report holds a sandbox result (a section made up by a sandbox source): nothing in it is real' }),
  },
  { description: 'every Report field of the spec, plus type and score' },
);

export const SectionDetailSchema = Type.Intersect([
  SectionSchema,
  Type.Object({
    reportId: Type.String(),
    isFinalized: Type.Boolean({ description: 'the section is no longer PENDING' }),
    metadata: Type.Object({
      document: Type.String(),
      type: Type.String(),
      reportStatus: StatusSchema,
      policyStatus: Type.String(),
      reportIsFinalized: Type.Boolean(),
      policyId: Type.String(),
      policyVersion: Type.Integer(),
      externalId: Nullable(Type.String()),
    }),
  }),
]);

export const DecisionSchema = Type.Object({
  kind: Type.Union([Type.Literal('AUTOMATIC'), Type.Literal('MANUAL_ANALYSIS'), Type.Literal('MANUAL_REANALYSIS'), Type.Literal('COMMITTEE')]),
  decidedBy: Type.Union([Type.Literal('POLICY'), Type.Literal('ANALYST'), Type.Literal('COMMITTEE')]),
  decision: Type.String(),
  status: StatusSchema,
  previousStatus: Type.String(),
  score: Nullable(Type.Number()),
  analystId: Nullable(Type.String()),
  analystName: Nullable(Type.String()),
  previousAnalystId: Nullable(Type.String()),
  commentary: Nullable(Type.String()),
  decidedAt: DateTime,
  sandbox: Type.Boolean({ description: 'true for a committee decision taken on the offline model: a sandbox result, never a real one' }),
  provenance: ProvenanceSchema,
});

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
export const DownloadQuery = Type.Object({
  // Unix seconds; the last second of year 9999 is as far as a Date goes in ISO 8601.
  expires: Type.Integer({ minimum: 0, maximum: 253_402_300_799 }),
  /** The DOWNLOAD_URL_KEYS key that signed; absent on links signed before key ids. */
  kid: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  signature: Type.String({ minLength: 1 }),
});

/** Status values as a comma separated list, in any case: a pattern, so its message joins the others. */
const anyCase = (word: string) => word.replace(/[A-Z]/g, (c) => `[${c}${c.toLowerCase()}]`);
const listOf = (values: readonly string[]) => {
  const one = `(?:${values.map(anyCase).join('|')})`;
  return `^\\s*${one}(?:\\s*,\\s*${one})*\\s*$`;
};

/** A day (YYYY-MM-DD) or a date-time, with or without a zone; a space stands for an unencoded `+`. */
export const ISO_INSTANT_PATTERN = '^(\\d{4})-(\\d{2})-(\\d{2})(?:T(\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?(Z|[+ -]\\d{2}:?\\d{2})?)?$';

/** pageSize as the spec's one list (GET /v1/proposals); page is bounded so an offset stays cheap. */
export const REPORT_LIST_PAGE_SIZE = { default: 20, max: 100 } as const;
export const REPORT_LIST_MAX_PAGE = 10_000;

const statuses = Object.keys(REPORT_STATUSES);

export const ReportListQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: REPORT_LIST_MAX_PAGE, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: REPORT_LIST_PAGE_SIZE.max, default: REPORT_LIST_PAGE_SIZE.default }),
  externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'exact match' })),
  document: Type.Optional(Type.String({ minLength: 1, maxLength: 30, description: 'CPF or CNPJ, masked or not' })),
  status: Type.Optional(
    Type.String({
      pattern: listOf(statuses),
      errorMessage: `status must be one of the following values: ${statuses.join(', ')}`,
      description: `comma separated, any case: ${statuses.join(', ')}`,
    }),
  ),
  from: Type.Optional(
    Type.String({ pattern: ISO_INSTANT_PATTERN, errorMessage: Messages.dashboardBadFrom, description: 'created at or after; ISO 8601, a day or time without zone is Brasília time' }),
  ),
  to: Type.Optional(Type.String({ pattern: ISO_INSTANT_PATTERN, errorMessage: Messages.dashboardBadTo, description: 'created before (exclusive); ISO 8601' })),
});

export const ReportSummarySchema = Type.Object({
  ...CreatedReportSchema.properties,
  score: Nullable(Type.Integer()),
  reportProgress: Type.Object({ isFinalized: Type.Boolean(), finalizedAt: Nullable(DateTime) }),
});

export const ReportPageSchema = Type.Object({
  total: Type.Integer({ description: 'reports matching the filters' }),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  nextPage: Nullable(Type.Integer({ description: 'null on the last page' })),
  items: Type.Array(ReportSummarySchema, { description: 'newest first' }),
});

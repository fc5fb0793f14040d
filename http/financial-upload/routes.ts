import type { AppContext } from '../../application/context.ts';
import { rememberWrite, type Caller } from '../../application/read-your-writes.ts';
import { assertCallersReport } from '../../application/financial-upload/commands.ts';
import { completeUploads, presignUploads } from '../../application/financial-upload/direct.ts';
import { FinancialUploadLimits } from '../../application/financial-upload/keys.ts';
import { uploadMultipart } from '../../application/financial-upload/multipart.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { reportStream } from '../../domain/report/events.ts';
import { FinancialUploadMessages as M } from '../../domain/financial-upload/messages.ts';
import { countMessage, fileProblems } from '../../domain/financial-upload/rules.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { REPORT_PROJECTION } from '../../projections/report/projection.ts';
import { findReport } from '../../projections/report/queries.ts';
import { HttpError } from '../errors.ts';
import { Gates } from '../gates.ts';
import { presentReport } from '../report/present.ts';
import { ReportParams, ReportSchema } from '../report/schemas.ts';
import { route, type RouteSpec, type RouteTable } from '../route.ts';
import { receiveFiles } from '../upload.ts';
import { CompleteBody, PresignBody, PresignReply } from './schemas.ts';
import { latestDeliberation } from '../../projections/committee/queries.ts';
import { uploadRoute } from './upload-route.ts';

const checkReport = ({ params, principal, app }: { params: { id: string }; principal: { organizationId: string }; app: AppContext }) => assertCallersReport(app, principal.organizationId, params.id);

/** The report as GET /v2/report answers it, once the projection has the batch (or, for a retry, the stream as it is). */
async function reportReply(app: AppContext, caller: Caller, reportId: string, position: Position | null) {
  rememberWrite(app, caller, position);
  const upTo = position ?? (await app.store.readStream(reportStream(reportId))).at(-1)?.position ?? null;
  // Kept: the contract's reply is the whole report of the read model (sections, statuses), which no command result holds.
  await app.readYourWrites([REPORT_PROJECTION], upTo);
  const found = await findReport(app.db, caller.organizationId, reportId);
  if (!found) throw new DomainError('not_found', M.reportNotFound);
  const committee = await latestDeliberation(app.db, caller.organizationId, reportId);
  return presentReport(found, { details: true, config: app.config, now: app.clock.now(), committee });
}

const SAME_RESULT = 'The reply is the report as GET /v2/report/{id} gives it; 200 means the files were accepted and extraction is queued.';

const routes: RouteSpec[] = [
  route({
    method: 'post',
    path: '/report/:id/financial-tab/presign',
    summary: 'Direct upload of financial statements, step 1: one upload URL per PDF',
    description:
      "The report must be the caller's (404 `Relatório não encontrado` before anything else). files: 1 to 10, name 1 to 255 characters ending in .pdf, " +
      'size the exact byte count (1 to 52428800); 400 `files.N.Apenas arquivos PDF são aceitos.`, `files.N.Arquivo maior que 50MB.`, ' +
      '`files must contain at least 1 elements`, `files must contain no more than 10 elements`. Each URL is valid 15 minutes for one PUT of exactly ' +
      "that size as application/pdf (the service's own PUT /uploads/..., or an S3 presigned PUT with OBJECT_STORE=s3).",
    gate: Gates.financialUpload,
    params: ReportParams,
    before: checkReport,
    body: PresignBody,
    responses: { 200: PresignReply },
    async handle({ app, principal, params, body }) {
      const problems = fileProblems(body.files);
      if (problems.length) throw new HttpError(400, problems.join(','));
      return presignUploads(app, principal, params.id, body.files);
    },
  }),
  route({
    method: 'post',
    path: '/report/:id/financial-tab/complete',
    summary: 'Direct upload of financial statements, step 3: confirm the uploaded keys as one batch',
    description:
      'Checks every key and stored file in order (`Key de upload inválida.`, `Arquivo não encontrado no armazenamento. Refaça o upload.`, ' +
      '`Arquivo maior que 50MB.`, `Arquivo vazio ou corrompido.`, `Apenas arquivos PDF válidos são aceitos.`); all or nothing: on the first failure ' +
      'nothing is recorded and the failed file is deleted (upload it again from presign). Repeating a complete of keys already accepted records ' +
      `nothing new. ${SAME_RESULT}`,
    gate: Gates.financialUpload,
    params: ReportParams,
    before: checkReport,
    body: CompleteBody,
    responses: { 200: ReportSchema },
    errors: [502],
    async handle({ app, principal, params, body }) {
      const { position } = await completeUploads(app, principal, params.id, body.keys);
      return reportReply(app, principal, params.id, position);
    },
  }),
  route({
    method: 'post',
    path: '/report/:id/financial-tab',
    summary: 'Upload financial statements in one multipart call',
    description: `Field files: 1 to 10 PDFs of at most 50 MB. Same rules, texts and result as presign + PUT + complete, recorded as one batch (via MULTIPART). ${SAME_RESULT}`,
    gate: Gates.financialUpload,
    params: ReportParams,
    before: checkReport,
    upload: { field: 'files', maxBytes: FinancialUploadLimits.maxBytes },
    streamedBody: true,
    responses: { 200: ReportSchema },
    errors: [502],
    async handle({ app, principal, params, ctx }) {
      const messages = {
        none: countMessage('files', 0)!,
        tooMany: countMessage('files', FinancialUploadLimits.maxFiles + 1)!,
        tooLarge: (position: number) => `files.${position}.${M.tooLarge}`,
      };
      const limits = { field: 'files', maxBytes: FinancialUploadLimits.maxBytes, maxFiles: FinancialUploadLimits.maxFiles, messages };
      const { position } = await receiveFiles(ctx, limits, (files) =>
        uploadMultipart(
          app,
          principal,
          params.id,
          files.map((file) => ({ fileName: file.fileName, path: file.path, sizeBytes: file.sizeBytes })),
        ),
      );
      return reportReply(app, principal, params.id, position);
    },
  }),
  uploadRoute,
];

export const financialUploadRoutes: RouteTable = {
  module: 'financial-upload',
  description: 'Balance sheet and income statement PDFs of a report: direct upload (presign, PUT, complete) and multipart upload',
  routes,
};

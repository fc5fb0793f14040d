import { exportReport } from '../../application/report/export/commands.ts';
import { DOWNLOAD_PATH, verifyDownload } from '../../application/report/export/signed-url.ts';
import { PostgresBlobStore } from '../../application/blob-store.ts';
import { replyAfterWrite } from '../../application/read-your-writes.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { REPORT_PROJECTION } from '../../projections/report/projection.ts';
import { findReport } from '../../projections/report/queries.ts';
import { HttpError } from '../errors.ts';
import { Gates } from '../gates.ts';
import { route, type RouteSpec } from '../route.ts';
import { exportableOf } from './present.ts';
import { DownloadParams, DownloadQuery, ExportBody, ExportReply, ReportParams } from './schemas.ts';

export const reportExportRoutes: RouteSpec[] = [
  route({
    method: 'post',
    path: '/report/:id/export',
    summary: 'Export a finished report to PDF or spreadsheet',
    description:
      'Makes the file and replies with a signed download link (no bearer needed) valid for DOWNLOAD_URL_TTL_SECONDS; the report then carries ' +
      'exportUrl (pdf) or exportExcelUrl (xlsx) and report.exported is sent. 409 while processing; 502 `Não foi possível exportar o relatório.` ' +
      'when the file could not be made (recorded as a failed export).',
    gate: Gates.reportsRead,
    params: ReportParams,
    body: ExportBody,
    responses: { 200: ExportReply },
    errors: [502],
    // The report's sections and its analyses (a decision recorded a moment ago goes into the file).
    reads: [REPORT_PROJECTION],
    async handle({ app, principal, params, body }) {
      const found = await findReport(app.db, principal.organizationId, params.id);
      if (!found) throw new DomainError('not_found', Messages.reportNotFound);
      if (!found.report.is_finalized) throw new DomainError('conflict', Messages.reportStillProcessing);
      const written = await exportReport(app, principal, exportableOf(found), body.format);
      return replyAfterWrite(app, principal, written, ({ url, expiresAt, fileName, sizeBytes, format }) => ({ id: params.id, format, url, expiresAt, fileName, sizeBytes }));
    },
  }),
  route({
    method: 'get',
    path: `${DOWNLOAD_PATH}/:blobId`,
    summary: 'Download an exported file through its signed link',
    description: 'Public: the signature and expiry in the query are the authorization. 403 `Link de download inválido ou expirado.`',
    auth: false,
    params: DownloadParams,
    query: DownloadQuery,
    files: ['application/pdf', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    errors: [403],
    async handle({ app, params, query }) {
      if (!verifyDownload(app.config, params.blobId, query.expires, query.signature, app.clock.now(), query.kid)) {
        throw new HttpError(403, Messages.downloadLinkInvalid);
      }
      const blob = await new PostgresBlobStore(app.db).get(params.blobId);
      if (!blob) throw new HttpError(404, Messages.recordNotFound);
      return {
        status: 200,
        raw: blob.bytes,
        headers: {
          'content-type': blob.contentType,
          'content-disposition': `attachment; filename="${blob.fileName}"`,
          'cache-control': 'private, no-store',
        },
      };
    },
  }),
];

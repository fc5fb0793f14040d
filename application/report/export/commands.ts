import { reportDecider } from '../../../domain/report/decider.ts';
import { reportStream, type ExportFormat } from '../../../domain/report/events.ts';
import type { Principal } from '../../../domain/identity/access.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { Messages } from '../../../domain/shared/messages.ts';
import { PostgresBlobStore, type BlobStore } from '../../blob-store.ts';
import { handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import type { Position } from '../../../platform/eventstore/port.ts';
import type { ExportableReport, Renderers } from './exportable.ts';
import { freshDownloadUrl } from './signed-url.ts';

/** Loaded on first use: pdfkit and exceljs weigh some 40 MB a process would carry without exporting. */
export const DEFAULT_RENDERERS: Renderers = {
  pdf: async (report, context) => (await import('./render-pdf.ts')).renderPdf(report, context),
  xlsx: async (report, context) => (await import('./render-xlsx.ts')).renderXlsx(report, context),
};

export interface ExportResult {
  format: ExportFormat;
  url: string;
  expiresAt: string;
  fileName: string;
  sizeBytes: number;
  position: Position | null;
}

type Caller = Pick<Principal, 'organizationId' | 'userId'>;

/**
 * Render the report, keep the file, record ReportExported with a signed link. A failure to
 * render or store is recorded as ReportExportFailed (webhook subscribers hear of it too) and
 * answered 502 in the contract's "Não foi possível" style.
 */
export async function exportReport(app: AppContext, caller: Caller, report: ExportableReport, format: ExportFormat, options: { renderers?: Renderers; blobs?: BlobStore } = {}): Promise<ExportResult> {
  const renderers = options.renderers ?? DEFAULT_RENDERERS;
  const blobs = options.blobs ?? new PostgresBlobStore(app.db);
  const stream = reportStream(report.id);
  const blobId = app.ids.objectId();
  let file: Awaited<ReturnType<Renderers[ExportFormat]>>;
  let fileName: string;
  try {
    file = await renderers[format](report, { generatedAt: app.clock.now() });
    fileName = `relatorio-${report.id}.${file.extension}`;
    await blobs.put({ id: blobId, organizationId: caller.organizationId, contentType: file.contentType, fileName, bytes: file.bytes });
  } catch (error) {
    app.log.error({ err: error, reportId: report.id, format }, 'report export failed');
    await handleCommand(app.store, stream, reportDecider, {
      type: 'RecordExportFailure',
      organizationId: caller.organizationId,
      userId: caller.userId,
      format,
      reason: `Falha ao gerar o arquivo ${format.toUpperCase()}.`,
      at: app.clock.now().toISOString(),
    });
    throw new DomainError('upstream', Messages.reportExportFailed);
  }
  const now = app.clock.now();
  const { url, expiresAt } = freshDownloadUrl(app.config, blobId, now);
  const { position } = await handleCommand(app.store, stream, reportDecider, {
    type: 'RecordExport',
    organizationId: caller.organizationId,
    userId: caller.userId,
    format,
    blobId,
    fileName,
    contentType: file.contentType,
    sizeBytes: file.bytes.length,
    url,
    urlExpiresAt: expiresAt.toISOString(),
    at: now.toISOString(),
  });
  return { format, url, expiresAt: expiresAt.toISOString(), fileName, sizeBytes: file.bytes.length, position };
}

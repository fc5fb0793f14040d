import type Logger from 'bunyan';
import { identityStreams } from '../../domain/identity/events.ts';
import { userDecider } from '../../domain/identity/user-decider.ts';
import type { MessageTemplate } from '../../domain/messaging/events.ts';
import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream } from '../../domain/report/events.ts';
import type { FinancialStatementsExtracted, FinancialStatementsExtractionFailed } from '../../domain/report/extraction-events.ts';
import type { FinancialStatementsSubmitted } from '../../domain/report/financial-events.ts';
import { fold } from '../../domain/shared/decider.ts';
import { formatDocument } from '../../domain/shared/document.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { organizationName } from '../../projections/identity/queries.ts';
import { loadState, toDomainEvents } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { queueMessage } from '../messaging/commands.ts';
import type { ReportEvent } from '../../domain/report/events.ts';

type Outcome = FinancialStatementsExtracted | FinancialStatementsExtractionFailed;
export const NOTICE_EVENT_TYPES = ['FinancialStatementsExtracted', 'FinancialStatementsExtractionFailed'] as const satisfies ReadonlyArray<Outcome['type']>;

const TEMPLATE: Record<Outcome['type'], MessageTemplate> = {
  FinancialStatementsExtracted: 'FINANCIAL_STATEMENTS_EXTRACTED',
  FinancialStatementsExtractionFailed: 'FINANCIAL_STATEMENTS_FAILED',
};

/**
 * The e-mail the spec promises after a financial upload ("same e-mail" for both ways in): when a
 * batch's extraction ends, either way, the user who sent it is told at their platform address
 * what was read or why nothing was. Both upload routes reach here through the same outcome
 * events. A user without an address gets nothing (logged). One message per batch: the key is the
 * batch, so a replayed outcome queues nothing.
 */
export class FinancialNoticeProcess {
  constructor(
    private readonly app: AppContext,
    private readonly log: Logger,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    const outcome = toDomainEvents<Outcome>([event])[0]!;
    const { reportId, organizationId, batchId } = outcome.data;
    const reportEvents = toDomainEvents<ReportEvent>(await this.app.store.readStream(reportStream(reportId)));
    const submitted = reportEvents.find((e): e is FinancialStatementsSubmitted => e.type === 'FinancialStatementsSubmitted' && e.data.batchId === batchId);
    if (!submitted) return;
    const { state: user } = await loadState(this.app.store, identityStreams.user(submitted.data.userId), userDecider);
    if (!user.email) {
      this.log.info({ reportId, batchId, userId: submitted.data.userId }, 'financial statements notice not sent: the user has no e-mail address');
      return;
    }
    const report = fold(reportDecider, reportEvents);
    const subjectName = report.results.BASIC_INFORMATION?.details?.name;
    const document = formatDocument({ type: outcome.data.type, digits: outcome.data.document });
    await queueMessage(this.app, {
      organizationId,
      dedupeKey: `financial:${reportId}:${batchId}`,
      template: TEMPLATE[outcome.type],
      channels: ['EMAIL'],
      to: { name: user.name, email: user.email, phone: null },
      correlation: { userId: submitted.data.userId, reportId, batchId },
      content: {
        link: `${this.app.config.PUBLIC_BASE_URL}/console/relatorios/${reportId}`,
        subjectName: typeof subjectName === 'string' && subjectName ? subjectName : document,
        organizationName: (await organizationName(this.app.db, organizationId)) ?? '',
        operatorMessage: null,
        pendingItems: [],
        expiresAt: null,
        financial: {
          reportId,
          document,
          files: submitted.data.files.map((file) => file.fileName),
          periods: outcome.type === 'FinancialStatementsExtracted' ? outcome.data.periods.map((period) => period.periodEnd) : [],
          reason: outcome.type === 'FinancialStatementsExtractionFailed' ? outcome.data.reason : null,
        },
      },
    });
  }
}

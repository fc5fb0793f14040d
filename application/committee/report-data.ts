import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream } from '../../domain/report/events.ts';
import type { ReportState } from '../../domain/report/state.ts';
import { fold } from '../../domain/shared/decider.ts';
import type { AppContext } from '../context.ts';
import { toDomainEvents } from '../command-handler.ts';

/** The report as the committee reads it: straight from its stream, so a report finalized a moment ago is complete. */
export async function loadReport(app: Pick<AppContext, 'store'>, reportId: string): Promise<ReportState> {
  return fold(reportDecider, toDomainEvents(await app.store.readStream(reportStream(reportId))));
}

/** proposta.valor_pedido (reais) when the proposals module fed the report, in cents. */
export function requestedAmountCentsOf(inputs: Record<string, unknown>): number | null {
  const proposta = inputs.proposta as Record<string, unknown> | undefined;
  const reais = proposta?.valor_pedido;
  return typeof reais === 'number' && Number.isFinite(reais) && reais >= 0 ? Math.round(reais * 100) : null;
}

import type { AttemptRow, DeliveryRow } from '../../projections/webhook/queries.ts';
import type { SubscriptionRow } from '../../projections/webhook/subscription-rows.ts';
import { csrfField } from './html.ts';
import { escape } from '../../domain/shared/html.ts';

const DATE = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'medium' });
const when = (date: Date | null) => (date ? DATE.format(date) : '—');
const STATUS = { pending: 'pendente', succeeded: 'entregue', failed: 'falhou', canceled: 'cancelada' } as const;

const what = (s: SubscriptionRow) => (s.family === 'named' ? s.events.map(escape).join(', ') : `${escape(s.legacy_type ?? '')} (legado)`);

export function subscriptionsPage(rows: readonly SubscriptionRow[]): string {
  const lines = rows
    .map(
      (s) =>
        `<tr><td><a href="/console/webhooks/${escape(s.id)}">${escape(s.url)}</a></td><td>${what(s)}</td><td>${s.status === 'active' ? 'ativa' : `desativada${s.disabled_reason ? ` (${escape(s.disabled_reason)})` : ''}`}</td><td>${when(s.created_at)}</td></tr>`,
    )
    .join('');
  return `<section class="cartao">${lines ? `<table><thead><tr><th>Endereço</th><th>Eventos</th><th>Situação</th><th>Criada em</th></tr></thead><tbody>${lines}</tbody></table>` : '<p>Nenhuma assinatura de webhook.</p>'}</section>`;
}

/** The delivery log, newest first, every attempt with its answer; named deliveries can be sent again. */
export function deliveriesPage(subscription: SubscriptionRow, page: { total: number; items: Array<DeliveryRow & { attemptLog: AttemptRow[] }> }, csrf: string, notice?: string): string {
  const items = page.items
    .map((d) => {
      const attempts = d.attemptLog
        .map((a) => `${a.attempt}ª ${when(a.started_at)}: ${a.status_code ?? '—'} ${escape(a.outcome)} em ${a.duration_ms} ms${a.error ? ` (${escape(a.error)})` : ''}`)
        .join('<br>');
      const again =
        subscription.family === 'named'
          ? `<form method="post" action="/console/webhooks/entregas/${escape(d.id)}/reenviar">${csrfField(csrf)}<button class="primario" type="submit">Reenviar</button></form>`
          : '';
      return `<tr><td><code>${escape(d.event_name)}</code><br>${when(d.occurred_at)}</td><td>${STATUS[d.status]}${d.status === 'pending' ? `<br>próxima: ${when(d.next_attempt_at)}` : ''}</td><td class="fatos">${attempts || 'nenhuma tentativa ainda'}</td><td>${again}</td></tr>`;
    })
    .join('');
  return `${notice ? `<p class="aviso" role="status">${escape(notice)}</p>` : ''}<section class="cartao"><p>${escape(subscription.url)} · ${what(subscription)}</p>
<p>${page.total} entrega(s); as 50 mais recentes.</p>${items ? `<table><thead><tr><th>Evento</th><th>Situação</th><th>Tentativas</th><th></th></tr></thead><tbody>${items}</tbody></table>` : '<p>Nenhuma entrega.</p>'}
<p><a href="/console/webhooks">Voltar às assinaturas</a></p></section>`;
}

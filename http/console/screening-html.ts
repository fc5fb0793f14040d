import type { ListState } from '../../application/screening/lists.ts';
import { escape } from '../../domain/shared/html.ts';

const DATE = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'medium' });
const when = (iso: string | null) => (iso ? DATE.format(new Date(iso)) : '—');
const STATUS = { LOADED: 'em uso', NOT_LOADED: 'configurada, ainda não carregada', NOT_CONFIGURED: 'não configurada: não verificada' } as const;

/** The screening lists as GET /v1/screening/lists gives them: what every report's SANCTIONS section and PEP flag were checked against. */
export function screeningListsPage(nameThreshold: number, lists: readonly ListState[]): string {
  const rows = lists
    .map((l) => {
      const version = l.sha256
        ? `publicada em ${escape(l.publishedAt ?? '—')}<br>${l.entryCount ?? 0} entradas · carregada ${when(l.loadedAt)} · conferida ${when(l.checkedAt)}<br><code>${escape(l.sha256)}</code>`
        : '—';
      const failure = l.lastFailure ? `${when(l.lastFailure.at)}: ${escape(l.lastFailure.message)}` : '—';
      return `<tr><td>${escape(l.listTitle)}<br><code>${escape(l.list)}</code></td><td>${STATUS[l.status]}${l.source ? `<br>${escape(l.source.location)}` : ''}</td><td class="fatos">${version}</td><td>${failure}</td></tr>`;
    })
    .join('');
  return `<section class="cartao"><p>Nomes são comparados com semelhança mínima de ${escape(String(nameThreshold))}; CPF e CNPJ, quando a lista os traz, exatamente.</p>
<table><thead><tr><th>Lista</th><th>Situação e fonte</th><th>Versão em uso (SHA-256)</th><th>Última falha</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

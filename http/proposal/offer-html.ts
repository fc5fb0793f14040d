import type { IndicativeTerms } from '../../domain/proposal/events.ts';
import { headlineTerms, type ChosenTerms } from '../../domain/proposal/installment.ts';
import { centsOf, formatBRL } from '../../domain/shared/money.ts';
import { escape } from '../../domain/shared/html.ts';

const percent = (value: number) => `${value.toLocaleString('pt-BR', { maximumFractionDigits: 4 })}%`;

/** One small page that reads well on a phone: no external assets, the viewport set, large inputs. */
function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:0;padding:1rem;max-width:32rem;margin-inline:auto;color:#1a1a1a}
h1{font-size:1.4rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem}dt{color:#555}dd{margin:0;font-weight:600}
label{display:block;margin-top:1rem}input,select,button{font-size:1.1rem;width:100%;padding:.6rem;box-sizing:border-box;margin-top:.3rem}
button{background:#0a5;color:#fff;border:0;border-radius:.4rem;margin-top:1.2rem}.erro{background:#fde;padding:.6rem;border-radius:.4rem}
.simulacao{background:#f3f6f3;padding:.8rem;border-radius:.4rem;margin-top:1rem}</style></head>
<body>${content}</body></html>`;
}

export interface OfferPageData {
  token: string;
  customerName: string;
  productName: string;
  terms: IndicativeTerms;
  /** The largest amount and term priced with IOF, fees and CET, as a choice made now would be. */
  example: ChosenTerms;
  error?: string;
}

/** Installment, IOF, fees, total and CET of priced terms, as a definition list's rows. */
function costRows(terms: ChosenTerms): string {
  return `<dt>Parcela</dt><dd>${formatBRL(centsOf(terms.installment))}</dd>
<dt>IOF</dt><dd>${formatBRL(centsOf(terms.iof ?? 0))}${terms.iofFinanced ? ' (financiado)' : ''}</dd><dt>Tarifas</dt><dd>${formatBRL(centsOf(terms.fees ?? 0))}</dd>
<dt>Você recebe</dt><dd>${formatBRL(centsOf(terms.netReleased))}</dd><dt>Total a pagar</dt><dd>${formatBRL(centsOf(terms.totalPayable))}</dd>
<dt>CET</dt><dd>${percent(terms.cetMonthlyPercent ?? 0)} ao mês (${percent(terms.cetYearlyPercent ?? 0)} ao ano)</dd>`;
}

/**
 * The offer with a worked example priced by the server (IOF, fees, CET), a live estimate of the
 * first installment that follows the inputs (the headline formula in the browser, without IOF
 * and fees, and said so), and the form that records the choice. Without script the form still
 * posts; the server answers with the priced terms.
 */
export function offerPage(d: OfferPageData): string {
  const t = d.terms;
  const terms = Array.from({ length: t.maxTermMonths - t.minTermMonths + 1 }, (_, i) => t.minTermMonths + i);
  const i = d.example.monthlyRatePercent / 100;
  return page(
    'Sua oferta de crédito',
    `<h1>Olá, ${escape(d.customerName)}</h1>
<p>Você tem uma oferta de <strong>${escape(d.productName)}</strong>. Escolha o valor e o prazo dentro dos limites abaixo.</p>
${d.error ? `<p class="erro" role="alert">${escape(d.error)}</p>` : ''}
<dl><dt>Valor</dt><dd>${formatBRL(t.minAmountCents)} a ${formatBRL(t.maxAmountCents)}</dd>
<dt>Prazo</dt><dd>${t.minTermMonths} a ${t.maxTermMonths} meses</dd>
<dt>Taxa</dt><dd>${percent(d.example.monthlyRatePercent)} ao mês (${percent(d.example.yearlyRatePercent)} ao ano)</dd>
<dt>Sistema</dt><dd>${t.model === 'PRICE' ? 'Parcelas fixas (Price)' : 'Amortização constante (SAC)'}</dd>
<dt>Válida até</dt><dd>${escape(new Date(t.validUntil).toLocaleDateString('pt-BR', { timeZone: 'America/Sao_Paulo' }))}</dd></dl>
<h2>Exemplo: ${formatBRL(centsOf(d.example.amount))} em ${d.example.termMonths} meses</h2>
<dl class="exemplo">${costRows(d.example)}</dl>
<form method="post" action="/oferta/${encodeURIComponent(d.token)}/escolha" data-taxa="${i}" data-sistema="${t.model}">
<label>Valor desejado (R$)<input name="amount" inputmode="decimal" required value="${(t.maxAmountCents / 100).toFixed(2).replace('.', ',')}"></label>
<label>Prazo<select name="termMonths">${terms.map((n) => `<option value="${n}"${n === t.maxTermMonths ? ' selected' : ''}>${n} meses</option>`).join('')}</select></label>
<p class="simulacao" aria-live="polite">Primeira parcela estimada: <strong id="parcela">${formatBRL(centsOf(headlineTerms(t.maxAmountCents, t.maxTermMonths, t.model, t.rateBpsYear, t.rate).installment))}</strong> (sem IOF e tarifas)</p>
<button type="submit">Escolher esta oferta</button></form>
<script src="/oferta/assets/simulacao.js" defer></script>`,
  );
}

export function chosenPage(customerName: string, terms: ChosenTerms): string {
  return page(
    'Oferta escolhida',
    `<h1>Pronto, ${escape(customerName)}!</h1><p>Recebemos a sua escolha. Vamos seguir com a análise e avisaremos você.</p>
<dl><dt>Valor</dt><dd>${formatBRL(centsOf(terms.amount))}</dd><dt>Prazo</dt><dd>${terms.termMonths} meses</dd>
<dt>Taxa</dt><dd>${percent(terms.monthlyRatePercent)} ao mês</dd>${costRows(terms)}</dl>`,
  );
}

export function messagePage(title: string, text: string): string {
  return page(title, `<h1>${escape(title)}</h1><p>${escape(text)}</p>`);
}

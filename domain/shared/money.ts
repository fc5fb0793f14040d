const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/**
 * An amount in cents as Brazilians write it: "R$ 10.000,00", "-R$ 0,05". The one money format of
 * every screen, document and message. Intl puts a no-break space after R$; a plain one reads the
 * same and survives copy and paste, search and tests.
 */
export function formatBRL(cents: number): string {
  return BRL.format(cents / 100).replace(/\u00a0/g, ' ');
}

/** Whole cents of an amount in reais (the installment maths give reais rounded to centavos). */
export const centsOf = (reais: number): number => Math.round(reais * 100);

/**
 * Names as the screening compares them: a set of tokens, so accents, case, punctuation and word
 * order do not matter ("JOSÉ DA SILVA" = "Silva, José"). Similarity is the Sørensen–Dice
 * coefficient of the two token sets, 2·|A∩B| / (|A| + |B|): 1 for the same words in any order,
 * 0.8 when a three-word name is a four-word name less one word (docs/reports.md, Screening).
 */

/**
 * Words that carry no identity: Portuguese connectors and company forms. Without them "Alfa
 * Comércio Ltda" and "ALFA COMERCIO S/A" are the same name, and "Maria da Silva" equals
 * "Maria Silva". One-letter tokens (initials, the S and A of S/A) are dropped as well.
 */
const NOISE = new Set(['da', 'de', 'do', 'das', 'dos', 'e', 'ltda', 'eireli', 'epp', 'me', 'sa', 'cia']);

/** The distinct tokens of a name: no accents, lowercase, letters and digits only. */
export function nameTokens(name: string): string[] {
  const words = name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return [...new Set(words.filter((word) => word.length > 1 && !NOISE.has(word)))];
}

/** Dice's coefficient from the count of shared tokens and the two set sizes. */
export function diceOf(shared: number, sizeA: number, sizeB: number): number {
  return sizeA + sizeB === 0 ? 0 : (2 * shared) / (sizeA + sizeB);
}

/** Dice's coefficient of two names' token sets. */
export function nameSimilarity(a: string, b: string): number {
  const tokensA = nameTokens(a);
  const tokensB = new Set(nameTokens(b));
  const shared = tokensA.filter((token) => tokensB.has(token)).length;
  return diceOf(shared, tokensA.length, tokensB.size);
}

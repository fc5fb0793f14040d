import { ConfigurationError } from '../../config/index.ts';

/**
 * The versioned price table (LLM_PRICES): `version;model=input/output;...`, USD per million input
 * and output tokens. A provider's model names carry dated suffixes (`gpt-4o-2024-08-06`), so a
 * model is priced by the longest entry its name starts with; an unpriced model costs 0 and the
 * table's version recorded with each opinion says which prices were in force.
 */
export interface PriceTable {
  version: string;
  costUsd(model: string, inputTokens: number, outputTokens: number): number;
}

interface Price {
  model: string;
  input: number;
  output: number;
}

function parseEntry(entry: string): Price {
  const match = /^([^=\s]+)\s*=\s*([0-9.]+)\s*\/\s*([0-9.]+)$/.exec(entry.trim());
  const input = Number(match?.[2]);
  const output = Number(match?.[3]);
  if (!match || !Number.isFinite(input) || !Number.isFinite(output)) {
    throw new ConfigurationError(`LLM_PRICES entry "${entry}" is not model=input/output; fix: e.g. gpt-4o=2.5/10 (USD per million tokens)`);
  }
  return { model: match[1]!, input, output };
}

export function parsePriceTable(text: string): PriceTable {
  const [version, ...entries] = text.split(';').map((part) => part.trim());
  if (!version || version.includes('=')) throw new ConfigurationError('LLM_PRICES must start with its version; fix: e.g. 2026-11-23;gpt-4o=2.5/10');
  // Longest first, so the most specific entry wins.
  const prices = entries
    .filter(Boolean)
    .map(parseEntry)
    .sort((a, b) => b.model.length - a.model.length);
  return {
    version,
    costUsd(model, inputTokens, outputTokens) {
      const price = prices.find((p) => model === p.model || model.startsWith(p.model));
      if (!price) return 0;
      // Rounded to micro-dollars: sums of many calls stay readable and exact enough.
      return Math.round(((inputTokens * price.input + outputTokens * price.output) / 1_000_000) * 1_000_000) / 1_000_000;
    },
  };
}

import Type, { type Static } from 'typebox';
import type { ModelValue } from '../../domain/financial/analysis.ts';
import { LINE_KEYS, type LineKey } from '../../domain/financial/lines.ts';
import type { ModelUse } from '../../domain/financial/section.ts';
import { loadPrompt } from '../llm/prompts.ts';
import { LanguageModelError, type LanguageModel } from '../llm/port.ts';

/** What the model may answer: amounts in cents for the lines it was asked, never anything else. */
const Reply = Type.Object({
  values: Type.Array(
    Type.Object({
      periodEnd: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
      key: Type.Union(LINE_KEYS.map((key) => Type.Literal(key))),
      cents: Type.Integer(),
    }),
    { maxItems: 200 },
  ),
});

/** Each file's text the model reads, bounded so a 50 MB statement does not become a huge prompt. */
const TEXT_CHARS_PER_FILE = 20_000;

export interface Gap {
  periodEnd: string;
  key: LineKey;
  label: string;
}

/**
 * Asks the model (agent 'financial') for the core lines the rules could not read. The offline
 * adapter answers nothing more: its rules are the rules that already ran. Replies are kept only
 * for the periods and lines asked; a model that fails leaves the gaps, recorded in `use.error`.
 */
export async function askForGaps(model: LanguageModel, gaps: readonly Gap[], documents: ReadonlyArray<{ fileName: string; text: string }>): Promise<{ values: ModelValue[]; use: ModelUse }> {
  const prompt = loadPrompt('financial');
  const input = { gaps, documents: documents.map((d) => ({ fileName: d.fileName, text: d.text.slice(0, TEXT_CHARS_PER_FILE) })) };
  try {
    const { output, call } = await model.generate({
      agent: 'financial',
      prompt,
      input,
      schema: Reply,
      offline: (): Static<typeof Reply> => ({ values: [] }),
    });
    const asked = new Set(gaps.map((g) => `${g.periodEnd}:${g.key}`));
    const values = output.values.filter((v) => asked.has(`${v.periodEnd}:${v.key}`) && Number.isSafeInteger(v.cents));
    return { values, use: { asked: gaps.length, filled: values.length, model: call.model, promptVersion: call.promptVersion, costUsd: call.costUsd, error: null } };
  } catch (error) {
    if (!(error instanceof LanguageModelError)) throw error;
    return { values: [], use: { asked: gaps.length, filled: 0, model: error.call?.model ?? null, promptVersion: prompt.version, costUsd: error.call?.costUsd ?? 0, error: error.message } };
  }
}

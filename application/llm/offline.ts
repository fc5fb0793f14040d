import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { OFFLINE_MODEL } from '../../domain/shared/model-call.ts';
import { LanguageModelError, type LanguageModel, type StructuredRequest } from './port.ts';

/** Tokens of a text as the usual tokenizers count Portuguese and JSON: about four characters each. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

export { OFFLINE_MODEL };

/**
 * The default adapter: answers with the request's own deterministic rules, so every environment
 * (tests, demos, an organization without a contract with a provider) gets opinions that are
 * stable for the same input and prompt version. Its replies pass the same schema check as a
 * real model's: a rule that drifts from its schema fails here first.
 */
export class OfflineLanguageModel implements LanguageModel {
  async generate<S extends TSchema>(request: StructuredRequest<S>) {
    const started = performance.now();
    const output = request.offline(request.input);
    if (!Value.Check(request.schema, output)) {
      const problem = [...Value.Errors(request.schema, output)][0];
      throw new LanguageModelError(`offline rules of ${request.agent} gave a reply outside its schema (${problem?.instancePath || '/'} ${problem?.message ?? ''})`, false);
    }
    return {
      output,
      call: {
        agent: request.agent,
        model: OFFLINE_MODEL,
        promptVersion: request.prompt.version,
        inputTokens: estimateTokens(request.prompt.text) + estimateTokens(JSON.stringify(request.input) ?? ''),
        outputTokens: estimateTokens(JSON.stringify(output)),
        costUsd: 0,
        durationMs: Math.round(performance.now() - started),
        attempts: 1,
      },
    };
  }
}

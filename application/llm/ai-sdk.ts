import { setTimeout as delay } from 'node:timers/promises';
import { APICallError, generateText, jsonSchema, NoObjectGeneratedError, NoOutputGeneratedError, Output, type LanguageModel as SdkModel } from 'ai';
import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { LanguageModelError, type LanguageModel, type StructuredRequest } from './port.ts';
import type { PriceTable } from './prices.ts';

export interface RetryPolicy {
  timeoutMs: number;
  maxAttempts: number;
  /** First wait without a Retry-After, doubled per attempt. */
  baseDelayMs: number;
}

/** A server's Retry-After wait is honoured up to this; a longer one is not worth holding a report for. */
const MAX_RETRY_AFTER_MS = 60_000;

type Failure = { kind: 'invalid' | 'passing' | 'refused'; message: string; waitMs?: number };

/** Retry-After as seconds or an HTTP date, or the retry-after-ms some servers send. */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  const header = (name: string) => Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
  const ms = Number(header('retry-after-ms'));
  if (header('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = header('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function classify(error: unknown): Failure {
  if (NoObjectGeneratedError.isInstance(error) || NoOutputGeneratedError.isInstance(error)) return { kind: 'invalid', message: error.message };
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const passing = status === undefined ? error.isRetryable : status === 408 || status === 409 || status === 429 || status >= 500;
    const message = `${status ?? 'network'}: ${error.message}`;
    return passing ? { kind: 'passing', message, waitMs: retryAfterMs(error.responseHeaders) } : { kind: 'refused', message };
  }
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'passing', message: 'timeout' };
  // fetch's own failures (connection refused or reset) come as a TypeError.
  if (error instanceof TypeError) return { kind: 'passing', message: error.message };
  return { kind: 'refused', message: (error as Error)?.message ?? String(error) };
}

const system = (request: StructuredRequest<TSchema>) =>
  `${request.prompt.text}\n\nResponda somente com um objeto JSON que siga este JSON Schema, sem texto fora dele:\n${JSON.stringify(request.schema)}`;

/**
 * One adapter over the `ai` library for every hosted model (the provider packages differ only in
 * how they build `model`). The library's own retries are off: this loop owns them, because an
 * invalid reply (not JSON, or outside the schema) must be retried like a busy server, and every
 * attempt's tokens are paid for and recorded.
 */
export class SdkLanguageModel implements LanguageModel {
  constructor(
    private readonly model: SdkModel & { modelId: string },
    private readonly prices: PriceTable,
    private readonly retry: RetryPolicy,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => delay(ms),
  ) {}

  async generate<S extends TSchema>(request: StructuredRequest<S>) {
    const started = performance.now();
    let inputTokens = 0;
    let outputTokens = 0;
    let modelName = this.model.modelId;
    const callRecord = (attempts: number) => ({
      agent: request.agent,
      model: modelName,
      promptVersion: request.prompt.version,
      inputTokens,
      outputTokens,
      costUsd: this.prices.costUsd(modelName, inputTokens, outputTokens),
      durationMs: Math.round(performance.now() - started),
      attempts,
    });
    const schema = jsonSchema<Static<S>>(JSON.parse(JSON.stringify(request.schema)), {
      validate: (value) =>
        Value.Check(request.schema, value)
          ? { success: true, value: value as Static<S> }
          : {
              success: false,
              error: new Error(
                [...Value.Errors(request.schema, value)]
                  .slice(0, 3)
                  .map((e) => `${e.instancePath || '/'} ${e.message}`)
                  .join('; '),
              ),
            },
    });

    // The input as the user's message; with files, one message of the input and each file as a part.
    const prompt = request.files?.length
      ? {
          messages: [
            {
              role: 'user' as const,
              content: [{ type: 'text' as const, text: JSON.stringify(request.input) }, ...request.files.map((file) => ({ type: 'file' as const, data: file.data, mediaType: file.mediaType }))],
            },
          ],
        }
      : { prompt: JSON.stringify(request.input) };
    let last: Failure = { kind: 'refused', message: 'no attempt' };
    for (let attempt = 1; attempt <= this.retry.maxAttempts; attempt++) {
      try {
        const result = await generateText({
          model: this.model,
          system: system(request),
          ...prompt,
          output: Output.object({ schema, name: request.agent.replace(/[^A-Za-z0-9_-]/g, '_') }),
          temperature: 0,
          maxRetries: 0,
          abortSignal: AbortSignal.timeout(this.retry.timeoutMs),
        });
        inputTokens += result.usage.inputTokens ?? 0;
        outputTokens += result.usage.outputTokens ?? 0;
        modelName = result.response.modelId || modelName;
        return { output: result.output, call: callRecord(attempt) };
      } catch (error) {
        if (NoObjectGeneratedError.isInstance(error)) {
          inputTokens += error.usage?.inputTokens ?? 0;
          outputTokens += error.usage?.outputTokens ?? 0;
        }
        last = classify(error);
        if (last.kind === 'refused') throw new LanguageModelError(`${request.agent}: the model refused the request (${last.message})`, false, callRecord(attempt));
        // An invalid reply is asked again at once; a busy or failing server is given time.
        if (attempt < this.retry.maxAttempts && last.kind === 'passing') {
          await this.sleep(Math.min(MAX_RETRY_AFTER_MS, last.waitMs ?? this.retry.baseDelayMs * 2 ** (attempt - 1)));
        }
      }
    }
    // Replies that kept failing the schema will not pass later either; a server that stayed busy may.
    const retryable = last.kind === 'passing';
    throw new LanguageModelError(`${request.agent}: no valid reply after ${this.retry.maxAttempts} attempts (${last.message})`, retryable, callRecord(this.retry.maxAttempts));
  }
}

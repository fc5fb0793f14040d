import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ConfigurationError, type Config } from '../../config/index.ts';
import { SdkLanguageModel } from './ai-sdk.ts';
import { OfflineLanguageModel } from './offline.ts';
import type { LanguageModel } from './port.ts';
import { parsePriceTable } from './prices.ts';

type LlmConfig = Pick<Config, 'LLM_PROVIDER' | 'LLM_BASE_URL' | 'LLM_MODEL' | 'LLM_API_KEY' | 'LLM_TIMEOUT_MS' | 'LLM_MAX_ATTEMPTS' | 'LLM_RETRY_BASE_MS' | 'LLM_PRICES'>;

/** The price table in force (LLM_PRICES); its version is recorded with each opinion. */
export const priceTableFor = (config: Pick<Config, 'LLM_PRICES'>) => parsePriceTable(config.LLM_PRICES);

/** The adapter LLM_PROVIDER names (docs/configuration.md; docs/committee.md); offline by default. */
export function languageModelFor(config: LlmConfig): LanguageModel {
  if (config.LLM_PROVIDER === 'offline') return new OfflineLanguageModel();
  const model = config.LLM_MODEL;
  if (!model) throw new ConfigurationError(`LLM_PROVIDER=${config.LLM_PROVIDER} needs LLM_MODEL; fix: set it, or LLM_PROVIDER=offline`);
  const retry = { timeoutMs: config.LLM_TIMEOUT_MS, maxAttempts: config.LLM_MAX_ATTEMPTS, baseDelayMs: config.LLM_RETRY_BASE_MS };
  const prices = priceTableFor(config);
  if (config.LLM_PROVIDER === 'anthropic') {
    if (!config.LLM_API_KEY) throw new ConfigurationError('LLM_PROVIDER=anthropic needs LLM_API_KEY; fix: set it, or LLM_PROVIDER=offline');
    const provider = createAnthropic({ apiKey: config.LLM_API_KEY, ...(config.LLM_BASE_URL ? { baseURL: config.LLM_BASE_URL } : {}) });
    return new SdkLanguageModel(provider(model), prices, retry);
  }
  if (!config.LLM_BASE_URL) throw new ConfigurationError('LLM_PROVIDER=openai-compatible needs LLM_BASE_URL; fix: e.g. http://localhost:11434/v1 (Ollama), or LLM_PROVIDER=offline');
  // Local servers (Ollama, llama.cpp) take no key; hosted ones get it as a bearer token.
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: config.LLM_BASE_URL,
    ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}),
    supportsStructuredOutputs: true,
    includeUsage: true,
  });
  return new SdkLanguageModel(provider.chatModel(model), prices, retry);
}

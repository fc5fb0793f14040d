import Type, { type Static } from 'typebox';
import type { Config } from '../../../config/index.ts';
import { EXPECTED_DOCUMENT_TYPES } from '../../../domain/collection/enums.ts';
import { assessText } from '../../../domain/registry/analysis.ts';
import { OFFLINE_MODEL } from '../../../domain/shared/model-call.ts';
import type { AnalysisOutcome } from '../../../domain/registry/document-decider.ts';
import { ocrSettingsFor } from '../../document-text.ts';
import { languageModelFor } from '../../llm/models.ts';
import { LanguageModelError, type LanguageModel } from '../../llm/port.ts';
import { loadPrompt } from '../../llm/prompts.ts';
import { offlineAnalyser } from './offline.ts';
import type { AnalysisInput, DocumentAnalyser } from './port.ts';

/** The types a document may be; FORA_DE_ESCOPO and NAO_IDENTIFICADO are the model's two ways of saying none. */
const ACCEPTED_TYPES = EXPECTED_DOCUMENT_TYPES.filter((type) => type !== 'FORA_DE_ESCOPO' && type !== 'NAO_IDENTIFICADO');

/** What the model reads off the file: its type, its text as written, its fields. Bounded, like every reply. */
const Reading = Type.Object({
  type: Type.Enum(EXPECTED_DOCUMENT_TYPES),
  transcription: Type.String({ maxLength: 50_000 }),
  fields: Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), value: Type.String({ maxLength: 1_000 }) }), { maxItems: 50 }),
});

/**
 * The analyser with a vision-capable model (agent `document`, prompt `prompts/document/`): the
 * model reads the file itself (image or PDF, scans included) and answers its type, its text as
 * written and its fields. The verdict is then the same rules' as offline (domain/registry/analysis.ts)
 * on what the model read: the type the model gave (an operator's forceType still wins), the
 * expected type, the subject named in the transcription, the validity dates. Not a sandbox opinion:
 * the document was read, not keyword-matched. A model that gives no valid reply (down, refusing,
 * off schema after its retries) leaves the document to the offline analyser (`fallback`).
 */
export function visionAnalyser(model: LanguageModel, fallback: DocumentAnalyser): DocumentAnalyser {
  return {
    async analyse(input: AnalysisInput): Promise<AnalysisOutcome> {
      let reading: Static<typeof Reading>;
      let modelName: string;
      try {
        const { output, call } = await model.generate({
          agent: 'document',
          prompt: loadPrompt('document'),
          input: { acceptedTypes: ACCEPTED_TYPES, expectedType: input.expectedType },
          files: [{ mediaType: input.mimeType, data: input.bytes }],
          schema: Reading,
          offline: (): Static<typeof Reading> => ({ type: 'NAO_IDENTIFICADO', transcription: '', fields: [] }),
        });
        reading = output;
        modelName = call.model;
      } catch (error) {
        if (!(error instanceof LanguageModelError)) throw error;
        return fallback.analyse(input);
      }
      // "None of them": the rules classify the transcription themselves (FORA_DE_ESCOPO or NAO_IDENTIFICADO by their own test).
      const named = reading.type === 'FORA_DE_ESCOPO' || reading.type === 'NAO_IDENTIFICADO' ? null : reading.type;
      const outcome = assessText({ text: reading.transcription, expectedType: input.expectedType, forceType: input.forceType ?? named, asOf: input.asOf, subject: input.subject });
      if (outcome.kind !== 'opinion') return outcome;
      // The model read the file: a sandbox result only if the model was the offline one.
      const provenance = { provider: modelName, sandbox: modelName === OFFLINE_MODEL };
      return { ...outcome, provenance, reading: { source: 'MODEL', model: modelName, fields: Object.fromEntries(reading.fields.map((field) => [field.name, field.value])) } };
    },
  };
}

/**
 * The analyser the configuration names: the vision model's when DOCUMENT_VISION_MODEL is set and
 * LLM_PROVIDER serves it, the offline one (text layer, OCR, keyword rules) otherwise.
 */
export function documentAnalyserFor(config: Config): DocumentAnalyser {
  const offline = offlineAnalyser(ocrSettingsFor(config));
  if (!config.DOCUMENT_VISION_MODEL || config.LLM_PROVIDER === 'offline') return offline;
  return visionAnalyser(languageModelFor({ ...config, LLM_MODEL: config.DOCUMENT_VISION_MODEL }), offline);
}

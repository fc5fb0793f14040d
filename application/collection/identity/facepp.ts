import { IdentityProviderUnavailable, type IdentityImages, type IdentityProvider, type IdentityVerification } from './provider.ts';

interface CompareReply {
  confidence?: number;
  thresholds?: Record<'1e-3' | '1e-4' | '1e-5', number>;
  faces1?: unknown[];
  faces2?: unknown[];
  error_message?: string;
}

/** Face++ errors caused by the pictures themselves: the person should send other photos. */
const IMAGE_ERROR = /^(IMAGE_|INVALID_IMAGE)/;

/**
 * Face++ Compare API (`POST /facepp/v3/compare`, api_key and api_secret, both images base64):
 * the largest face of the document photo against the selfie. `confidence` (0-100) is the
 * similarity; the reply's thresholds at false-acceptance rates 1e-5 and 1e-3 split it into
 * APROVADO (at or above 1e-5), REPROVADO (below 1e-3) and INCONCLUSIVO between them. No face in
 * one image, or a picture Face++ refuses (IMAGE_*, INVALID_IMAGE_*, 413), is REPROVADO with a
 * signal; several faces in the selfie make an approval INCONCLUSIVO. Compare measures no
 * liveness (null). Timeouts, network errors, refused credentials, quota and 5xx give no result.
 */
export class FaceppIdentityProvider implements IdentityProvider {
  readonly name = 'facepp';

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly apiSecret: string,
    private readonly timeoutMs: number,
  ) {}

  async verify({ document, selfie }: IdentityImages): Promise<IdentityVerification> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl.replace(/(?<!\/)\/+$/, '')}/facepp/v3/compare`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ api_key: this.apiKey, api_secret: this.apiSecret, image_base64_1: document.toString('base64'), image_base64_2: selfie.toString('base64') }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new IdentityProviderUnavailable(`Face++: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}`);
    }
    const reply = (await response.json().catch(() => ({}))) as CompareReply;
    if (response.status === 413 || (response.status === 400 && IMAGE_ERROR.test(reply.error_message ?? ''))) {
      return { verdict: 'REPROVADO', similarity: null, liveness: null, signals: ['IMAGEM_RECUSADA'], raw: reply };
    }
    if (!response.ok) throw new IdentityProviderUnavailable(`Face++ HTTP ${response.status}: ${reply.error_message ?? response.statusText}`);
    return { ...verdictOf(reply), raw: reply };
  }
}

function verdictOf(reply: CompareReply): Omit<IdentityVerification, 'raw'> {
  const missing = [...(reply.faces1?.length ? [] : ['ROSTO_NAO_ENCONTRADO_DOCUMENTO']), ...(reply.faces2?.length ? [] : ['ROSTO_NAO_ENCONTRADO_SELFIE'])];
  if (missing.length || reply.confidence === undefined || !reply.thresholds) return { verdict: 'REPROVADO', similarity: null, liveness: null, signals: missing };
  const similarity = Math.round(reply.confidence * 100) / 10000;
  const signals = reply.faces2!.length > 1 ? ['VARIOS_ROSTOS_SELFIE'] : [];
  if (reply.confidence < reply.thresholds['1e-3']) return { verdict: 'REPROVADO', similarity, liveness: null, signals };
  const verdict = reply.confidence >= reply.thresholds['1e-5'] && signals.length === 0 ? 'APROVADO' : 'INCONCLUSIVO';
  return { verdict, similarity, liveness: null, signals };
}

import { IDENTITY_SIGNAL_TEXTS, type IdentityVerdict } from '../../../domain/collection/kinds/identity.ts';
import { IdentityProviderUnavailable, type IdentityImages, type IdentityProvider, type IdentityVerification } from './provider.ts';

/** The text key of the marker in a PNG tEXt chunk, or the prefix of a JPEG comment (`identity-verdict=APROVADO`). */
export const SANDBOX_MARKER = 'identity-verdict';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngText(bytes: Buffer): string | null {
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  for (let at = 8; at + 12 <= bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt') {
      const [keyword, text] = bytes.toString('latin1', at + 8, at + 8 + length).split('\0');
      if (keyword === SANDBOX_MARKER && text !== undefined) return text;
    }
    if (type === 'IEND') return null;
    at += 12 + length;
  }
  return null;
}

function jpegComment(bytes: Buffer): string | null {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  // Segments up to the start of scan: each is FF <marker> <16-bit length including itself>.
  for (let at = 2; at + 4 <= bytes.length && bytes[at] === 0xff;) {
    const marker = bytes[at + 1]!;
    const length = bytes.readUInt16BE(at + 2);
    if (marker === 0xfe) {
      const text = bytes.toString('latin1', at + 4, at + 2 + length);
      if (text.startsWith(`${SANDBOX_MARKER}=`)) return text.slice(SANDBOX_MARKER.length + 1);
    }
    if (marker === 0xda) return null;
    at += 2 + length;
  }
  return null;
}

const markerOf = (bytes: Buffer) => pngText(bytes) ?? jpegComment(bytes);

const SCORES: Record<IdentityVerdict, { similarity: number; liveness: number }> = {
  APROVADO: { similarity: 0.97, liveness: 0.99 },
  REPROVADO: { similarity: 0.12, liveness: 0.91 },
  INCONCLUSIVO: { similarity: 0.71, liveness: 0.62 },
};

/**
 * The offline default: deterministic, no network. The images decide, like the sandbox CPFs of
 * reports (docs/identity-checks.md): a marker `identity-verdict` in a PNG tEXt chunk or a JPEG
 * comment, read from the selfie, else from the document, with the value `APROVADO`, `REPROVADO`
 * or `INCONCLUSIVO`, optionally followed by signal codes (`REPROVADO;FOTO_DE_TELA`), or
 * `INDISPONIVEL` (the provider gives no result). Identical document and selfie bytes are
 * REPROVADO with IMAGENS_IGUAIS whatever the marker; images without a marker are INCONCLUSIVO
 * (the operator decides).
 */
export class SandboxIdentityProvider implements IdentityProvider {
  readonly name = 'sandbox';
  readonly sandbox = true;

  async verify({ document, selfie }: IdentityImages): Promise<IdentityVerification> {
    if (document.equals(selfie)) return { verdict: 'REPROVADO', similarity: 1, liveness: 0, signals: ['IMAGENS_IGUAIS'], raw: { rule: 'identical-images' } };
    const marker = markerOf(selfie) ?? markerOf(document);
    if (marker === null) return { verdict: 'INCONCLUSIVO', similarity: null, liveness: null, signals: [], raw: { rule: 'no-marker' } };
    const [verdict, ...signals] = marker.split(';').map((part) => part.trim());
    if (verdict === 'INDISPONIVEL') throw new IdentityProviderUnavailable('sandbox: marcador INDISPONIVEL');
    if (verdict !== 'APROVADO' && verdict !== 'REPROVADO' && verdict !== 'INCONCLUSIVO') {
      return { verdict: 'INCONCLUSIVO', similarity: null, liveness: null, signals: [], raw: { rule: 'unknown-marker', marker } };
    }
    return { verdict, ...SCORES[verdict], signals: signals.filter((s) => s in IDENTITY_SIGNAL_TEXTS), raw: { rule: 'marker', marker } };
  }
}

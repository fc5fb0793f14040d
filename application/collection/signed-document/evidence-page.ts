import { StandardFonts, rgb, type PDFDocument, type PDFFont, type PDFPage } from 'pdf-lib';
import { SANDBOX_MARK } from '../../../domain/shared/provenance.ts';
import { formatInstant } from '../../report/export/pt-br.ts';

/** One party as the evidence page shows them: the contact already masked. */
export interface EvidenceParty {
  name: string;
  /** e.g. `e-mail jo***@exemplo.com.br` or `telefone +55*******8888`. */
  verifiedContact: string;
  signedAt: string;
  /** The client address as the service read it (TRUST_PROXY). */
  ip: string | null;
  /** What that reading rests on, as received: the connection's peer and X-Forwarded-For; absent in evidence older than them. */
  socketAddress?: string | null;
  forwardedFor?: string | null;
  userAgent: string | null;
}

export interface Evidence {
  documentName: string;
  originalSha256: string;
  collectionId: string;
  itemId: string;
  provider: string;
  /** When the last party signed (SignatureCompleted). */
  completedAt: string;
  generatedAt: Date;
  parties: EvidenceParty[];
  attachmentName: string;
  /** What the copy's digital signature will be, as far as it is known before signing. */
  signature: {
    /** Host of the TSA that timestamps the signature; null: no timestamp (B-B). */
    timestampAuthority: string | null;
    /** ICP-Brasil policy declared, e.g. `AD-RT v1.3 (2.16.76.1.7.1.12.1.3)`. */
    policy: string | null;
    signerRevocation: 'EMBEDDED' | 'NO_ENDPOINT' | 'INCOMPLETE' | 'NOT_COLLECTED';
    /** Signed with the self-signed default certificate: the page says it is a test copy. */
    sandbox: boolean;
  };
}

const REVOCATION_TEXT = {
  EMBEDDED: 'as respostas OCSP ou LCRs da cadeia do certificado de assinatura estão embutidas neste PDF (DSS), com as da autoridade de carimbo do tempo.',
  NO_ENDPOINT:
    'a cadeia do certificado de assinatura não publica endereço de revogação (OCSP ou LCR), como um certificado autoassinado: não há dados de revogação a embutir, e a validação depende de confiar no próprio certificado.',
  INCOMPLETE: 'parte dos dados de revogação da cadeia do certificado de assinatura não pôde ser obtida; o relatório da cópia na API diz qual.',
  NOT_COLLECTED: 'não coletados (sem carimbo do tempo, a assinatura é PAdES B-B).',
};

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;
const SIZE = 10;
const LEADING = 14;
const INK = rgb(0.12, 0.16, 0.2);
const MUTED = rgb(0.38, 0.43, 0.49);

const when = (iso: string) => `${formatInstant(new Date(iso))} (Brasília) · ${iso}`;

/**
 * Writes lines top-down, wrapping at the margin and opening a new page when one is full. Text a
 * standard font cannot encode (WinAnsi covers Portuguese, not every name or user agent) becomes "?",
 * so an unusual character never stops a signed copy.
 */
class Writer {
  private page!: PDFPage;
  private y = 0;
  private readonly known: Set<number>;
  pages: PDFPage[] = [];

  constructor(
    private readonly doc: PDFDocument,
    private readonly font: PDFFont,
    private readonly bold: PDFFont,
  ) {
    this.known = new Set(font.getCharacterSet());
    this.newPage();
  }

  private newPage() {
    this.page = this.doc.addPage(A4);
    this.pages.push(this.page);
    this.y = A4[1] - MARGIN;
  }

  private clean(text: string): string {
    return [...text.replace(/\s+/g, ' ')].map((c) => (this.known.has(c.codePointAt(0)!) ? c : '?')).join('');
  }

  private wrap(text: string, font: PDFFont, size: number, width: number): string[] {
    const lines: string[] = [];
    let line = '';
    for (const word of text.split(' ')) {
      const candidate = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(candidate, size) <= width || !line) {
        line = candidate;
      } else {
        lines.push(line);
        line = word;
      }
      // A word longer than the line (a hash, a long user agent token) is cut where it overflows.
      while (font.widthOfTextAtSize(line, size) > width && line.length > 1) {
        let cut = line.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(line.slice(0, cut), size) > width) cut--;
        lines.push(line.slice(0, cut));
        line = line.slice(cut);
      }
    }
    if (line) lines.push(line);
    return lines;
  }

  text(text: string, options: { bold?: boolean; size?: number; indent?: number; muted?: boolean } = {}) {
    const font = options.bold ? this.bold : this.font;
    const size = options.size ?? SIZE;
    const x = MARGIN + (options.indent ?? 0);
    for (const line of this.wrap(this.clean(text), font, size, A4[0] - MARGIN - x)) {
      if (this.y < MARGIN + LEADING) this.newPage();
      this.page.drawText(line, { x, y: this.y, size, font, color: options.muted ? MUTED : INK });
      this.y -= size + 4;
    }
  }

  field(label: string, value: string, indent = 0) {
    this.text(`${label}: ${value}`, { indent });
  }

  gap(points = LEADING / 2) {
    this.y -= points;
  }
}

/** Adds the evidence page(s) in Portuguese at the end of `doc`; answers the last one (where the signature goes). */
export async function addEvidencePages(doc: PDFDocument, evidence: Evidence): Promise<PDFPage> {
  const w = new Writer(doc, await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold));
  // Above everything: a copy whose signature nobody vouches for never passes for a real one.
  if (evidence.signature.sandbox) {
    w.text(SANDBOX_MARK, { bold: true, size: 13 });
    w.text('Assinada com o certificado autoassinado padrão do serviço, gerado automaticamente: esta cópia não tem valor fora do ambiente de testes.', { muted: true, size: 9 });
    w.gap();
  }
  w.text('Evidências da assinatura eletrônica', { bold: true, size: 15 });
  w.gap();
  w.field('Documento', evidence.documentName);
  // On a line of its own: beside its label the hash may not fit, and a hash cut in two cannot be copied.
  w.text('SHA-256 do documento original:');
  w.text(evidence.originalSha256, { indent: 14 });
  w.field('Solicitação', evidence.collectionId);
  w.field('Item', evidence.itemId);
  w.field('Provedor de assinatura', evidence.provider);
  w.field('Assinaturas concluídas em', when(evidence.completedAt));
  w.field('Cópia gerada em', when(evidence.generatedAt.toISOString()));
  w.gap(LEADING);
  w.text(`Partes que assinaram (${evidence.parties.length})`, { bold: true, size: 12 });
  evidence.parties.forEach((party, index) => {
    w.gap();
    w.text(`${index + 1}. ${party.name}`, { bold: true });
    w.field('Contato verificado por código', party.verifiedContact, 14);
    w.field('Assinado em', when(party.signedAt), 14);
    w.field('Endereço IP', party.ip ?? 'não informado', 14);
    if (party.socketAddress !== undefined) w.field('Conexão recebida de', party.socketAddress ?? 'não informado', 14);
    if (party.forwardedFor !== undefined) w.field('X-Forwarded-For recebido', party.forwardedFor ?? 'nenhum', 14);
    w.field('Navegador (user agent)', party.userAgent ?? 'não informado', 14);
  });
  w.gap(LEADING);
  w.text('Assinatura digital desta cópia', { bold: true, size: 12 });
  const { signature } = evidence;
  if (signature.timestampAuthority) {
    w.field('Nível', `PAdES B-T ou B-LT, com carimbo do tempo (RFC 3161) de ${signature.timestampAuthority}`);
    // The timestamp covers the signature, which covers this page: its time cannot be printed here,
    // only the service's clock reading it follows. pdfsig's "Signing Time" is that claimed time (/M).
    w.field(
      'Hora da assinatura',
      `a do carimbo do tempo embutido na assinatura digital, emitido depois desta página (que a assinatura cobre), portanto após ${when(evidence.generatedAt.toISOString())}; ` +
        'veja-a no painel de assinaturas do leitor de PDF ou com openssl ts (o "Signing Time" do pdfsig é a hora declarada pelo serviço, não a do carimbo).',
    );
  } else {
    w.field('Nível', 'PAdES B-B, sem carimbo do tempo');
    w.field('Hora da assinatura', `a do relógio do serviço (${when(evidence.generatedAt.toISOString())}), não atestada por terceiro.`);
  }
  if (signature.policy) w.field('Política de assinatura ICP-Brasil', signature.policy);
  w.field('Dados de revogação', REVOCATION_TEXT[signature.signerRevocation]);
  w.gap(LEADING);
  w.text(
    `A trilha de auditoria do item está anexada a este PDF (${evidence.attachmentName}). O arquivo inteiro, ` +
      'com as páginas originais, esta página e o anexo, é selado por uma assinatura digital: qualquer alteração a invalida.',
    { muted: true, size: 9 },
  );
  return w.pages[w.pages.length - 1]!;
}

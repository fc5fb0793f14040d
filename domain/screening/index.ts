import type { TaxDocument } from '../shared/document.ts';
import { diceOf, nameTokens } from './names.ts';

/** The public lists screened (docs/reports.md, Screening). */
export const SCREENING_LISTS = ['OFAC_SDN', 'UN_CONSOLIDATED', 'CEIS', 'CNEP', 'PEP'] as const;
export type ScreeningList = (typeof SCREENING_LISTS)[number];

/** Lists whose match is a sanction (the SANCTIONS section); PEP feeds BASIC_INFORMATION. */
export const SANCTION_LISTS: readonly ScreeningList[] = ['OFAC_SDN', 'UN_CONSOLIDATED', 'CEIS', 'CNEP'];

export const LIST_TITLES: Record<ScreeningList, string> = {
  OFAC_SDN: 'OFAC - Specially Designated Nationals and Blocked Persons List',
  UN_CONSOLIDATED: 'Conselho de Segurança da ONU - Lista Consolidada',
  CEIS: 'CEIS - Cadastro de Empresas Inidôneas e Suspensas',
  CNEP: 'CNEP - Cadastro Nacional de Empresas Punidas',
  PEP: 'PEP - Pessoas Expostas Politicamente',
};

/** Who a listed party is, when the list says: a person is screened only against CPFs, a company only against CNPJs. */
export type PartyKind = 'PERSON' | 'COMPANY' | 'OTHER';

/** One listed party, as every list's parser gives it. */
export interface ListEntry {
  /** The party's id in the list (OFAC uid, UN DATAID, CÓDIGO DA SANÇÃO, the PEP file's line). */
  ref: string;
  kind: PartyKind | null;
  name: string;
  aliases: string[];
  /** Full CPFs or CNPJs (digits) the list gives for the party. */
  documents: string[];
  /**
   * A CPF the list publishes masked (`***.456.789-**`): its six visible digits, the 4th to the
   * 9th. They narrow the party down, never identify it alone: a match needs the name as well.
   */
  maskedCpf: string | null;
  /** What the list says of the party, for the analyst (programs, category, organ, dates). */
  details: Record<string, string>;
}

/** One loaded file of a list: what every match from it cites. */
export interface ListVersion {
  id: string;
  list: ScreeningList;
  /** The file's publication date, or when it was fetched when the file carries none (`publishedAtFrom`). */
  publishedAt: string;
  publishedAtFrom: 'FILE' | 'FETCH';
  sha256: string;
  entryCount: number;
  loadedAt: string;
}

export type MatchBasis = 'DOCUMENT' | 'MASKED_CPF_AND_NAME' | 'NAME';

export interface ScreeningMatch {
  list: ScreeningList;
  listTitle: string;
  listVersionId: string;
  publishedAt: string;
  sha256: string;
  matchedBy: MatchBasis;
  /** Dice's coefficient of the names (1 for a document match). */
  score: number;
  entryRef: string;
  listedName: string;
  /** The listed name or alias that matched (a document match: the listed name). */
  matchedName: string;
  details: Record<string, string>;
}

export interface ScreeningSubject {
  document: TaxDocument;
  /** The registry's name of the subject; null when the registry did not answer (documents only). */
  name: string | null;
}

interface Variant {
  entry: number;
  name: string;
  size: number;
}

const kindFits = (kind: PartyKind | null, document: TaxDocument) => kind === null || (document.type === 'cpf' ? kind === 'PERSON' : kind === 'COMPANY');

const round = (score: number) => Math.round(score * 1000) / 1000;

/**
 * Every loaded entry, indexed by document, by masked CPF digits and by name token, so screening
 * one subject reads only the entries sharing a document or a token with it (not every entry).
 * Name matching: Dice's coefficient of the token sets at or above `threshold`. An entry that
 * carries a full document is matched by it only: a namesake with another CPF/CNPJ is someone else.
 */
export class ScreeningIndex {
  private readonly entries: Array<{ entry: ListEntry; version: ListVersion }> = [];
  private readonly byDocument = new Map<string, number[]>();
  private readonly byMaskedCpf = new Map<string, number[]>();
  private readonly variants: Variant[] = [];
  private readonly byToken = new Map<string, number[]>();

  constructor(readonly threshold: number) {}

  get size(): number {
    return this.entries.length;
  }

  add(version: ListVersion, entry: ListEntry): void {
    const index = this.entries.push({ entry, version }) - 1;
    const push = (map: Map<string, number[]>, key: string, value: number) => {
      const list = map.get(key);
      if (list) list.push(value);
      else map.set(key, [value]);
    };
    for (const document of entry.documents) push(this.byDocument, document, index);
    if (entry.maskedCpf) push(this.byMaskedCpf, entry.maskedCpf, index);
    for (const name of [entry.name, ...entry.aliases]) {
      const tokens = nameTokens(name);
      if (tokens.length === 0) continue;
      const variant = this.variants.push({ entry: index, name, size: tokens.length }) - 1;
      for (const token of tokens) push(this.byToken, token, variant);
    }
  }

  /** The matches of a subject in the given lists, best first; one per listed party. */
  screen(subject: ScreeningSubject, lists: readonly ScreeningList[]): ScreeningMatch[] {
    const wanted = new Set(lists);
    const found = new Map<number, ScreeningMatch>();
    const keep = (index: number, matchedBy: MatchBasis, score: number, matchedName: string) => {
      const { entry, version } = this.entries[index]!;
      if (!wanted.has(version.list)) return;
      const previous = found.get(index);
      if (previous && previous.score >= score) return;
      found.set(index, {
        list: version.list,
        listTitle: LIST_TITLES[version.list],
        listVersionId: version.id,
        publishedAt: version.publishedAt,
        sha256: version.sha256,
        matchedBy,
        score: round(score),
        entryRef: entry.ref,
        listedName: entry.name,
        matchedName,
        details: entry.details,
      });
    };
    const { document } = subject;
    for (const index of this.byDocument.get(document.digits) ?? []) keep(index, 'DOCUMENT', 1, this.entries[index]!.entry.name);
    if (subject.name) {
      const names = this.nameScores(subject.name);
      if (document.type === 'cpf') {
        for (const index of this.byMaskedCpf.get(document.digits.slice(3, 9)) ?? []) {
          const best = names.get(index);
          if (best) keep(index, 'MASKED_CPF_AND_NAME', best.score, best.name);
        }
      }
      for (const [index, best] of names) {
        const { entry } = this.entries[index]!;
        if (entry.documents.length > 0 || entry.maskedCpf || !kindFits(entry.kind, document)) continue;
        keep(index, 'NAME', best.score, best.name);
      }
    }
    return [...found.values()].sort((a, b) => b.score - a.score || a.list.localeCompare(b.list) || a.entryRef.localeCompare(b.entryRef));
  }

  /** Per entry, its best name or alias at or above the threshold. */
  private nameScores(name: string): Map<number, { score: number; name: string }> {
    const tokens = nameTokens(name);
    const shared = new Map<number, number>();
    for (const token of tokens) {
      for (const variant of this.byToken.get(token) ?? []) shared.set(variant, (shared.get(variant) ?? 0) + 1);
    }
    const best = new Map<number, { score: number; name: string }>();
    for (const [index, count] of shared) {
      const variant = this.variants[index]!;
      const score = diceOf(count, tokens.length, variant.size);
      if (score < this.threshold) continue;
      const previous = best.get(variant.entry);
      if (!previous || previous.score < score) best.set(variant.entry, { score, name: variant.name });
    }
    return best;
  }
}

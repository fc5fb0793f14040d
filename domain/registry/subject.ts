import { hasValidCheckDigits, type DocumentType } from '../shared/document.ts';
import { normalizeText } from '../shared/text.ts';

/** Whom a registry is about: the document must name them before it is VALIDO. */
export interface DocumentSubject {
  /** CPF (11 digits) or CNPJ (14 digits). */
  document: string;
  name: string;
}

/**
 * The share of the subject's name tokens a stretch of the document must contain for the name to
 * count as written there (docs/registry.md, "The subject"): 0.75, so a name of two or three tokens
 * needs them all and one of four or more may miss one (an abbreviation, a word OCR misread).
 */
export const NAME_SIMILARITY_THRESHOLD = 0.75;

/** Two tokens of four or more letters at most this far apart (edits per letter) are the same word misread. */
const TOKEN_EDIT_RATIO = 0.2;

/** Words that tell nothing of who someone is: connectives and company-type suffixes. */
const NAME_STOPWORDS = new Set(['DA', 'DE', 'DO', 'DAS', 'DOS', 'E', 'LTDA', 'ME', 'EPP', 'EIRELI', 'SA', 'CIA', 'LIMITADA']);

/** Upper case, no accents, letters and digits only, in tokens, connectives and company types dropped. */
export function nameTokens(name: string): string[] {
  const tokens = normalizeText(name)
    .replace(/[^A-Z0-9]+/g, ' ')
    .split(' ')
    .filter((t) => t.length > 1);
  const kept = tokens.filter((t) => !NAME_STOPWORDS.has(t));
  return kept.length ? kept : tokens;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

const sameToken = (a: string, b: string) => a === b || (a.length >= 4 && b.length >= 4 && editDistance(a, b) <= Math.floor(TOKEN_EDIT_RATIO * Math.max(a.length, b.length)));

/**
 * How much of `name` the text writes in one place: for every run of the text's tokens as long as
 * the name, the share of the name's tokens found in it (in any order, each text token used once),
 * the best run's share. 1 when the whole name is written, whatever the word order or accents.
 */
export function nameSimilarity(name: string, text: string): number {
  const wanted = nameTokens(name);
  const tokens = nameTokens(text);
  if (!wanted.length || !tokens.length) return 0;
  let best = 0;
  for (let start = 0; start < tokens.length && best < 1; start++) {
    const window = tokens.slice(start, start + wanted.length);
    const unused = [...window];
    let found = 0;
    for (const token of wanted) {
      const at = unused.findIndex((candidate) => sameToken(token, candidate));
      if (at < 0) continue;
      unused.splice(at, 1);
      found++;
    }
    best = Math.max(best, found / wanted.length);
  }
  return best;
}

/** Digit runs as written (dots, dashes, slashes and spaces between digits allowed), digits only. */
const digitRuns = (text: string) => (text.match(/\d[\d./\- ]*\d/g) ?? []).map((run) => run.replace(/\D/g, ''));

/** Numbers written as one token of the kind's length (masked or not) with valid check digits. */
function documentsWritten(text: string, kind: DocumentType): string[] {
  const length = kind === 'cpf' ? 11 : 14;
  const tokens = text.split(/\s+/).map((token) => token.replace(/[^\d./-]/g, '').replace(/\D/g, ''));
  return [...new Set(tokens.filter((digits) => digits.length === length && hasValidCheckDigits(kind, digits)))];
}

export type SubjectCheck =
  | { kind: 'named'; by: 'DOCUMENT' | 'NAME'; similarity?: number }
  /** The text writes a CPF (subject a person) or CNPJ (a company) that is not the subject's, nor the subject's anywhere. */
  | { kind: 'someone-else' }
  | { kind: 'not-named' };

/**
 * Whether a document's text names the registry's subject:
 * 1. the subject's CPF/CNPJ digits, in any formatting (a CNPJ of another establishment of the same
 *    company, the same first 8 digits, counts: a branch's papers name the head office);
 * 2. otherwise, another number of the subject's kind (a CNPJ for a company, a CPF for a person)
 *    means the document is someone else's (a company's contract also names its partners' CPFs,
 *    a person's bill its supplier's CNPJ: those do not count against the subject);
 * 3. otherwise the name, at NAME_SIMILARITY_THRESHOLD or above.
 */
export function checkSubject(text: string, subject: DocumentSubject): SubjectCheck {
  const kind: DocumentType = subject.document.length === 11 ? 'cpf' : 'cnpj';
  const runs = digitRuns(text);
  if (runs.some((digits) => digits.includes(subject.document))) return { kind: 'named', by: 'DOCUMENT' };
  const written = documentsWritten(text, kind);
  if (kind === 'cnpj' && written.some((digits) => digits.slice(0, 8) === subject.document.slice(0, 8))) return { kind: 'named', by: 'DOCUMENT' };
  if (written.length) return { kind: 'someone-else' };
  const similarity = nameSimilarity(subject.name, text);
  if (similarity >= NAME_SIMILARITY_THRESHOLD) return { kind: 'named', by: 'NAME', similarity: Math.round(similarity * 100) / 100 };
  return { kind: 'not-named' };
}

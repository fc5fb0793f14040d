import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { TRAIL_GENESIS, canonicalize } from '../../projections/collection/trail-chain.ts';
import { collectionDetail } from '../../projections/collection/queries.ts';
import { exportTrail, trailHead, type ExportedEntry, type TrailSeal } from '../../projections/collection/trail-queries.ts';
import { activeSigningKey, signHead } from '../../application/collection/trail/keys.ts';
import type { AppContext } from '../../application/context.ts';
import { consentEvidence } from './kinds/consent.ts';

/** The export's name and version: scripts/verify-trail.ts refuses any other. */
export const TRAIL_EXPORT_FORMAT = 'collection-trail-export/2';

interface ExportScope {
  db: Knex;
  organizationId: string;
  collectionId: string;
  lastSeq: number;
  exportedAt: string;
  /** The last entry's chain head signed at exportedAt (JSON only). */
  head: TrailSeal;
  /** TRAIL_SEAL_MAX_DELAY_S: the verifier reports an older entry no seal covers. */
  sealMaxDelaySeconds: number;
}

/**
 * What an export of the collection's trail covers, fixed when it begins: up to the last entry, whose
 * chain head is signed at the export's time (an entry dropped from the end of the file no longer
 * matches it). Null when the organization has no such trail.
 */
export async function trailExportScope(app: AppContext, organizationId: string, collectionId: string): Promise<ExportScope | null> {
  const last = await trailHead(app.db, organizationId, collectionId);
  if (!last) return null;
  const exportedAt = app.clock.now().toISOString();
  const head = signHead(await activeSigningKey(app), { collectionId, seq: last.seq, chainHash: last.chainHash, signedAt: exportedAt });
  return { db: app.db, organizationId, collectionId, lastSeq: last.seq, exportedAt, head, sealMaxDelaySeconds: app.config.TRAIL_SEAL_MAX_DELAY_S };
}

const CHUNK_CHARS = 256 * 1024;

/**
 * The texts of `lines` joined into chunks of about 256 KB: one write per entry would cost a
 * chunk of the HTTP reply each, and 100,000 of those take minutes on a busy machine.
 */
async function* chunked(lines: AsyncIterable<string>): AsyncGenerator<string> {
  let parts: string[] = [];
  let size = 0;
  for await (const line of lines) {
    parts.push(line);
    size += line.length;
    if (size >= CHUNK_CHARS) {
      yield parts.join('');
      parts = [];
      size = 0;
    }
  }
  if (parts.length) yield parts.join('');
}

type Evidence = NonNullable<ReturnType<typeof consentEvidence>>;

/**
 * The trail's entries, each with the evidence kept beside it when it has one: a consent's address
 * and user agent, for the organization that exports. The evidence is never part of the entry
 * (neither hashed nor chained), so erasing the person changes no hash; it then reads as null.
 * Only this export adds it: the trail embedded in a signed copy goes to the parties.
 */
async function* entriesWithEvidence(s: ExportScope): AsyncGenerator<ExportedEntry & { evidence?: Evidence }> {
  const state = await collectionDetail(s.db, s.organizationId, s.collectionId);
  const byItem = new Map<string, Evidence>();
  for (const item of state?.items ?? []) {
    const evidence = consentEvidence(item);
    if (evidence) byItem.set(item.itemId, evidence);
  }
  for await (const exported of exportTrail(s.db, s.organizationId, s.collectionId, s.lastSeq)) {
    const { action, itemId } = exported.entry;
    const evidence = action === 'CONSENT_ACCEPTED' && itemId ? byItem.get(itemId) : undefined;
    yield evidence ? { ...exported, evidence } : exported;
  }
}

/** Lines of `{format, ..., entries: [...]}`, one entry per line, built as the rows arrive. */
async function* jsonLines(s: ExportScope): AsyncGenerator<string> {
  const header = {
    format: TRAIL_EXPORT_FORMAT,
    organizationId: s.organizationId,
    collectionId: s.collectionId,
    exportedAt: s.exportedAt,
    genesis: TRAIL_GENESIS,
    entryCount: s.lastSeq,
    sealMaxDelaySeconds: s.sealMaxDelaySeconds,
    head: s.head,
  };
  yield `${JSON.stringify(header).slice(0, -1)},"entries":[\n`;
  let first = true;
  for await (const entry of entriesWithEvidence(s)) {
    yield `${first ? '' : ',\n'}${JSON.stringify(entry)}`;
    first = false;
  }
  yield '\n]}\n';
}

const CSV_COLUMNS = [
  'seq',
  'organizationId',
  'collectionId',
  'itemId',
  'recipientId',
  'action',
  'actorType',
  'actorId',
  'occurredAt',
  'payload',
  'entryHash',
  'chainHash',
  'sealChainHash',
  'sealSignedAt',
  'sealKeyId',
  'sealSignature',
  'sealTimestamp',
  'evidenceIp',
  'evidenceUserAgent',
];

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
const csvField = (value: unknown): string => {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

function csvRow(e: ExportedEntry & { evidence?: Evidence }): string {
  const { entry, seal, evidence } = e;
  // The payload in its RFC 8785 form: the very text that went into the entry hash.
  const values = [
    e.seq,
    entry.organizationId,
    entry.collectionId,
    entry.itemId,
    entry.recipientId,
    entry.action,
    entry.actorType,
    entry.actorId,
    entry.occurredAt,
    canonicalize(entry.payload),
    e.entryHash,
    e.chainHash,
    seal?.chainHash,
    seal?.signedAt,
    seal?.keyId,
    seal?.signature,
    seal?.timestamp,
    evidence?.ip,
    evidence?.userAgent,
  ];
  return `${values.map(csvField).join(',')}\r\n`;
}

async function* csvLines(s: ExportScope): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  for await (const entry of entriesWithEvidence(s)) yield csvRow(entry);
}

/** The whole trail as a stream: memory stays flat for 100,000 entries. */
export function trailExportStream(format: 'json' | 'csv', scope: ExportScope): Readable {
  return Readable.from(chunked(format === 'json' ? jsonLines(scope) : csvLines(scope)));
}

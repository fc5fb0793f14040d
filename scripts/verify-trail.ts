/**
 * Verifies a collection trail export offline: `npx tsx scripts/verify-trail.ts export.json keys.json`
 * (keys.json: the reply of GET /.well-known/collection-trail-keys). Needs nothing of the service,
 * only node's crypto and canonicalize, so an auditor can read all of it. Prints a verdict and exits
 * 1 on any failure. The formulas are in docs/collection-trail.md.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import canonicalizeCjs from 'canonicalize';

// The package is CommonJS (module.exports is the function) while its types declare an ES default.
const canonicalize = canonicalizeCjs as unknown as (input: unknown) => string;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const FORMAT = 'collection-trail-export/2';
const MAX_PROBLEMS_SHOWN = 50;

interface Seal {
  collectionId: string;
  seq: number;
  chainHash: string;
  signedAt: string;
  keyId: string;
  signature: string;
}
interface Entry {
  seq: number;
  entry: Record<string, unknown>;
  entryHash: string;
  chainHash: string;
  seal: Seal | null;
}
export interface TrailExport {
  format: string;
  organizationId: string;
  collectionId: string;
  exportedAt: string;
  genesis: string;
  entryCount: number;
  /** TRAIL_SEAL_MAX_DELAY_S of the service: every entry older than this at the export has a seal covering it. */
  sealMaxDelaySeconds: number;
  /** The last entry's chain head, signed at the export's time. */
  head: Seal;
  entries: Entry[];
}
export interface Verdict {
  ok: boolean;
  problems: string[];
  /** Facts that are not failures: how much was checked, entries after the last seal. */
  notes: string[];
}

interface PublishedKey {
  key: KeyObject;
}

/** The published keys by id; a key whose id does not name its public key is a problem, and left out. */
function publicKeys(keysDocument: unknown, problems: string[]): Map<string, PublishedKey> {
  const list = ((Array.isArray(keysDocument) ? keysDocument : (keysDocument as { keys?: unknown[] })?.keys) ?? []) as Array<{ keyId: string; publicKey: string }>;
  const keys = new Map<string, PublishedKey>();
  for (const k of list) {
    const key = createPublicKey(k.publicKey);
    // The service names a key by its public key, so a key published under another's id is caught here.
    const id = `ed25519-${createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16)}`;
    if (id !== k.keyId) problems.push(`key ${k.keyId}: its id does not name its public key (${id})`);
    else keys.set(k.keyId, { key });
  }
  return keys;
}

/** The seal's signature under its published key; `what` names it in a failure. */
function signatureHolds(seal: Seal, keys: Map<string, PublishedKey>, what: string, problems: string[]): boolean {
  const key = keys.get(seal.keyId);
  if (!key) return !problems.push(`${what}: sealed with unknown key ${seal.keyId}`);
  const message = canonicalize({ collectionId: seal.collectionId, seq: seal.seq, chainHash: seal.chainHash, signedAt: seal.signedAt, keyId: seal.keyId });
  if (!verify(null, Buffer.from(message, 'utf8'), key.key, Buffer.from(seal.signature, 'base64url'))) return !problems.push(`${what}: bad seal signature`);
  return true;
}

function checkSeal(doc: TrailExport, e: Entry, keys: Map<string, PublishedKey>, problems: string[]): boolean {
  const seal = e.seal!;
  if (!signatureHolds(seal, keys, `entry ${e.seq}`, problems)) return false;
  if (seal.collectionId !== doc.collectionId || seal.seq !== e.seq) return !problems.push(`entry ${e.seq}: the seal belongs to collection ${seal.collectionId}, entry ${seal.seq}`);
  if (seal.chainHash !== e.chainHash) return !problems.push(`entry ${e.seq}: the seal signed another chain head (the chain was recomputed)`);
  return true;
}

/**
 * The export's head names its last entry, so an entry dropped from the end of the file is
 * caught; and every entry older than the sealing delay at the export must have a seal at or
 * after it, so a trail cut in the database (the last entries and their seals deleted) is caught
 * when what remains was waiting for the seal that was deleted.
 */
function checkEnd(doc: TrailExport, keys: Map<string, PublishedKey>, lastSealed: number, problems: string[], notes: string[]): void {
  const head = doc.head;
  const last = doc.entries[doc.entries.length - 1];
  if (!head) return void problems.push("no head: the export's end is not signed, entries could have been dropped from it");
  if (!signatureHolds(head, keys, 'the export head', problems)) return;
  if (head.collectionId !== doc.collectionId) return void problems.push(`the export head belongs to collection ${head.collectionId}`);
  if (head.seq !== (last?.seq ?? 0)) return void problems.push(`the export head names entry ${head.seq}, the export ends at entry ${last?.seq ?? 0}: entries were dropped from its end`);
  if (head.chainHash !== last!.chainHash) return void problems.push(`the export head signed another chain head at entry ${head.seq}`);
  if (lastSealed >= last!.seq) return;
  const oldest = doc.entries[lastSealed]!;
  const waited = (Date.parse(head.signedAt) - Date.parse(String(oldest.entry.occurredAt))) / 1000;
  if (waited > doc.sealMaxDelaySeconds) {
    problems.push(`entries ${oldest.seq} to ${last!.seq} are older than the sealing delay (${doc.sealMaxDelaySeconds} s) at the export and no seal covers them: the seal that covered them was removed, with the entries after them`);
  } else {
    notes.push(`entries ${oldest.seq} to ${last!.seq} come after the last valid seal, recorded less than ${doc.sealMaxDelaySeconds} s before the export: the chain and the export head cover them, no seal yet`);
  }
}

export function verifyTrail(doc: TrailExport, keysDocument: unknown): Verdict {
  const problems: string[] = [];
  const notes: string[] = [];
  if (doc?.format !== FORMAT || !Array.isArray(doc.entries)) return { ok: false, problems: [`not a ${FORMAT} export`], notes };
  const keys = publicKeys(keysDocument, problems);
  if (doc.entryCount !== doc.entries.length) problems.push(`the export announces ${doc.entryCount} entries and holds ${doc.entries.length}`);
  let previous = doc.genesis;
  let seals = 0;
  let lastSealed = 0;
  doc.entries.forEach((e, index) => {
    if (e.seq !== index + 1) problems.push(`entry ${e.seq} at position ${index + 1}: an entry was deleted or inserted`);
    if (e.entry.collectionId !== doc.collectionId || e.entry.organizationId !== doc.organizationId) problems.push(`entry ${e.seq}: belongs to another collection`);
    // The entry and the chain are checked apart: an erased personal field fails only the first.
    if (sha256(canonicalize(e.entry)) !== e.entryHash) problems.push(`entry ${e.seq}: content does not match its entry hash (altered, or personal data erased)`);
    if (sha256(previous + e.entryHash) !== e.chainHash) problems.push(`entry ${e.seq}: chain broken (its chain hash does not follow from the previous one)`);
    previous = e.chainHash;
    if (e.seal) {
      seals++;
      if (checkSeal(doc, e, keys, problems)) lastSealed = e.seq;
    }
  });
  if (!seals) problems.push('no seal: an unsigned chain could have been recomputed whole');
  notes.push(`${doc.entries.length} entries, ${seals} seals, keys ${[...keys.keys()].join(', ') || 'none'}`);
  checkEnd(doc, keys, lastSealed, problems, notes);
  return { ok: problems.length === 0, problems, notes };
}

function main(args: string[]): number {
  if (args.length !== 2) {
    console.error('usage: npx tsx scripts/verify-trail.ts export.json keys.json');
    return 2;
  }
  const started = performance.now();
  const cpu = process.cpuUsage();
  const verdict = verifyTrail(JSON.parse(readFileSync(args[0]!, 'utf8')), JSON.parse(readFileSync(args[1]!, 'utf8')));
  for (const note of verdict.notes) console.log(note);
  for (const problem of verdict.problems.slice(0, MAX_PROBLEMS_SHOWN)) console.log(`FAIL ${problem}`);
  if (verdict.problems.length > MAX_PROBLEMS_SHOWN) console.log(`... and ${verdict.problems.length - MAX_PROBLEMS_SHOWN} more problems`);
  // CPU time as well: on a shared machine the wall time says more about the neighbours.
  const { user, system } = process.cpuUsage(cpu);
  console.log(`${verdict.ok ? 'VERIFIED' : 'NOT VERIFIED'} in ${Math.round(performance.now() - started)} ms (${Math.round((user + system) / 1000)} ms of CPU)`);
  return verdict.ok ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));

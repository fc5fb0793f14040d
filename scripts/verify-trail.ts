/**
 * Verifies a collection trail export offline:
 * `npx tsx scripts/verify-trail.ts export.json keys.json [--tsa-ca tsa-ca.pem]`
 * (keys.json: the reply of GET /.well-known/collection-trail-keys; tsa-ca.pem: the TSA's root,
 * which the seals' timestamps must chain to). Needs nothing of the service: node's crypto,
 * canonicalize, and pkijs for the RFC 3161 tokens (platform/timestamp/rfc3161.ts), so an auditor
 * can read all of it. Prints a verdict, the time each seal is proven to exist by, and exits 1 on
 * any failure. The formulas are in docs/collection-trail.md.
 */
import { createHash, createPublicKey, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import canonicalizeCjs from 'canonicalize';
import { certificatesFromPem, TimestampError, verifyTimestampToken } from '../platform/timestamp/rfc3161.ts';

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
  /** RFC 3161 token (DER, base64) over sha256(JCS of the six fields above); null without a TSA. */
  timestamp?: string | null;
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
  /** Every valid seal, with the TSA's time when its timestamp holds (null: no timestamp, the service's word only). */
  seals: SealReport[];
}
export interface SealReport {
  seq: number;
  keyId: string;
  /** genTime of the seal's verified timestamp: the seal existed by then. */
  timestampedAt: string | null;
  /** The TSA certificate's subject. */
  tsa: string | null;
}
export interface VerifyOptions {
  /** DER certificates the timestamps' signers must chain to; none: each token is checked against the certificate it carries. */
  tsaTrustAnchors?: Buffer[];
}

interface PublishedKey {
  key: KeyObject;
  retiredAt: number | null;
}

/** The published keys by id; a key whose id does not name its public key is a problem, and left out. */
function publicKeys(keysDocument: unknown, problems: string[]): Map<string, PublishedKey> {
  const list = ((Array.isArray(keysDocument) ? keysDocument : (keysDocument as { keys?: unknown[] })?.keys) ?? []) as Array<{ keyId: string; publicKey: string; retiredAt?: string | null }>;
  const keys = new Map<string, PublishedKey>();
  for (const k of list) {
    const key = createPublicKey(k.publicKey);
    // The service names a key by its public key, so a key published under another's id is caught here.
    const id = `ed25519-${createHash('sha256')
      .update(key.export({ type: 'spki', format: 'der' }))
      .digest('hex')
      .slice(0, 16)}`;
    if (id !== k.keyId) problems.push(`key ${k.keyId}: its id does not name its public key (${id})`);
    else keys.set(k.keyId, { key, retiredAt: k.retiredAt ? Date.parse(k.retiredAt) : null });
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
    problems.push(
      `entries ${oldest.seq} to ${last!.seq} are older than the sealing delay (${doc.sealMaxDelaySeconds} s) at the export and no seal covers them: the seal that covered them was removed, with the entries after them`,
    );
  } else {
    notes.push(
      `entries ${oldest.seq} to ${last!.seq} come after the last valid seal, recorded less than ${doc.sealMaxDelaySeconds} s before the export: the chain and the export head cover them, no seal yet`,
    );
  }
}

/**
 * A seal's timestamp: a valid RFC 3161 token whose imprint is this seal's digest (a token taken
 * over anything else proves nothing about it), from a TSA chaining to the anchors when given,
 * and not later than its key's retirement (a retired key that leaked cannot make seals that
 * pass for old ones). The allowance of the sealing delay is for the TSA's and the database's
 * clocks, which differ.
 */
async function checkTimestamp(doc: TrailExport, seal: Seal, keys: Map<string, PublishedKey>, options: VerifyOptions, problems: string[]): Promise<SealReport> {
  const report: SealReport = { seq: seal.seq, keyId: seal.keyId, timestampedAt: null, tsa: null };
  if (!seal.timestamp) return report;
  const digest = Buffer.from(
    canonicalize({ collectionId: seal.collectionId, seq: seal.seq, chainHash: seal.chainHash, signedAt: seal.signedAt, keyId: seal.keyId, signature: seal.signature }),
    'utf8',
  );
  try {
    const stamp = await verifyTimestampToken(Buffer.from(seal.timestamp, 'base64'), { data: digest, trustAnchors: options.tsaTrustAnchors });
    const retiredAt = keys.get(seal.keyId)!.retiredAt;
    if (retiredAt !== null && stamp.genTime.getTime() > retiredAt + doc.sealMaxDelaySeconds * 1000) {
      problems.push(`entry ${seal.seq}: timestamped at ${stamp.genTime.toISOString()}, after its key ${seal.keyId} was retired (${new Date(retiredAt).toISOString()})`);
      return report;
    }
    return { ...report, timestampedAt: stamp.genTime.toISOString(), tsa: new X509Certificate(stamp.signerCertificate).subject.replace(/\n/g, ', ') };
  } catch (error) {
    if (!(error instanceof TimestampError)) throw error;
    problems.push(`entry ${seal.seq}: the seal's timestamp does not hold: ${error.message}`);
    return report;
  }
}

export async function verifyTrail(doc: TrailExport, keysDocument: unknown, options: VerifyOptions = {}): Promise<Verdict> {
  const problems: string[] = [];
  const notes: string[] = [];
  const valid: Seal[] = [];
  if (doc?.format !== FORMAT || !Array.isArray(doc.entries)) return { ok: false, problems: [`not a ${FORMAT} export`], notes, seals: [] };
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
      if (checkSeal(doc, e, keys, problems)) {
        lastSealed = e.seq;
        valid.push(e.seal);
      }
    }
  });
  const reports: SealReport[] = [];
  for (const seal of valid) reports.push(await checkTimestamp(doc, seal, keys, options, problems));
  const untimed = reports.filter((r) => !r.timestampedAt).length;
  if (untimed) notes.push(`${untimed} of ${valid.length} valid seals carry no valid timestamp: their time is the service's word only`);
  if (!seals) problems.push('no seal: an unsigned chain could have been recomputed whole');
  notes.push(`${doc.entries.length} entries, ${seals} seals, keys ${[...keys.keys()].join(', ') || 'none'}`);
  checkEnd(doc, keys, lastSealed, problems, notes);
  return { ok: problems.length === 0, problems, notes, seals: reports };
}

async function main(args: string[]): Promise<number> {
  const tsaCa = args.indexOf('--tsa-ca');
  const files = tsaCa === -1 ? args : args.filter((_, i) => i !== tsaCa && i !== tsaCa + 1);
  if (files.length !== 2 || (tsaCa !== -1 && !args[tsaCa + 1])) {
    console.error('usage: npx tsx scripts/verify-trail.ts export.json keys.json [--tsa-ca tsa-ca.pem]');
    return 2;
  }
  const started = performance.now();
  const cpu = process.cpuUsage();
  const options = tsaCa === -1 ? {} : { tsaTrustAnchors: certificatesFromPem(readFileSync(args[tsaCa + 1]!, 'utf8')) };
  const verdict = await verifyTrail(JSON.parse(readFileSync(files[0]!, 'utf8')), JSON.parse(readFileSync(files[1]!, 'utf8')), options);
  for (const note of verdict.notes) console.log(note);
  for (const seal of verdict.seals) console.log(`seal at entry ${seal.seq}, key ${seal.keyId}: ${seal.timestampedAt ? `existed by ${seal.timestampedAt} (timestamp of ${seal.tsa})` : 'no timestamp'}`);
  if (tsaCa === -1 && verdict.seals.some((s) => s.timestampedAt)) console.log("timestamps checked against the certificate each carries; give --tsa-ca to require the TSA's root");
  for (const problem of verdict.problems.slice(0, MAX_PROBLEMS_SHOWN)) console.log(`FAIL ${problem}`);
  if (verdict.problems.length > MAX_PROBLEMS_SHOWN) console.log(`... and ${verdict.problems.length - MAX_PROBLEMS_SHOWN} more problems`);
  // CPU time as well: on a shared machine the wall time says more about the neighbours.
  const { user, system } = process.cpuUsage(cpu);
  console.log(`${verdict.ok ? 'VERIFIED' : 'NOT VERIFIED'} in ${Math.round(performance.now() - started)} ms (${Math.round((user + system) / 1000)} ms of CPU)`);
  return verdict.ok ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await main(process.argv.slice(2));

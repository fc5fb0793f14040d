import type Logger from 'bunyan';
import type { AppContext } from '../../context.ts';
import type { Worker } from '../../worker.ts';
import { requestTimestamp, timestampAuthorityFrom, type TimestampAuthority } from '../../../platform/timestamp/rfc3161.ts';
import { sealDigestInput } from '../../../projections/collection/trail-chain.ts';
import { activeSigningKey, signHead } from './keys.ts';

const BATCH = 200;
/** Timestamp requests in flight at once in one pass. */
const TSA_CONCURRENCY = 4;

interface Queued {
  collection_id: string;
  seq: number;
  chain_hash: string;
  signed_at: string;
  seal_point: boolean;
}
const IDLE_MS = 100;

/**
 * Sign the heads the trail projection queued that are due: a status change at once, another
 * head once it has waited half of TRAIL_SEAL_MAX_DELAY_S (the database's clock, like queued_at).
 * Of a collection's due heads that are not status changes only the last is signed: its chain
 * hash covers the entries before it. With a TSA, each seal carries an RFC 3161 token over its
 * digest (sealDigestInput); a TSA that fails fails the pass, which is repeated (the heads stay
 * queued): a seal is never written without the timestamp a configured TSA owes it.
 * Returns how many queued heads it took.
 */
export async function sealPendingHeads(app: AppContext, tsa: TimestampAuthority | null = timestampAuthorityFrom(app.config)): Promise<number> {
  return app.db.transaction(async (trx) => {
    // SKIP LOCKED: sealers in several processes share the queue without waiting on each other.
    const due: Queued[] = await trx('collection_trail_unsealed')
      .where((q) => q.where('seal_point', true).orWhereRaw('queued_at <= now() - make_interval(secs => ?)', [app.config.TRAIL_SEAL_MAX_DELAY_S / 2]))
      .orderBy(['collection_id', 'seq'])
      .limit(BATCH)
      .forUpdate()
      .skipLocked()
      .select('collection_id', 'seq', 'chain_hash', 'signed_at', 'seal_point');
    if (!due.length) return 0;
    const lastOf = new Map(due.map((d) => [d.collection_id, d.seq]));
    const key = await activeSigningKey(app, trx);
    const signed = due
      .filter((d) => d.seal_point || lastOf.get(d.collection_id) === d.seq)
      .map((p) => signHead(key, { collectionId: p.collection_id, seq: p.seq, chainHash: p.chain_hash, signedAt: p.signed_at }));
    const tokens: Array<string | null> = [];
    for (let i = 0; i < signed.length; i += TSA_CONCURRENCY) {
      const chunk = signed.slice(i, i + TSA_CONCURRENCY);
      tokens.push(...(await Promise.all(chunk.map(async (s) => (tsa ? (await requestTimestamp(tsa, sealDigestInput(s))).token.toString('base64') : null)))));
    }
    const seals = signed.map((s, i) => ({
      collection_id: s.collectionId,
      seq: s.seq,
      chain_hash: s.chainHash,
      signed_at: s.signedAt,
      key_id: s.keyId,
      signature: s.signature,
      timestamp_token: tokens[i],
    }));
    // A seal is written once: a head queued again (after a rebuild) keeps the seal it has.
    await trx('collection_trail_seals').insert(seals).onConflict(['collection_id', 'seq']).ignore();
    await trx('collection_trail_unsealed')
      .whereIn(
        ['collection_id', 'seq'],
        due.map((p) => [p.collection_id, p.seq]),
      )
      .delete();
    return due.length;
  });
}

/**
 * The trail sealer (projector role): signs the chain heads the trail projection queued, so that
 * every entry is covered by a seal within TRAIL_SEAL_MAX_DELAY_S of its projection. Runs in every projector process; the queue's row
 * locks keep two from signing the same head.
 */
export class TrailSealer implements Worker {
  readonly name = 'collection-trail-sealer';
  readonly role = 'projector' as const;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private log!: Logger;
  private tsa: TimestampAuthority | null = null;

  async start(app: AppContext): Promise<void> {
    this.log = app.log.child({ worker: this.name });
    this.tsa = timestampAuthorityFrom(app.config);
    this.loop = this.run(app);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    this.wake?.();
    await this.loop;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }

  private async run(app: AppContext): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      try {
        const taken = await sealPendingHeads(app, this.tsa);
        failures = 0;
        if (taken < BATCH) await this.pause(IDLE_MS);
      } catch (error) {
        failures++;
        this.log.error({ err: error }, 'sealing trail heads failed; retrying');
        await this.pause(Math.min(30_000, 200 * 2 ** failures));
      }
    }
  }
}

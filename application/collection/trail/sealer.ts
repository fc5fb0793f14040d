import type Logger from 'bunyan';
import type { AppContext } from '../../context.ts';
import type { Worker } from '../../worker.ts';
import { activeSigningKey, signHead } from './keys.ts';

const BATCH = 200;
const IDLE_MS = 100;

/** Sign the heads the trail projection queued; returns how many it signed. */
export async function sealPendingHeads(app: AppContext): Promise<number> {
  return app.db.transaction(async (trx) => {
    // SKIP LOCKED: sealers in several processes share the queue without waiting on each other.
    const pending = await trx('collection_trail_unsealed').orderBy(['collection_id', 'seq']).limit(BATCH).forUpdate().skipLocked().select('collection_id', 'seq', 'chain_hash', 'signed_at');
    if (!pending.length) return 0;
    const key = await activeSigningKey(app);
    const seals = pending.map((p) => {
      const s = signHead(key, { collectionId: p.collection_id, seq: p.seq, chainHash: p.chain_hash, signedAt: p.signed_at });
      return { collection_id: s.collectionId, seq: s.seq, chain_hash: s.chainHash, signed_at: s.signedAt, key_id: s.keyId, signature: s.signature };
    });
    // A seal is written once: a head queued again (after a rebuild) keeps the seal it has.
    await trx('collection_trail_seals').insert(seals).onConflict(['collection_id', 'seq']).ignore();
    await trx('collection_trail_unsealed')
      .whereIn(['collection_id', 'seq'], pending.map((p) => [p.collection_id, p.seq]))
      .delete();
    return pending.length;
  });
}

/**
 * The trail sealer (projector role): signs every chain head the trail projection queued at a
 * status change, soon after it is projected. Runs in every projector process; the queue's row
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

  async start(app: AppContext): Promise<void> {
    this.log = app.log.child({ worker: this.name });
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
        const signed = await sealPendingHeads(app);
        failures = 0;
        if (signed < BATCH) await this.pause(IDLE_MS);
      } catch (error) {
        failures++;
        this.log.error({ err: error }, 'sealing trail heads failed; retrying');
        await this.pause(Math.min(30_000, 200 * 2 ** failures));
      }
    }
  }
}

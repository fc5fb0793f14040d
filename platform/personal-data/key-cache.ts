import type { Knex } from 'knex';
import { NoticeListener } from '../database/notice-listener.ts';

/** The channel the subject_keys trigger notifies on an erasure (migrations.ts); payload `<subject id>:<key id>`. */
export const KEYS_ERASED_CHANNEL = 'subject_keys_erased';

const MAX_ENTRIES = 10_000;

/**
 * Opened subject keys, per process (per knex instance), so that each event read by each of the
 * twenty-odd followers does not cost a `subject_keys` query, nor each append one more. An
 * erasure must still stop every process from opening the data at once, so:
 * - a trigger NOTIFYs every erased key when the erasure commits, and every process LISTENs and
 *   drops what the notice names; an erasure in this process drops its entries before it returns;
 * - nothing is cached while the listening connection is down (a notice missed then could leave an
 *   erased key cached), and a lookup that began before a notice does not fill the cache after it;
 * - notices already on the socket are read before the cache is trusted (one turn of the loop).
 * Erased keys are remembered as erased: that never changes back.
 */
export class KeyCache {
  private readonly byId = new Map<string, Buffer | null>();
  private readonly liveBySubject = new Map<string, { keyId: string; key: Buffer }>();
  /**
   * The plain JSON of sealed fields opened lately, by field and sealed text. Each of the
   * followers opens every event it reads, so without it a field was deciphered once per follower,
   * the largest part of reading an event. Only asked once the field's key is known to be live (an
   * erased key never gets this far), and emptied with the keys: no plaintext outlives its key here.
   */
  private readonly plainBySealed = new Map<string, string>();
  /** Bumped by every erasure: a lookup that began before one must not fill the cache after it. */
  private generation = 0;
  private readonly notices: NoticeListener;

  constructor(db: Knex) {
    this.notices = new NoticeListener(
      db,
      KEYS_ERASED_CHANNEL,
      (payload) => {
        const [subjectId, keyId] = payload.split(':');
        if (subjectId) this.erased(subjectId, keyId);
      },
      () => this.forgetAll(),
    );
  }

  /** Usable once listening; until then every lookup goes to the table (and starts listening). */
  ready(): Promise<boolean> {
    return this.notices.ready();
  }

  /** Whether erasures are being heard, hence anything cached. */
  get listening(): boolean {
    return this.notices.listening;
  }

  begin(): number {
    return this.generation;
  }

  key(keyId: string): Buffer | null | undefined {
    return this.byId.get(keyId);
  }

  live(subjectId: string): { keyId: string; key: Buffer } | undefined {
    return this.liveBySubject.get(subjectId);
  }

  /** Remember keys read at `generation` (null: erased for good); nothing if an erasure came since. */
  remember(generation: number, keys: Iterable<[string, Buffer | null]>, live: Iterable<[string, { keyId: string; key: Buffer }]> = []): void {
    if (!this.notices.listening || generation !== this.generation) return;
    for (const [keyId, key] of keys) bounded(this.byId).set(keyId, key);
    for (const [subjectId, entry] of live) bounded(this.liveBySubject).set(subjectId, entry);
  }

  /** The plain JSON of `sealed` (a `field`'s), if opened lately. */
  plain(field: string, sealed: string): string | undefined {
    return this.plainBySealed.get(`${field}\n${sealed}`);
  }

  /** Remember a field opened at `generation`; nothing if an erasure came since. */
  rememberPlain(generation: number, field: string, sealed: string, plain: string): void {
    if (this.notices.listening && generation === this.generation) bounded(this.plainBySealed).set(`${field}\n${sealed}`, plain);
  }

  erased(subjectId: string, keyId?: string): void {
    this.generation++;
    this.plainBySealed.clear();
    const live = this.liveBySubject.get(subjectId);
    this.liveBySubject.delete(subjectId);
    if (live) bounded(this.byId).set(live.keyId, null);
    if (keyId) bounded(this.byId).set(keyId, null);
  }

  close(): Promise<void> {
    return this.notices.close();
  }

  /** The listening connection ended: nothing cached may be trusted any more. */
  private forgetAll(): void {
    this.generation++;
    this.byId.clear();
    this.liveBySubject.clear();
    this.plainBySealed.clear();
  }
}

function bounded<K, V>(map: Map<K, V>): Map<K, V> {
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  return map;
}

const caches = new WeakMap<Knex, KeyCache>();

/** The cache of this knex instance's process: every SubjectKeys over it shares it, erasures included. */
export function keyCacheFor(db: Knex): KeyCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new KeyCache(db)));
  return cache;
}

import type { Knex } from 'knex';
import { LIST_TITLES, ScreeningIndex, type ListVersion, type ScreeningList } from '../../domain/screening/index.ts';
import { NoticeListener } from '../../platform/database/notice-listener.ts';
import { SCREENING_LISTS_CHANNEL, currentVersions, versionEntries } from './store.ts';

/** The loaded lists at one moment: their versions and the index over their entries. */
export interface ScreeningSnapshot {
  index: ScreeningIndex;
  versions: ListVersion[];
}

/** How a section cites a list version it screened against. */
export const citedVersion = (version: ListVersion) => ({
  list: version.list,
  listTitle: LIST_TITLES[version.list],
  listVersionId: version.id,
  publishedAt: version.publishedAt,
  publishedAtFrom: version.publishedAtFrom,
  sha256: version.sha256,
  entryCount: version.entryCount,
  loadedAt: version.loadedAt,
});

/**
 * The in-memory index of the current list versions, for the process that screens (the report
 * worker). Screening asks the database which versions are current and rebuilds the index only
 * when they changed. Which versions are current is kept while a notice (sent when a version
 * becomes current, in any process) can say otherwise, so a report asked for after a load
 * answers against it; while the listening connection is down, it is asked at most once a second.
 * Lists no longer configured are left out.
 */
export class Screening {
  private cached: { key: string; snapshot: ScreeningSnapshot } | null = null;
  private building: { key: string; promise: Promise<ScreeningSnapshot> } | null = null;
  /** `listened`: asked while listening, so kept until a notice; otherwise kept a second. */
  private checked: { at: number; listened: boolean; versions: Promise<ListVersion[]> } | null = null;
  private readonly notices: NoticeListener;

  constructor(
    private readonly db: Knex,
    private readonly lists: readonly ScreeningList[],
    private readonly threshold: number,
  ) {
    const forget = () => (this.checked = null);
    this.notices = new NoticeListener(db, SCREENING_LISTS_CHANNEL, forget, forget);
  }

  close(): Promise<void> {
    return this.notices.close();
  }

  async snapshot(): Promise<ScreeningSnapshot> {
    const versions = await this.current();
    const key = keyOf(versions);
    if (this.cached?.key === key) return this.cached.snapshot;
    if (this.building?.key !== key) {
      const promise = this.build(versions).then((built) => {
        this.cached = built;
        return built.snapshot;
      });
      const building = { key, promise };
      void promise
        .catch(() => undefined)
        .finally(() => {
          if (this.building === building) this.building = null;
        });
      this.building = building;
    }
    return this.building.promise;
  }

  /** The current versions: reports screened together share one query. */
  private async current(): Promise<ListVersion[]> {
    const listening = await this.notices.ready();
    const now = performance.now();
    if (this.checked && (this.checked.listened || (!listening && now - this.checked.at < CHECK_INTERVAL_MS))) return this.checked.versions;
    const versions = currentVersions(this.db).then((all) => all.filter((version) => this.lists.includes(version.list)));
    this.checked = { at: now, listened: listening, versions };
    versions.catch(() => {
      if (this.checked?.versions === versions) this.checked = null;
    });
    return versions;
  }

  /** Index the versions' entries; again if a version was replaced while they were read. */
  private async build(versions: ListVersion[]): Promise<{ key: string; snapshot: ScreeningSnapshot }> {
    for (;;) {
      const index = new ScreeningIndex(this.threshold);
      for (const version of versions) {
        for await (const page of versionEntries(this.db, version.id)) for (const entry of page) index.add(version, entry);
      }
      this.checked = null;
      const now = await this.current();
      if (keyOf(now) === keyOf(versions)) return { key: keyOf(versions), snapshot: { index, versions } };
      versions = now;
    }
  }
}

/** How stale the list of current versions may be while no notice can tell of a new one. */
const CHECK_INTERVAL_MS = 1000;

const keyOf = (versions: readonly ListVersion[]) => versions.map((version) => version.id).join(',');

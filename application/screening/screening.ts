import type { Knex } from 'knex';
import { LIST_TITLES, ScreeningIndex, type ListVersion, type ScreeningList } from '../../domain/screening/index.ts';
import { currentVersions, versionEntries } from './store.ts';

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
 * worker). Screening asks the database which versions are current (one small query, at most once
 * a second) and rebuilds the index only when they changed, so a list the scheduler loads in
 * another process is used within a second. Lists no longer configured are left out.
 */
export class Screening {
  private cached: { key: string; snapshot: ScreeningSnapshot } | null = null;
  private building: { key: string; promise: Promise<ScreeningSnapshot> } | null = null;
  private checked: { at: number; versions: Promise<ListVersion[]> } | null = null;

  constructor(
    private readonly db: Knex,
    private readonly lists: readonly ScreeningList[],
    private readonly threshold: number,
  ) {}

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
      void promise.catch(() => undefined).finally(() => {
        if (this.building === building) this.building = null;
      });
      this.building = building;
    }
    return this.building.promise;
  }

  /** The current versions, asked at most once a second: reports screened together share one query. */
  private current(): Promise<ListVersion[]> {
    const now = performance.now();
    if (this.checked && now - this.checked.at < CHECK_INTERVAL_MS) return this.checked.versions;
    const versions = currentVersions(this.db).then((all) => all.filter((version) => this.lists.includes(version.list)));
    this.checked = { at: now, versions };
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

/** How stale the list of current versions may be: a list loaded elsewhere is used within this. */
const CHECK_INTERVAL_MS = 1000;

const keyOf = (versions: readonly ListVersion[]) => versions.map((version) => version.id).join(',');

import { LIST_TITLES, SCREENING_LISTS, type ScreeningList } from '../../domain/screening/index.ts';
import type { AppContext } from '../context.ts';
import { describeSource } from './read-source.ts';
import { configuredLists } from './refresh.ts';
import { listStates } from './store.ts';

export type ListStatus = 'LOADED' | 'NOT_LOADED' | 'NOT_CONFIGURED';

export interface ListState {
  list: ScreeningList;
  listTitle: string;
  status: ListStatus;
  source: { kind: 'FILE' | 'ADDRESS'; location: string } | null;
  listVersionId: string | null;
  publishedAt: string | null;
  publishedAtFrom: 'FILE' | 'FETCH' | null;
  sha256: string | null;
  byteCount: number | null;
  entryCount: number | null;
  loadedAt: string | null;
  checkedAt: string | null;
  lastFailure: { at: string; message: string } | null;
}

/**
 * Every list the service knows, as screening sees it now: configured or not, the version in use
 * (a version of a list no longer configured is not used, so not shown) and its last failure.
 */
export async function screeningListStates(app: Pick<AppContext, 'db' | 'config'>): Promise<ListState[]> {
  const configured = new Map(configuredLists(app.config).map(({ list, source }) => [list, source]));
  const { versions, failures } = await listStates(app.db);
  return SCREENING_LISTS.map((list) => {
    const source = configured.get(list);
    const version = source === undefined ? undefined : versions.find((v) => v.list === list);
    const failure = failures.find((f) => f.list === list);
    return {
      list,
      listTitle: LIST_TITLES[list],
      status: source === undefined ? 'NOT_CONFIGURED' : version ? 'LOADED' : 'NOT_LOADED',
      source: source === undefined ? null : describeSource(source),
      listVersionId: version?.id ?? null,
      publishedAt: version?.publishedAt ?? null,
      publishedAtFrom: version?.publishedAtFrom ?? null,
      sha256: version?.sha256 ?? null,
      byteCount: version?.byteCount ?? null,
      entryCount: version?.entryCount ?? null,
      loadedAt: version?.loadedAt ?? null,
      checkedAt: version?.checkedAt ?? null,
      lastFailure: failure ? { at: failure.at, message: failure.message } : null,
    };
  });
}

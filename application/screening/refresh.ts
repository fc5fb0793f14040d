import type { Config } from '../../config/index.ts';
import { SCREENING_LISTS, type ScreeningList } from '../../domain/screening/index.ts';
import type { AppContext } from '../context.ts';
import { ScheduledPass } from '../scheduled-pass.ts';
import { ListFormatError, PARSERS, publishedAtOfName } from './parsers.ts';
import { describeSource, ListSourceError, readListSource } from './read-source.ts';
import { currentVersions, recordFailure, VersionWriter } from './store.ts';

type ScreeningConfig = Pick<
  Config,
  | 'SCREENING_OFAC_SDN_SOURCE'
  | 'SCREENING_UN_SOURCE'
  | 'SCREENING_CEIS_SOURCE'
  | 'SCREENING_CNEP_SOURCE'
  | 'SCREENING_PEP_SOURCE'
  | 'SCREENING_MAX_BYTES'
  | 'SCREENING_MAX_UNZIPPED_BYTES'
  | 'SCREENING_FETCH_TIMEOUT_MS'
>;

const SOURCE_KEYS: Record<ScreeningList, keyof ScreeningConfig> = {
  OFAC_SDN: 'SCREENING_OFAC_SDN_SOURCE',
  UN_CONSOLIDATED: 'SCREENING_UN_SOURCE',
  CEIS: 'SCREENING_CEIS_SOURCE',
  CNEP: 'SCREENING_CNEP_SOURCE',
  PEP: 'SCREENING_PEP_SOURCE',
};

/** The lists the configuration gives a source for, with it. */
export function configuredLists(config: Partial<ScreeningConfig>): Array<{ list: ScreeningList; source: string }> {
  return SCREENING_LISTS.flatMap((list) => {
    const source = config[SOURCE_KEYS[list]];
    return typeof source === 'string' && source ? [{ list, source }] : [];
  });
}

type App = Pick<AppContext, 'db' | 'config' | 'clock' | 'ids' | 'log'>;

/**
 * Read one list from its source into a new version: streamed through its parser into the
 * database, then made current unless it is the file already loaded (same SHA-256). A failure
 * leaves the current version in place. Returns whether a new version became current.
 */
export async function loadList(app: App, list: ScreeningList, source: string): Promise<boolean> {
  const startedAt = app.clock.now();
  const file = readListSource(source, {
    maxBytes: app.config.SCREENING_MAX_BYTES,
    maxUnzippedBytes: app.config.SCREENING_MAX_UNZIPPED_BYTES,
    timeoutMs: app.config.SCREENING_FETCH_TIMEOUT_MS,
  });
  const writer = await VersionWriter.begin(app.db, app.ids.objectId(), list, source, startedAt);
  try {
    const parsed = await PARSERS[list](file.chunks, (entries) => writer.add(entries));
    const { sha256, bytes, entryName } = file.digest();
    // A ZIP's entry is named by date (`20261120_CEIS.csv`) when its download address is not.
    const fromFile = parsed.publishedAt ?? publishedAtOfName(source) ?? (entryName === null ? null : publishedAtOfName(entryName));
    return await writer.commit({ publishedAt: fromFile ?? startedAt.toISOString(), publishedAtFrom: fromFile ? 'FILE' : 'FETCH', sha256, byteCount: bytes }, app.clock.now());
  } catch (error) {
    await writer.abandon();
    throw error;
  }
}

/**
 * Load every configured list, side by side; one that fails is logged and keeps its loaded
 * version (if any), the others go on. Returns how many lists got a new version.
 */
export async function refreshScreeningLists(app: App): Promise<number> {
  const loaded = await Promise.all(
    configuredLists(app.config).map(async ({ list, source }) => {
      try {
        const replaced = await loadList(app, list, source);
        if (replaced) app.log.info({ list, source: describeSource(source).location }, 'screening list loaded');
        return replaced;
      } catch (error) {
        app.log.error({ err: error, list, source: describeSource(source).location }, 'screening list not loaded; the version loaded before (if any) stays in use');
        await recordFailure(app.db, list, failureMessage(error, source), app.clock.now()).catch((recording) => app.log.error({ err: recording, list }, 'screening list failure not recorded'));
        return false;
      }
    }),
  );
  return loaded.filter(Boolean).length;
}

/**
 * What the lists route shows of a failure: our own messages (written with the source described,
 * never its address in full), or for any other error (a file system's, a network's) its code
 * only, since its message may quote the path or address.
 */
function failureMessage(error: unknown, source: string): string {
  if (error instanceof ListSourceError || error instanceof ListFormatError) return error.message;
  const code = (error as { code?: unknown; cause?: { code?: unknown } } | null)?.code ?? (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  const where = describeSource(source).location;
  return typeof code === 'string' ? `${where} não foi lido (${code})` : `${where} não foi lido: erro inesperado (detalhes no log do serviço)`;
}

const JOB = 'screening-lists-refresh';

/**
 * The scheduler role's list refresh (SCREENING_REFRESH_CRON). When it starts and a configured
 * list was never loaded, it loads the lists before the start completes, so the first reports
 * are screened; after that a start does not wait (the loaded versions serve until the next tick).
 */
export class ScreeningRefreshJob extends ScheduledPass {
  constructor() {
    super(JOB, (app) => app.config.SCREENING_REFRESH_CRON, refreshScreeningLists, 'screening lists loaded');
  }

  override async start(app: AppContext): Promise<void> {
    await super.start(app);
    const loaded = new Set((await currentVersions(app.db)).map((version) => version.list));
    if (configuredLists(app.config).some(({ list }) => !loaded.has(list))) await this.lockedPass(app);
  }
}

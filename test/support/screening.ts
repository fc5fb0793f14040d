import { sandboxDetails, type SandboxInput } from '../../application/report/sources/sandbox-data.ts';
import type { SourceSectionType } from '../../domain/report/sections.ts';
import { SCREENING_LISTS, ScreeningIndex, type ListVersion } from '../../domain/screening/index.ts';
import type { ScreeningSnapshot } from '../../application/screening/screening.ts';

/** SANCTIONS as a screening with no match gives it (the sandbox makes no SANCTIONS up). */
export const SCREENED_WITHOUT_MATCH = { screened: true, hasSanctions: false, count: 0, records: [] };

/** Section data for tests of the decider and the policy: the sandbox's, and a screening without match. */
export const testSectionDetails = (sectionType: SourceSectionType, input: SandboxInput): Record<string, unknown> =>
  sectionType === 'SANCTIONS' ? { ...SCREENED_WITHOUT_MATCH } : sandboxDetails(sectionType, input);

/** Every list loaded, without entries: whoever is screened is screened, and matches nothing. */
export const listsWithoutEntries = (): { snapshot(): Promise<ScreeningSnapshot>; close(): Promise<void> } => {
  const versions: ListVersion[] = SCREENING_LISTS.map((list, i) => ({
    id: `list${String(i).padStart(20, '0')}`,
    list,
    publishedAt: '2026-11-20',
    publishedAtFrom: 'FILE',
    sha256: '0'.repeat(64),
    entryCount: 0,
    loadedAt: '2026-11-20T00:00:00.000Z',
  }));
  const snapshot = { index: new ScreeningIndex(0.8), versions };
  return { snapshot: async () => snapshot, close: async () => undefined };
};

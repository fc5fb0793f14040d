import { sandboxDetails, type SandboxInput } from '../../application/report/sources/sandbox-data.ts';
import type { SourceSectionType } from '../../domain/report/sections.ts';

/** SANCTIONS as a screening with no match gives it (the sandbox makes no SANCTIONS up). */
export const SCREENED_WITHOUT_MATCH = { screened: true, hasSanctions: false, count: 0, records: [] };

/** Section data for tests of the decider and the policy: the sandbox's, and a screening without match. */
export const testSectionDetails = (sectionType: SourceSectionType, input: SandboxInput): Record<string, unknown> =>
  sectionType === 'SANCTIONS' ? { ...SCREENED_WITHOUT_MATCH } : sandboxDetails(sectionType, input);

import { FinancialUploadMessages as M } from './messages.ts';

export const FINANCIAL_MAX_BYTES = 52_428_800;
export const FINANCIAL_MAX_FILES = 10;
export const FINANCIAL_MAX_NAME_LENGTH = 255;

/**
 * What is wrong with each file a client announces (presign) or sends (multipart), in the order of
 * the files and, within one, name before size: each text prefixed with `files.<position>.` as the
 * contract shows. The spec gives the PDF and size texts; the others follow the validation style.
 * Sizes below 1 are the schema's to refuse (presign) or complete's (an empty multipart file).
 * A name ends in .pdf in any case (`BALANCO.PDF` is a PDF name too).
 */
export function fileProblems(files: ReadonlyArray<{ name: string; size: number }>): string[] {
  return files.flatMap(({ name, size }, i) => {
    const problems: string[] = [];
    if (name.length === 0) problems.push(`files.${i}.name should not be empty`);
    else if (name.length > FINANCIAL_MAX_NAME_LENGTH) problems.push(`files.${i}.name must be shorter than or equal to ${FINANCIAL_MAX_NAME_LENGTH} characters`);
    else if (!name.toLowerCase().endsWith('.pdf')) problems.push(`files.${i}.${M.onlyPdf}`);
    if (size > FINANCIAL_MAX_BYTES) problems.push(`files.${i}.${M.tooLarge}`);
    return problems;
  });
}

export const countMessage = (field: 'files' | 'keys', count: number): string | null =>
  count < 1 ? `${field} must contain at least 1 elements` : count > FINANCIAL_MAX_FILES ? `${field} must contain no more than ${FINANCIAL_MAX_FILES} elements` : null;

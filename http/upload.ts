import { readFile, rm } from 'node:fs/promises';
import formidable, { errors as formidableErrors, type Fields, type Files } from 'formidable';
import type { Context } from 'koa';
import { HttpError } from './errors.ts';

/** One file received in a multipart/form-data body. */
export interface UploadedFile {
  /** The name the sender gave; never trusted for the type (sniff the bytes). */
  fileName: string;
  /** The type the sender claimed; informative only. */
  claimedType: string | null;
  bytes: Buffer;
}

export interface UploadLimits {
  /** The form field that carries the file. */
  field: string;
  /** Each file's limit. */
  maxBytes: number;
  /** Further form fields that each carry one required file (an identity check's document and selfie). */
  alsoFields?: readonly string[];
}

const megabytes = (bytes: number) => (bytes / (1024 * 1024)).toLocaleString('pt-BR', { maximumFractionDigits: 1 });

export const uploadMessages = {
  missingFile: (field: string) => `Envie o arquivo no campo ${field} (multipart/form-data).`,
  tooLarge: (maxBytes: number) => `O arquivo excede o limite de ${megabytes(maxBytes)} MB.`,
  malformed: 'O corpo multipart/form-data é inválido.',
};

/**
 * Reads one file (or one per field of `field` and `alsoFields`) and the text fields of a multipart body. Formidable streams the parts to a
 * temporary file and stops at the limit, so an oversized upload never sits in memory whole; the
 * temporary file is removed before returning.
 */
export async function readUpload(
  ctx: Context,
  limits: UploadLimits,
): Promise<{ file: UploadedFile; files: Record<string, UploadedFile>; fields: Record<string, string> }> {
  const fileFields = [limits.field, ...(limits.alsoFields ?? [])];
  if (!ctx.is('multipart/form-data')) throw new HttpError(400, uploadMessages.missingFile(fileFields.join(', ')));
  const maxTotal = limits.maxBytes * fileFields.length;
  const form = formidable({ maxFiles: fileFields.length, maxFileSize: limits.maxBytes, maxTotalFileSize: maxTotal, maxFields: 50, allowEmptyFiles: false, minFileSize: 1 });
  let parsed: [Fields, Files];
  try {
    parsed = await form.parse(ctx.req);
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === formidableErrors.biggerThanMaxFileSize || code === formidableErrors.biggerThanTotalMaxFileSize) {
      // The rest of the body is not read: close the connection so it is not taken for a request.
      ctx.set('Connection', 'close');
      throw new HttpError(413, uploadMessages.tooLarge(limits.maxBytes));
    }
    if (code === formidableErrors.maxFilesExceeded) throw new HttpError(400, uploadMessages.missingFile(fileFields.join(', ')));
    throw new HttpError(400, uploadMessages.malformed);
  }
  const [fieldValues, files] = parsed;
  const received = Object.values(files).flatMap((list) => list ?? []);
  try {
    const read: Record<string, UploadedFile> = {};
    for (const name of fileFields) {
      const part = files[name]?.[0];
      if (!part) throw new HttpError(400, uploadMessages.missingFile(name));
      read[name] = { fileName: part.originalFilename ?? 'arquivo', claimedType: part.mimetype ?? null, bytes: await readFile(part.filepath) };
    }
    const fields: Record<string, string> = {};
    for (const [name, values] of Object.entries(fieldValues)) if (values?.[0] !== undefined) fields[name] = values[0];
    return { file: read[limits.field]!, files: read, fields };
  } finally {
    await Promise.all(received.map((f) => rm(f.filepath, { force: true })));
  }
}

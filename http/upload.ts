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
  maxBytes: number;
}

const megabytes = (bytes: number) => (bytes / (1024 * 1024)).toLocaleString('pt-BR', { maximumFractionDigits: 1 });

export const uploadMessages = {
  missingFile: (field: string) => `Envie o arquivo no campo ${field} (multipart/form-data).`,
  tooLarge: (maxBytes: number) => `O arquivo excede o limite de ${megabytes(maxBytes)} MB.`,
  malformed: 'O corpo multipart/form-data é inválido.',
};

/**
 * Reads one file and the text fields of a multipart body. Formidable streams the parts to a
 * temporary file and stops at the limit, so an oversized upload never sits in memory whole; the
 * temporary file is removed before returning.
 */
export async function readUpload(ctx: Context, limits: UploadLimits): Promise<{ file: UploadedFile; fields: Record<string, string> }> {
  if (!ctx.is('multipart/form-data')) throw new HttpError(400, uploadMessages.missingFile(limits.field));
  const form = formidable({ maxFiles: 1, maxFileSize: limits.maxBytes, maxTotalFileSize: limits.maxBytes, maxFields: 50, allowEmptyFiles: false, minFileSize: 1 });
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
    if (code === formidableErrors.maxFilesExceeded) throw new HttpError(400, uploadMessages.missingFile(limits.field));
    throw new HttpError(400, uploadMessages.malformed);
  }
  const [fieldValues, files] = parsed;
  const received = Object.values(files).flatMap((list) => list ?? []);
  try {
    const part = files[limits.field]?.[0];
    if (!part) throw new HttpError(400, uploadMessages.missingFile(limits.field));
    const bytes = await readFile(part.filepath);
    const fields: Record<string, string> = {};
    for (const [name, values] of Object.entries(fieldValues)) if (values?.[0] !== undefined) fields[name] = values[0];
    return { file: { fileName: part.originalFilename ?? 'arquivo', claimedType: part.mimetype ?? null, bytes }, fields };
  } finally {
    await Promise.all(received.map((f) => rm(f.filepath, { force: true })));
  }
}

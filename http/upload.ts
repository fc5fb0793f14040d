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

/** Formidable's refusals as the API's: 413 past a limit (the connection then closes), 400 otherwise. */
async function parseForm(ctx: Context, form: ReturnType<typeof formidable>, maxBytes: number, tooManyFiles: string): Promise<[Fields, Files]> {
  try {
    return await form.parse(ctx.req);
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === formidableErrors.biggerThanMaxFileSize || code === formidableErrors.biggerThanTotalMaxFileSize) {
      // The rest of the body is read off before the answer (errorMiddleware, dropUnreadBody), then
      // the connection closes, so nothing of it is taken for a request.
      ctx.set('Connection', 'close');
      throw new HttpError(413, uploadMessages.tooLarge(maxBytes));
    }
    if (code === formidableErrors.maxFilesExceeded) throw new HttpError(400, tooManyFiles);
    throw new HttpError(400, uploadMessages.malformed);
  }
}

/**
 * Reads one file (or one per field of `field` and `alsoFields`) and the text fields of a multipart body. Formidable streams the parts to a
 * temporary file and stops at the limit, so an oversized upload never sits in memory whole; the
 * temporary file is removed before returning.
 */
export async function readUpload(ctx: Context, limits: UploadLimits): Promise<{ file: UploadedFile; files: Record<string, UploadedFile>; fields: Record<string, string> }> {
  const fileFields = [limits.field, ...(limits.alsoFields ?? [])];
  if (!ctx.is('multipart/form-data')) throw new HttpError(400, uploadMessages.missingFile(fileFields.join(', ')));
  const maxTotal = limits.maxBytes * fileFields.length;
  const form = formidable({ maxFiles: fileFields.length, maxFileSize: limits.maxBytes, maxTotalFileSize: maxTotal, maxFields: 50, allowEmptyFiles: false, minFileSize: 1 });
  const [fieldValues, files] = await parseForm(ctx, form, limits.maxBytes, uploadMessages.missingFile(fileFields.join(', ')));
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

/** One file of a multi-file upload, left on disk: several 50 MB files are never in memory together. */
export interface ReceivedFile {
  fileName: string;
  claimedType: string | null;
  path: string;
  sizeBytes: number;
}

/**
 * Several files under one field (a route with `streamedBody` calls it from its handler): each part
 * is streamed to a temporary file within `maxBytes`, at most `maxFiles` of them; `use` gets them in
 * the order sent, and the temporary files are removed when it settles. The refusals are 400 with
 * the route's texts: no file, too many, and a file past `maxBytes` (named by its position; the
 * rest of the body is not read and the connection closes).
 */
export async function receiveFiles<T>(
  ctx: Context,
  limits: { field: string; maxBytes: number; maxFiles: number; messages: { none: string; tooMany: string; tooLarge: (position: number) => string } },
  use: (files: ReceivedFile[]) => Promise<T>,
): Promise<T> {
  if (!ctx.is('multipart/form-data')) throw new HttpError(400, uploadMessages.missingFile(limits.field));
  const form = formidable({
    maxFiles: limits.maxFiles,
    maxFileSize: limits.maxBytes,
    maxTotalFileSize: limits.maxBytes * limits.maxFiles,
    maxFields: 50,
    allowEmptyFiles: true,
    minFileSize: 0,
  });
  // Formidable lists a part when its temporary file is flushed, so a small part can overtake a
  // large one sent before it; the order sent is the order the parts began.
  const sent: object[] = [];
  form.on('fileBegin', (_name, file) => sent.push(file));
  let files: Files;
  try {
    [, files] = await parseForm(ctx, form, limits.maxBytes, limits.messages.tooMany);
  } catch (error) {
    if (error instanceof HttpError && error.status === 413) throw new HttpError(400, limits.messages.tooLarge(sent.length - 1));
    throw error;
  }
  const received = Object.values(files).flatMap((list) => list ?? []);
  try {
    const parts = [...(files[limits.field] ?? [])].sort((a, b) => sent.indexOf(a) - sent.indexOf(b));
    if (!parts.length) throw new HttpError(400, limits.messages.none);
    return await use(parts.map((part) => ({ fileName: part.originalFilename ?? 'arquivo', claimedType: part.mimetype ?? null, path: part.filepath, sizeBytes: part.size })));
  } finally {
    await Promise.all(received.map((f) => rm(f.filepath, { force: true })));
  }
}

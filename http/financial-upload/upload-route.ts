import { financialKey, FinancialUploadLimits } from '../../application/financial-upload/keys.ts';
import { storage } from '../../application/financial-upload/commands.ts';
import { UPLOAD_PATH, verifyUpload } from '../../application/financial-upload/upload-url.ts';
import { objectStoreFor, ObjectSizeMismatchError } from '../../application/object-store.ts';
import { FinancialUploadMessages as M } from '../../domain/financial-upload/messages.ts';
import { HttpError } from '../errors.ts';
import { route } from '../route.ts';
import { UploadParams, UploadQuery, UploadReply } from './schemas.ts';

const DECIMAL = /^\d{1,9}$/;

/**
 * Step 2 with the local object store: the URL presign signed is the authorization (no bearer).
 * Its signature covers the key, the size, the content type and the expiry, and is checked against
 * the request's own Content-Length and Content-Type before a byte of the body is read; the body
 * is then streamed to the store, which keeps it only if exactly that many bytes arrived.
 */
export const uploadRoute = route({
  method: 'put',
  path: `${UPLOAD_PATH}/financial/:organizationId/:reportId/:objectName`,
  summary: 'Direct upload, step 2: PUT the PDF to the URL presign returned',
  description:
    'Public: the signed URL is the authorization. Headers Content-Type exactly application/pdf and Content-Length equal to the size given to presign; ' +
    'the body is the file. 403 `O link de upload expirou...` after 15 minutes, 403 `Link de upload inválido...` for any other value; nothing is stored then.',
  auth: false,
  streamedBody: true,
  params: UploadParams,
  query: UploadQuery,
  responses: { 200: UploadReply },
  errors: [403, 502],
  async handle({ app, params, query, ctx }) {
    const key = financialKey(params.organizationId, params.reportId, params.objectName.slice(0, 24));
    const length = ctx.get('content-length');
    const sizeBytes = DECIMAL.test(length) ? Number(length) : null;
    const attempt = { key, sizeBytes, contentType: ctx.get('content-type'), expires: query.expires, kid: query.kid, signature: query.signature };
    const verdict = verifyUpload(app.config, attempt, app.clock.now());
    if (verdict !== 'valid' || sizeBytes === null) {
      // The body stays unread: close the connection rather than read up to 50 MB to discard it.
      ctx.set('Connection', 'close');
      throw new HttpError(403, verdict === 'expired' ? M.uploadLinkExpired : M.uploadLinkInvalid);
    }
    try {
      await storage(() => objectStoreFor(app.config).put(key, ctx.req, FinancialUploadLimits.contentType, { expectedBytes: sizeBytes, maxBytes: FinancialUploadLimits.maxBytes }));
    } catch (error) {
      // Fewer bytes than announced (the client stopped): nothing was stored.
      if (error instanceof ObjectSizeMismatchError || ctx.req.destroyed) throw new HttpError(400, M.uploadLinkInvalid);
      throw error;
    }
    return { key, sizeBytes };
  },
});

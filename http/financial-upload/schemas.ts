import Type from 'typebox';
import { ObjectIdSchema } from '../route.ts';
import { MAX_INT32 } from '../validation.ts';

// Names and the 50 MB bound are checked after the shape (domain/financial-upload/rules.ts), since
// their texts are the contract's (`files.0.Arquivo maior que 50MB.`), not the schema's: the
// schema's own maximum is only the integer column's.
export const PresignBody = Type.Object({
  files: Type.Array(
    Type.Object({
      name: Type.String({ description: '1 to 255 characters, ending in .pdf' }),
      size: Type.Integer({ minimum: 1, maximum: MAX_INT32, description: 'exact size in bytes, 1 to 52428800' }),
    }),
    { minItems: 1, maxItems: 10 },
  ),
});

export const PresignReply = Type.Array(
  Type.Object({
    key: Type.String({ description: 'what complete takes' }),
    uploadUrl: Type.String({ description: 'PUT the file here, without Authorization, with Content-Type application/pdf and Content-Length equal to size' }),
    expiresInSeconds: Type.Integer({ description: '900' }),
  }),
);

export const CompleteBody = Type.Object({
  keys: Type.Array(Type.String(), { minItems: 1, maxItems: 10, description: 'keys from presign (never the URLs)' }),
});

export const UploadParams = Type.Object({
  organizationId: ObjectIdSchema(),
  reportId: ObjectIdSchema(),
  objectName: Type.String({ pattern: '^[0-9a-f]{24}\\.pdf$' }),
});

export const UploadQuery = Type.Object({
  expires: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Unix seconds' }),
  kid: Type.String({ minLength: 1 }),
  signature: Type.String({ minLength: 1 }),
});

export const UploadReply = Type.Object({ key: Type.String(), sizeBytes: Type.Integer() });

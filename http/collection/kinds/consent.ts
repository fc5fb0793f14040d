import Type from 'typebox';

/** A CONSENT item's term; the service computes its hash (a hash given here is ignored). */
export const ConsentConfigSchema = Type.Object({
  type: Type.String({ pattern: '^[a-z][a-z0-9_]{0,59}$', description: 'names the input key kyc.consentimento_<type>, for example scr or lgpd' }),
  version: Type.Integer({ minimum: 1, maximum: 1000000 }),
  text: Type.String({ minLength: 1, maxLength: 20000 }),
  hash: Type.Optional(Type.String({ description: 'SHA-256 of text, set by the service' })),
}, { description: 'CONSENT items: the term shown and accepted' });

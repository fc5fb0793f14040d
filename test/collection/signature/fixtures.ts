import type { SignatureConfig } from '../../../domain/collection/kinds/signature.ts';
import { cmd, definition, item, recipient, RECIPIENT, SYSTEM } from '../fixtures.ts';

/** Signature decider fixtures: one SIGNATURE item s1 signed by recipients a, b, c (in that order). */
export const SHA = 'ab'.repeat(32);
export const HASH = (code: string) => `hash-${code}`;
export const MINUTE = 60_000;
export const later = (ms: number) => new Date(Date.parse('2026-11-23T12:00:00.000Z') + ms).toISOString();

export const signatureConfig = (extra: Partial<SignatureConfig> = {}): SignatureConfig => ({
  mode: 'JOINT',
  flow: 'SIGNATURE',
  ordered: false,
  registryDocumentId: 'd00000000000000000000001',
  documentSha256: SHA,
  ...extra,
});

export const signing = (config: Partial<SignatureConfig> = {}, parties = ['a', 'b', 'c']) =>
  definition({
    items: [item('s1', { kind: 'SIGNATURE', expectedType: null, title: 'Contrato', config: { signature: signatureConfig(config) } })],
    recipients: parties.map((p) => recipient(p, ['s1'])),
  });

const party = (recipientId: string, at: string) => ({ actor: RECIPIENT(recipientId), at });
export const sendCode = (p: string, code = '123456', at = later(0), channel: 'EMAIL' | 'PHONE' = 'EMAIL') =>
  cmd({ type: 'SendSignatureCode', itemId: 's1', recipientId: p, channel, codeHash: HASH(code) }, party(p, at));
/** `attempt`: the try's number at the current code (the application counts them outside the stream). */
export const verify = (p: string, code = '123456', at = later(MINUTE), attempt = 1) =>
  cmd({ type: 'VerifySignatureContact', itemId: 's1', recipientId: p, codeHash: HASH(code), attempt }, party(p, at));
export const sign = (p: string, at = later(2 * MINUTE)) => cmd({ type: 'SignItem', itemId: 's1', recipientId: p, ip: '203.0.113.7', userAgent: 'Teste/1.0' }, party(p, at));
export const decline = (p: string, reason = 'Valor errado no contrato.') => cmd({ type: 'DeclineSignature', itemId: 's1', recipientId: p, reason }, party(p, later(2 * MINUTE)));
export const recordCopy = (recipientId: string | null = null, blobId = 'blob-1') =>
  cmd({ type: 'RecordSignedDocument', itemId: 's1', recipientId, blobId, sha256: 'cd'.repeat(32), provider: 'interno' }, { actor: SYSTEM, at: later(3 * MINUTE) });

/** A party's full path: code, confirmation, signature. */
export const signs = (p: string) => [sendCode(p), verify(p), sign(p)];

/** An identity check of the party (the identity kind's commands), approved unless told. */
export const identityChecked = (p: string, verdict: 'APROVADO' | 'REPROVADO' = 'APROVADO') => [
  cmd({ type: 'StartIdentityCheck', itemId: 's1', recipientId: p, checkId: `chk-${p}-${verdict}`, imageBlobIds: ['img-1', 'img-2'] }, party(p, later(0))),
  cmd(
    {
      type: 'RecordIdentityResult',
      itemId: 's1',
      recipientId: p,
      check: { checkId: `chk-${p}-${verdict}`, provider: 'offline', verdict, similarity: 0.97, liveness: 0.99, signals: [], imageCount: 2 },
      deployment: 'sandbox',
    },
    { actor: SYSTEM, at: later(0) },
  ),
];

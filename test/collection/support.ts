import { receiveDocument } from '../../application/registry/intake-commands.ts';
import type { ExpectedDocumentType } from '../../domain/collection/enums.ts';
import { checkDigitsOf } from '../../domain/shared/document.ts';
import { presentDetail } from '../../http/collection/present.ts';
import { collectionStream } from '../../domain/collection/events.ts';
import { collectionDetail } from '../../projections/collection/queries.ts';
import { recentTrail } from '../../projections/collection/trail-queries.ts';
import { pdfWith } from '../registry/support.ts';
import type { TestApp } from '../support/app.ts';
import { eventually } from '../support/wait.ts';

export const VALID_CONTRACT = ['CONTRATO SOCIAL', 'Cláusula primeira: da denominação social'];
export const TAX_CERTIFICATE = ['CERTIDÃO NEGATIVA DE DÉBITOS RELATIVOS AOS TRIBUTOS FEDERAIS', 'Procuradoria-Geral da Fazenda Nacional', 'Válida até 30/06/2027'];

export type Call = (method: string, path: string, body?: unknown, token?: string) => Promise<{ status: number; body: any }>;

/** A recipient's upload for an item, as the recipient page does it: the registry receives the file with its source. The file names the collection's subject. */
export async function upload(
  app: TestApp,
  organizationId: string,
  collection: any,
  itemIndex: number,
  recipientIndex: number,
  lines: readonly string[],
  expectedType: ExpectedDocumentType | null = 'CONTRATO_SOCIAL',
) {
  const item = collection.items[itemIndex];
  const recipient = collection.recipients[recipientIndex];
  const source = { collectionId: collection.id, itemId: item.id, recipientId: recipient.id };
  return receiveDocument(app.app, {
    organizationId,
    registryId: collection.registryId,
    fileName: 'documento.pdf',
    // The analysis checks the document names the registry's subject (docs/registry.md): it does.
    bytes: await pdfWith([...lines, `CNPJ ${collection.subjectDocument}`]),
    expectedType,
    source,
    actor: { actorType: 'RECIPIENT', actorId: recipient.id },
  });
}

/**
 * Wait until the read model shows `check` (the analysis and the process manager run in the
 * background), then read the detail once through HTTP: polling the route would hit the rate limit.
 */
export async function detailWhen(app: TestApp, call: Call, organizationId: string, collectionId: string, check: (c: any) => boolean, what: string) {
  await eventually(
    async () => {
      const state = await collectionDetail(app.app.db, organizationId, collectionId);
      return state !== null && check(presentDetail(state, null, []));
    },
    { timeoutMs: 20_000, what: what },
  );
  // The detail's trail comes from another projection, which may not have caught up yet. Workers
  // may append more meanwhile (a signed copy, a completion): at least what was there is enough.
  const events = (await app.app.store.readStream(collectionStream(collectionId))).length;
  await eventually(async () => ((await recentTrail(app.app.db, organizationId, collectionId, 1))[0]?.seq ?? 0) >= events, { timeoutMs: 20_000, what: `${what}: the trail` });
  return (await call('GET', `/v1/collections/${collectionId}`)).body;
}

let companies = 0;
/** A fresh valid CNPJ per call: each test its own registry, so no document of another test is on file. */
export function newCnpj(): string {
  const base = `${String(Date.now() % 1e8).padStart(8, '0')}${String(++companies).padStart(4, '0')}`;
  return base + checkDigitsOf('cnpj', base);
}

/**
 * A trail's actions, newest first, without the outcomes of the recipients' messages: those are
 * recorded when the message has gone out (or, with no real channel, was not sent), which may be
 * before or after whatever the test did next.
 */
export function trailActions(trail: ReadonlyArray<{ action: string }>): string[] {
  return trail.map((entry) => entry.action).filter((action) => action !== 'RECIPIENT_NOTIFIED' && action !== 'RECIPIENT_MESSAGE_FAILED');
}

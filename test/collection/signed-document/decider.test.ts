import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { plannedCopies } from '../../../application/collection/signed-document/copies.ts';
import type { CollectionCommand } from '../../../domain/collection/commands.ts';
import { collectionDecider } from '../../../domain/collection/decider.ts';
import { SignedDocumentMessages } from '../../../domain/collection/kinds/signed-document.ts';
import type { CollectionModuleEvent } from '../../../domain/collection/payloads.ts';
import { Messages } from '../../../domain/shared/messages.ts';
import { given } from '../../support/decider.ts';
import { cmd, create, history, OTHER_ORG, stateOf, USER } from '../fixtures.ts';
import { recordCopy, signing, signs } from '../signature/fixtures.ts';

const test = suite('collection decider: downloads of the signed copy');
const more = (events: CollectionModuleEvent[], ...commands: CollectionCommand[]) => commands.reduce((all, command) => [...all, ...collectionDecider.decide(command, stateOf(all))], events);
const download = (recipientId: string | null = null, organizationId?: string) => cmd({ type: 'RecordSignedDocumentDownload', itemId: 's1', recipientId }, organizationId ? { organizationId } : {});
const joint = () => more(history(create(true, signing())), ...signs('a'), ...signs('b'), ...signs('c'));
const individual = () => more(history(create(true, signing({ mode: 'INDIVIDUAL' }, ['a', 'b']))), ...signs('a'), ...signs('b'));

test("JOINT: 404 until the copy is recorded, then ITEM_FILE_DOWNLOADED by the operator with the copy's hash, also once the collection completed", () => {
  given(collectionDecider, joint()).when(download()).thenError('not_found', SignedDocumentMessages.notGenerated);
  const done = more(joint(), recordCopy(null, 'blob-joint'));
  assert.is(stateOf(done).status, 'COMPLETED');
  const [entry, ...rest] = given(collectionDecider, done).when(download('a')).decided();
  assert.is(rest.length, 0);
  assert.equal(
    [entry!.type, entry!.data.action, entry!.data.itemId, entry!.data.recipientId, entry!.data.actorType, entry!.data.actorId],
    ['ItemFileDownloaded', 'ITEM_FILE_DOWNLOADED', 's1', null, 'USER', USER.actorId],
  );
  assert.equal(entry!.data.payload, { file: 'SIGNED_DOCUMENT', sha256: 'cd'.repeat(32) });
  assert.is(stateOf([...done, entry!]).items[0]!.status, 'VALIDATED');
});

test("INDIVIDUAL: each party's copy by recipientId; none named is a 400, a party without a copy yet a 404", () => {
  const one = more(individual(), recordCopy('a', 'blob-a'));
  given(collectionDecider, one).when(download()).thenError('invalid', SignedDocumentMessages.recipientRequired);
  given(collectionDecider, one).when(download('b')).thenError('not_found', SignedDocumentMessages.notGenerated);
  assert.is(given(collectionDecider, one).when(download('a')).decided()[0]!.data.recipientId, 'a');
});

test("another organization's collection, an unknown item or an item that is not a signature: 404", () => {
  const done = more(joint(), recordCopy(null));
  given(collectionDecider, done).when(download(null, OTHER_ORG)).thenError('not_found', Messages.collectionNotFound);
  given(collectionDecider, done)
    .when(cmd({ type: 'RecordSignedDocumentDownload', itemId: 'nope', recipientId: null }))
    .thenError('not_found', /Item não encontrado/);
  given(collectionDecider, history(create()))
    .when(cmd({ type: 'RecordSignedDocumentDownload', itemId: 'i1', recipientId: null }))
    .thenError('not_found', SignedDocumentMessages.notASignature);
});

test('planned copies: JOINT one with every signed party in signing order, INDIVIDUAL one per party with theirs; contacts masked', () => {
  const [copy, ...none] = plannedCopies(stateOf(joint()), stateOf(joint()).items[0]!);
  assert.is(none.length, 0);
  assert.is(copy!.recipientId, null);
  assert.equal(
    copy!.parties.map((p) => [p.name, p.verifiedContact, p.ip, p.userAgent]),
    [
      ['Pessoa a', 'e-mail a***@example.com', '203.0.113.7', 'Teste/1.0'],
      ['Pessoa b', 'e-mail b***@example.com', '203.0.113.7', 'Teste/1.0'],
      ['Pessoa c', 'e-mail c***@example.com', '203.0.113.7', 'Teste/1.0'],
    ],
  );
  const state = stateOf(individual());
  assert.equal(
    plannedCopies(state, state.items[0]!).map((c) => [c.recipientId, c.parties.map((p) => p.name)]),
    [
      ['a', ['Pessoa a']],
      ['b', ['Pessoa b']],
    ],
  );
});

test.run();

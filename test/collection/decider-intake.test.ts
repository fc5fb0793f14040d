import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionDecider } from '../../domain/collection/decider.ts';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import { feedsRegistry } from '../../domain/collection/state.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { given } from '../support/decider.ts';
import { AT, CID, cmd, create, history, ORG, OTHER_ORG, stateOf, SYSTEM, USER } from './fixtures.ts';

const test = suite("collection decider: a public form's intake and its link");
const LATER = '2026-11-25T09:30:00.000Z';

const openIntake = (intake: 'UNLINKED' | 'SELF_DECLARED') => cmd({ ...create(true), intake } as never, { actor: SYSTEM });
const link = cmd({ type: 'LinkIntake' }, { at: LATER });

test('a public form opens an UNLINKED intake: origin and intake in the trail entry, nothing of it feeds the registry', () => {
  const [created] = given(collectionDecider).when(openIntake('UNLINKED')).decided();
  const payload = created!.data.payload as { origin?: string; intake?: string };
  assert.equal([payload.origin, payload.intake], ['PUBLIC_FORM', 'UNLINKED']);
  const state = stateOf(history(openIntake('UNLINKED')));
  assert.equal([state.origin, state.intake], ['PUBLIC_FORM', { status: 'UNLINKED', linkedAt: null, linkedBy: null }]);
  assert.is(feedsRegistry(state), false);
  assert.is(feedsRegistry(stateOf(history(openIntake('SELF_DECLARED')))), true, 'a registry the intake created holds only what it declared');
  assert.is(feedsRegistry(stateOf(history(create(true)))), true, "an operator's collection is the registry's");
  assert.equal(stateOf(history(create(true))).origin, null);
});

test('link: INTAKE_LINKED with the registry and the operator as actor; the intake now feeds the registry', () => {
  given(collectionDecider, history(openIntake('UNLINKED')))
    .when(link)
    .then([
      {
        type: 'IntakeLinked',
        data: {
          organizationId: ORG,
          collectionId: CID,
          itemId: null,
          recipientId: null,
          action: 'INTAKE_LINKED',
          actorType: USER.actorType,
          actorId: USER.actorId,
          occurredAt: LATER,
          payload: { registryId: 'r00000000000000000000001' },
        },
      },
    ]);
  const state = stateOf(history(openIntake('UNLINKED'), link));
  assert.equal(state.intake, { status: 'LINKED', linkedAt: LATER, linkedBy: USER });
  assert.is(feedsRegistry(state), true);
});

test('link also after the visitor finished or the collection closed: the answers are what the operator vouches for', () => {
  const events = given(collectionDecider, history(openIntake('UNLINKED'), cmd({ type: 'CancelCollection', reason: null }, { at: AT })))
    .when(link)
    .decided();
  assert.equal(
    events.map((e) => e.type),
    ['IntakeLinked'],
  );
});

test('link refusals: not an intake, already linked, a self-declared intake, another tenant or nothing at all', () => {
  given(collectionDecider, history(create(true)))
    .when(link)
    .thenError('conflict', CollectionMessages.notAnIntake);
  given(collectionDecider, history(openIntake('UNLINKED'), link))
    .when(link)
    .thenError('conflict', CollectionMessages.intakeAlreadyLinked);
  given(collectionDecider, history(openIntake('SELF_DECLARED')))
    .when(link)
    .thenError('conflict', CollectionMessages.intakeAlreadyLinked);
  given(collectionDecider, history(openIntake('UNLINKED')))
    .when(cmd({ type: 'LinkIntake' }, { organizationId: OTHER_ORG }))
    .thenError('not_found', Messages.collectionNotFound);
  given(collectionDecider).when(link).thenError('not_found', Messages.collectionNotFound);
});

test.run();

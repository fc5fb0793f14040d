import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fold } from '../../domain/shared/decider.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { LEGACY_TYPES } from '../../domain/webhook/catalog.ts';
import { webhookDecider } from '../../domain/webhook/decider.ts';
import { WebhookEventTypes, type WebhookEvent } from '../../domain/webhook/events.ts';
import { WebhookMessages } from '../../domain/webhook/messages.ts';
import { given } from '../support/decider.ts';

const ORG = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const OTHER_ORG = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const SUB = 'cccccccccccccccccccccccc';
const at = '2026-01-02T03:04:05.000Z';
const issued = { organizationId: ORG, by: 'user-1', at };

const createdNamed: WebhookEvent = {
  type: WebhookEventTypes.created,
  data: {
    subscriptionId: SUB,
    organizationId: ORG,
    family: 'named',
    legacyType: null,
    url: 'https://hooks.example.com/in',
    sealedApiKey: null,
    apiKeyHash: null,
    events: ['report.finished', 'collection.created'],
    description: null,
    sealedSecret: 'sealed-1',
    createdBy: 'user-1',
    createdAt: at,
  },
};
const createdLegacy: WebhookEvent = {
  type: WebhookEventTypes.created,
  data: { ...createdNamed.data, family: 'legacy', legacyType: 'REPORT', events: [], sealedSecret: null, sealedApiKey: 'sealed-k', apiKeyHash: 'hash-k' } as never,
};

const test = suite('webhook decider');

test('a legacy subscription is created with its type, url and api key (sealed and hashed by the application)', () => {
  given(webhookDecider, [])
    .when({ ...issued, kind: 'createLegacy', subscriptionId: SUB, legacyType: 'REPORT_STATUS', url: 'https://x.example/hook', sealedApiKey: 'sealed', apiKeyHash: 'hash' })
    .then([
      {
        type: WebhookEventTypes.created,
        data: {
          subscriptionId: SUB,
          organizationId: ORG,
          family: 'legacy',
          legacyType: 'REPORT_STATUS',
          url: 'https://x.example/hook',
          sealedApiKey: 'sealed',
          apiKeyHash: 'hash',
          events: [],
          description: null,
          sealedSecret: null,
          createdBy: 'user-1',
          createdAt: at,
        },
      },
    ]);
});

test('a subscription with an unknown type or a bad url is refused with the contract text alone, the rule that refuses it in detail', () => {
  const create = { ...issued, kind: 'createLegacy' as const, subscriptionId: SUB, sealedApiKey: null, apiKeyHash: null };
  const refused = (reason: string) => [Messages.invalidWebhookUrl, { detail: reason }] as const;
  given(webhookDecider, [])
    .when({ ...create, legacyType: 'NOPE', url: 'https://x.example' })
    .thenError('invalid', ...refused(`O tipo precisa ser um de: ${LEGACY_TYPES.join(', ')}.`));
  given(webhookDecider, [])
    .when({ ...create, legacyType: 'REPORT', url: 'ftp://x.example' })
    .thenError('invalid', ...refused('A URL precisa começar com http:// ou https://.'));
  given(webhookDecider, [])
    .when({ ...create, legacyType: 'REPORT', url: 'https://user:pw@x.example' })
    .thenError('invalid', ...refused('A URL não pode conter usuário e senha.'));
  given(webhookDecider, [])
    .when({ ...create, legacyType: 'REPORT', url: 'https://x.example:0/' })
    .thenError('invalid', ...refused('A porta da URL precisa estar entre 1 e 65535.'));
  given(webhookDecider, [])
    .when({ ...create, legacyType: 'REPORT', url: `https://x.example/${'a'.repeat(2048)}` })
    .thenError('invalid', ...refused('A URL está vazia ou passa de 2048 caracteres.'));
  const named = { ...issued, kind: 'createNamed' as const, subscriptionId: SUB, events: ['report.finished'], description: null, sealedSecret: 's' };
  given(webhookDecider, [])
    .when({ ...named, url: 'hooks' })
    .thenError('invalid', ...refused('O texto informado não é uma URL absoluta.'));
});

test('a named subscription needs known events, and drops duplicates', () => {
  const create = { ...issued, kind: 'createNamed' as const, subscriptionId: SUB, url: 'https://x.example', description: null, sealedSecret: 's' };
  given(webhookDecider, [])
    .when({ ...create, events: [] })
    .thenError('invalid', WebhookMessages.noEvents);
  given(webhookDecider, [])
    .when({ ...create, events: ['ping'] })
    .thenError('invalid', WebhookMessages.unknownEvent('ping'));
  const [event] = webhookDecider.decide({ ...create, events: ['registry.updated', 'registry.updated'] }, webhookDecider.initialState());
  assert.equal((event!.data as { events: string[] }).events, ['registry.updated']);
});

test('update records only what changed, and nothing when nothing did', () => {
  given(webhookDecider, [createdNamed])
    .when({ ...issued, kind: 'update', url: 'https://hooks.example.com/in', events: ['report.finished', 'collection.created'] })
    .then([]);
  given(webhookDecider, [createdNamed])
    .when({ ...issued, kind: 'update', url: 'https://new.example/in', events: ['report.finished', 'collection.created'] })
    .then([{ type: WebhookEventTypes.updated, data: { subscriptionId: SUB, organizationId: ORG, url: 'https://new.example/in', updatedBy: 'user-1', updatedAt: at } }]);
});

test('another organization, the other family or a deleted subscription is not found', () => {
  given(webhookDecider, [createdNamed])
    .when({ ...issued, organizationId: OTHER_ORG, kind: 'enable' })
    .thenError('not_found', WebhookMessages.subscriptionNotFound);
  given(webhookDecider, [createdNamed])
    .when({ ...issued, kind: 'delete', family: 'legacy' })
    .thenError('not_found', WebhookMessages.recordToDeleteNotFound);
  given(webhookDecider, [createdLegacy])
    .when({ ...issued, kind: 'rotateSecret', sealedSecret: 'x', previousSecretExpiresAt: at })
    .thenError('not_found', WebhookMessages.subscriptionNotFound);
  const deleted: WebhookEvent = { type: WebhookEventTypes.deleted, data: { subscriptionId: SUB, organizationId: ORG, deletedBy: 'u', deletedAt: at } };
  given(webhookDecider, [createdLegacy, deleted])
    .when({ ...issued, kind: 'delete', family: 'legacy' })
    .thenError('not_found', WebhookMessages.recordToDeleteNotFound);
});

test('disable is recorded with its reason once; enable brings it back', () => {
  const disabled: WebhookEvent = {
    type: WebhookEventTypes.disabled,
    data: { subscriptionId: SUB, organizationId: ORG, reason: 'consecutive_failures', consecutiveFailures: 20, disabledBy: null, disabledAt: at },
  };
  given(webhookDecider, [createdNamed])
    .when({ ...issued, by: null, kind: 'disable', family: 'named', reason: 'consecutive_failures', consecutiveFailures: 20 })
    .then([disabled]);
  given(webhookDecider, [createdNamed, disabled])
    .when({ ...issued, kind: 'disable', family: 'named', reason: 'manual' })
    .then([]);
  given(webhookDecider, [createdNamed, disabled])
    .when({ ...issued, kind: 'enable' })
    .then([{ type: WebhookEventTypes.enabled, data: { subscriptionId: SUB, organizationId: ORG, enabledBy: 'user-1', enabledAt: at } }]);
  const state = fold(webhookDecider, [createdNamed, disabled]);
  assert.is(state.status, 'disabled');
  assert.is(state.disabledReason, 'consecutive_failures');
});

test('rotation keeps the previous sealed secret until the overlap ends', () => {
  const rotated: WebhookEvent = {
    type: WebhookEventTypes.secretRotated,
    data: { subscriptionId: SUB, organizationId: ORG, sealedSecret: 'sealed-2', previousSecretExpiresAt: '2026-01-03T03:04:05.000Z', rotatedBy: 'user-1', rotatedAt: at },
  };
  given(webhookDecider, [createdNamed])
    .when({ ...issued, kind: 'rotateSecret', sealedSecret: 'sealed-2', previousSecretExpiresAt: '2026-01-03T03:04:05.000Z' })
    .then([rotated]);
  const state = fold(webhookDecider, [createdNamed, rotated]);
  assert.is(state.sealedSecret, 'sealed-2');
  assert.is(state.previousSealedSecret, 'sealed-1');
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TemplateContent } from '../../domain/collection-template/content.ts';
import { collectionTemplateDecider, switchedVersions, templateOf } from '../../domain/collection-template/decider.ts';
import type { CollectionTemplateEvent } from '../../domain/collection-template/events.ts';
import { TemplateMessages } from '../../domain/collection-template/messages.ts';
import { PLATFORM_TEMPLATES } from '../../domain/collection-template/platform.ts';
import { fold } from '../../domain/shared/decider.ts';
import { given } from '../support/decider.ts';
import { sampleContent } from './support.ts';

const test = suite('collection template decider');
const ORG = 'a'.repeat(24);
const TEMPLATE = 'b'.repeat(24);
const AT = '2026-11-23T12:00:00.000Z';
const who = { organizationId: ORG, userId: 'c'.repeat(24), at: AT };
const version = (n: number, content: TemplateContent = sampleContent()): CollectionTemplateEvent => ({
  type: n === 1 ? 'CollectionTemplateCreated' : 'CollectionTemplateVersioned',
  data: { organizationId: ORG, templateId: TEMPLATE, slug: 'rural', version: n, content, userId: who.userId, createdAt: AT },
});
const create = (slug: string, content: TemplateContent = sampleContent()) => ({ type: 'CreateTemplate' as const, ...who, templateId: TEMPLATE, slug, content });
const revise = (slug: string, content: TemplateContent) => ({ type: 'ReviseTemplate' as const, ...who, slug, content });
const toggle = (slug: string, enabled: boolean) => ({ type: 'SwitchTemplate' as const, ...who, slug, enabled });

test('create: version 1 with the whole content', () => {
  given(collectionTemplateDecider)
    .when(create('rural'))
    .then([version(1)]);
});

test('create: a slug taken by the organization or by a platform template (any case) is refused', () => {
  given(collectionTemplateDecider, [version(1)])
    .when(create('RURAL'))
    .thenError('conflict', TemplateMessages.slugTaken);
  given(collectionTemplateDecider).when(create('Company-Onboarding')).thenError('conflict', TemplateMessages.slugTaken);
  given(collectionTemplateDecider).when(create('com espaço')).thenError('invalid', TemplateMessages.invalidSlug);
});

test('content rules: kinds, expectedType only for DOCUMENT, keys, bounds, completion targets', () => {
  const item = sampleContent().items[0]!;
  const refused: Array<[Partial<TemplateContent>, string]> = [
    [{ items: [] }, TemplateMessages.itemsRequired],
    [{ items: [{ ...item, kind: 'PHOTO' as never }] }, TemplateMessages.invalidItemKind],
    [{ items: [{ ...item, kind: 'FORM', expectedType: 'DOC_IDENTIDADE' }] }, TemplateMessages.expectedTypeOnlyForDocument],
    [{ items: [{ ...item, expectedType: 'NAO_IDENTIFICADO' }] }, TemplateMessages.invalidExpectedType],
    [{ items: [item, { ...item }] }, TemplateMessages.duplicateItemKey],
    [{ items: [{ ...item, key: 'Com Espaço' }] }, TemplateMessages.invalidItemKey],
    [{ expiryDays: 0 }, TemplateMessages.invalidExpiryDays],
    [{ expiryDays: 366 }, TemplateMessages.invalidExpiryDays],
    [{ reminderDays: [7, 3] }, TemplateMessages.invalidReminderDays],
    [{ reminderDays: [10] }, TemplateMessages.invalidReminderDays],
    [{ onCompleted: { kind: 'POLICY', id: null } }, TemplateMessages.invalidCompletion],
    [{ onCompleted: { kind: 'NONE', id: TEMPLATE } }, TemplateMessages.invalidCompletion],
    [{ onCompleted: { kind: 'NONE', id: null, byEntityType: { PERSON: { kind: 'OPERATION', id: 'xyz' } } } }, TemplateMessages.invalidCompletion],
  ];
  for (const [change, message] of refused)
    given(collectionTemplateDecider)
      .when(create('rural', sampleContent(change)))
      .thenError('invalid', message);
  // Every kind is accepted in a definition, with its config where the kind has one.
  const later = ['IDENTITY', 'CONSENT', 'SIGNATURE', 'FORM', 'CUSTOM'].map((kind, i) => ({ ...item, key: `k${i}`, kind: kind as never, expectedType: null }));
  // FORM and CONSENT items need their config (domain/collection/kinds).
  Object.assign(later[1]!, { config: sampleContent().items[2]!.config });
  Object.assign(later[3]!, { config: { form: { fields: [{ key: 'a', label: 'A', type: 'STRING', required: true, choices: null, validation: null }] } } });
  // A SIGNATURE item needs its config; a template may leave the document to the collection.
  Object.assign(later[2]!, { config: { signature: { mode: 'JOINT', flow: 'SIGNATURE', ordered: false, registryDocumentId: null } } });
  assert.is(
    given(collectionTemplateDecider)
      .when(create('rural', sampleContent({ items: later })))
      .decided().length,
    1,
  );
});

test('revise: a new version; unchanged content (key order aside) makes none', () => {
  const changed = sampleContent({ expiryDays: 20 });
  given(collectionTemplateDecider, [version(1)])
    .when(revise('rural', changed))
    .then([version(2, changed)]);
  const reordered = Object.fromEntries(Object.entries(sampleContent()).reverse()) as unknown as TemplateContent;
  given(collectionTemplateDecider, [version(1)])
    .when(revise('rural', reordered))
    .then([]);
  given(collectionTemplateDecider).when(revise('rural', changed)).thenError('not_found', TemplateMessages.templateNotFound);
  given(collectionTemplateDecider).when(revise('kyc-refresh', changed)).thenError('conflict', TemplateMessages.platformTemplateReadOnly);
});

test('switch an own template: every version, and nothing when already so', () => {
  const history = [version(1), version(2, sampleContent({ expiryDays: 20 }))];
  const off = given(collectionTemplateDecider, history).when(toggle('rural', false)).decided();
  assert.equal(off, [
    { type: 'CollectionTemplateSwitched', data: { organizationId: ORG, templateId: TEMPLATE, slug: 'rural', scope: 'ORGANIZATION', enabled: false, versions: 2, userId: who.userId, switchedAt: AT } },
  ]);
  const state = fold(collectionTemplateDecider, [...history, ...off]);
  assert.is(templateOf(state, 'rural')!.enabled, false);
  assert.is(templateOf(state, 'rural')!.version, 2);
  assert.is(switchedVersions(state, 'rural'), 2);
  given(collectionTemplateDecider, [...history, ...off])
    .when(toggle('rural', false))
    .then([]);
  given(collectionTemplateDecider).when(toggle('rural', false)).thenError('not_found', TemplateMessages.templateNotFound);
});

test('switch a platform template: for this organization, one version counted', () => {
  const platform = PLATFORM_TEMPLATES[0]!;
  const off = given(collectionTemplateDecider).when(toggle(platform.slug, false)).decided();
  const data = { organizationId: ORG, templateId: platform.templateId, slug: platform.slug, scope: 'PLATFORM', enabled: false, versions: 1, userId: who.userId, switchedAt: AT };
  assert.equal(off, [{ type: 'CollectionTemplateSwitched', data }]);
  const state = fold(collectionTemplateDecider, off);
  assert.equal(templateOf(state, platform.slug), { ...platform, enabled: false });
  assert.is(switchedVersions(state, platform.slug), 1);
  given(collectionTemplateDecider).when(toggle(platform.slug, true)).then([]);
});

test('the platform templates are valid templates themselves', () => {
  for (const { templateId: _id, slug: _slug, scope: _scope, version: _version, ...content } of PLATFORM_TEMPLATES) {
    assert.is(given(collectionTemplateDecider).when(create('copy', content)).decided().length, 1, content.name);
  }
});

test.run();

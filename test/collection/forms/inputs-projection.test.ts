import type { Knex } from 'knex';
import { suite } from 'uvu';
import { collectionDecider } from '../../../domain/collection/decider.ts';
import type { CollectionModuleEvent } from '../../../domain/collection/payloads.ts';
import { PERSONAL_DATA_ERASED, SUBJECTS_METADATA } from '../../../platform/personal-data/index.ts';
import { collectionInputsProjection } from '../../../projections/collection/inputs-projection.ts';
import { collectionInputValues } from '../../../projections/collection/inputs-queries.ts';
import { createTestDatabase, type TestDatabase } from '../../support/db.ts';
import { projectionSpec } from '../../support/projection.ts';
import { AT, cmd, create, definition, history, item, ORG, recipient, RECIPIENT, stateOf } from '../fixtures.ts';
import { companyForm, scrTerm } from './fixtures.ts';

const test = suite('collection inputs read model: latest values per registry, replays, erasure');
let database: TestDatabase;
test.before(async () => {
  database = await createTestDatabase();
});
test.after(() => database?.drop());

const SUBJECT = 's'.repeat(64);
const REGISTRY = 'r00000000000000000000001';
const spec = projectionSpec(collectionInputsProjection, () => database.knex);
const values = (db: Knex) => collectionInputValues(db, ORG, REGISTRY);
/** An event of the subject's: its data is sealed under the subject's key, which an erasure drops. */
const ofSubject = (event: CollectionModuleEvent) => ({ ...event, metadata: { [SUBJECTS_METADATA]: [SUBJECT] } });

const def = definition({
  template: { slug: 'ficha-pj', name: 'Ficha', version: 1 },
  items: [item('f1', { kind: 'FORM', expectedType: null, config: { form: companyForm() } }), item('c1', { kind: 'CONSENT', expectedType: null, config: { consent: scrTerm() } })],
  recipients: [recipient('p1', ['f1', 'c1'])],
});
const answer = (faturamento: number, at: string) => cmd({ type: 'SubmitForm', itemId: 'f1', recipientId: 'p1', answers: { faturamento } }, { actor: RECIPIENT('p1'), at });
const accept = cmd({ type: 'AcceptConsent', itemId: 'c1', recipientId: 'p1', termHash: scrTerm().hash, ip: null, userAgent: null }, { actor: RECIPIENT('p1') });

test('answers under form.<template>.<field>, consents under kyc.consentimento_<type>; an older event replayed changes nothing; erasure deletes the answers only', async () => {
  const [created, sent, submitted] = history(create(true, def), answer(1000, AT));
  await spec.given(created!, sent!).when(ofSubject(submitted!)).thenRead(values, { 'form.ficha-pj.faturamento': 1000 });
  const later = collectionDecider.decide(answer(2000, '2026-11-24T12:00:00.000Z'), stateOf(history(create(true, def))));
  await spec
    .given(...later.map(ofSubject))
    .when(ofSubject(submitted!))
    .thenRead(values, { 'form.ficha-pj.faturamento': 2000 }, 'the older answer replayed does not win');
  const [consented] = collectionDecider.decide(accept, stateOf(history(create(true, def))));
  await spec.when(consented!).thenRead(values, { 'form.ficha-pj.faturamento': 2000, 'kyc.consentimento_scr': true });
  await spec.when({ type: PERSONAL_DATA_ERASED, data: { subjectId: SUBJECT } }).thenRead(values, { 'kyc.consentimento_scr': true });
});

test.run();

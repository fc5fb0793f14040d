import type { Knex } from 'knex';
import { keyringFor, type Config } from '../../config/index.ts';
import { SecretBox } from '../secrets/secret-box.ts';
import { SubjectKeys } from './subject-keys.ts';

export { ERASED, ERASED_SUBJECT, documentSubject, subjectId, type PersonalDataRule } from './rules.ts';
export { SUBJECTS_METADATA, withPersonalData } from './store.ts';
export { openFields, sealFields } from './sealed-fields.ts';
export { PERSONAL_DATA_ERASED, eraseSubject, type PersonalDataErased } from './erase.ts';
export { personalDataMigrations } from './migrations.ts';

/** Subject keys sealed with SEALING_KEYS under a purpose of their own. */
export function subjectKeysFor(config: Config, db: Knex): SubjectKeys {
  return new SubjectKeys(db, new SecretBox(keyringFor(config, 'sealing'), 'personal-data-keys'));
}

import type { Migration } from '../platform/database/migrate.ts';
import { projectionMigrations } from '../platform/projections/migrations.ts';
import { eventStoreMigrations } from '../platform/eventstore/postgres.ts';
import { identityMigrations } from '../projections/identity/migrations.ts';
import { webhookMigrations } from '../projections/webhook/migrations.ts';
import { reportMigrations } from '../projections/report/migrations.ts';
import { reportOpinionMigrations } from '../projections/report/opinion-migrations.ts';
import { creditPolicyMigrations } from '../projections/credit-policy/migrations.ts';
import { blobStoreMigrations } from './blob-store.ts';
import { idempotencyMigrations } from '../platform/idempotency.ts';
import { catalogMigrations } from '../projections/catalog/migrations.ts';
import { pricingMigrations } from '../projections/pricing/migrations.ts';
import { operationMigrations } from '../projections/operation/migrations.ts';
import { personalDataMigrations } from '../platform/personal-data/index.ts';
import { proposalMigrations } from '../projections/proposal/migrations.ts';
import { messagingMigrations } from '../projections/messaging/migrations.ts';
import { collectionTemplateMigrations } from '../projections/collection-template/migrations.ts';
import { collectionTrailMigrations } from './collection/trail/migrations.ts';
import { registryMigrations } from '../projections/registry/migrations.ts';
import { registryLookupMigrations } from './registry/registry-lookups.ts';
import { collectionMigrations } from '../projections/collection/migrations.ts';
import { collectionInputMigrations } from '../projections/collection/inputs-migrations.ts';
import { publicFormMigrations } from './public-form/migrations.ts';
import { collectionIdentityMigrations } from '../projections/collection/identity-migrations.ts';
import { signatureCodeAttemptMigrations } from './collection/signature/code-attempts.ts';
import { dashboardExportMigrations } from './dashboard-export/migrations.ts';
import { inputDataMigrations } from '../projections/input-data/migrations.ts';
import { dashboardMigrations } from '../projections/dashboard/migrations.ts';
import { financialUploadMigrations } from './financial-upload/migrations.ts';
import { committeeMigrations } from '../projections/committee/migrations.ts';
import { oauthStoreMigrations } from '../platform/oauth-store.ts';
import { screeningMigrations } from './screening/store.ts';

/** Every module's migrations. Add a module's list here; order comes from the names. */
export const migrations: Migration[] = [
  ...eventStoreMigrations,
  ...projectionMigrations,
  ...identityMigrations,
  ...webhookMigrations,
  ...creditPolicyMigrations,
  ...reportMigrations,
  ...reportOpinionMigrations,
  ...blobStoreMigrations,
  ...idempotencyMigrations,
  ...personalDataMigrations,
  ...catalogMigrations,
  ...pricingMigrations,
  ...proposalMigrations,
  ...operationMigrations,
  ...messagingMigrations,
  ...collectionTemplateMigrations,
  ...collectionTrailMigrations,
  ...registryMigrations,
  ...registryLookupMigrations,
  ...collectionMigrations,
  ...collectionInputMigrations,
  ...publicFormMigrations,
  ...collectionIdentityMigrations,
  ...signatureCodeAttemptMigrations,
  ...dashboardExportMigrations,
  ...inputDataMigrations,
  ...dashboardMigrations,
  ...financialUploadMigrations,
  ...committeeMigrations,
  ...oauthStoreMigrations,
  ...screeningMigrations,
];

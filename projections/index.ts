import type { Projection } from '../platform/projections/projection.ts';
import { identityProjection } from './identity/projections.ts';
import { webhookSubscriptionsProjection } from './webhook/subscriptions.ts';
import { reportProjection } from './report/projection.ts';
import { catalogProjection } from './catalog/projection.ts';
import { creditPolicyProjection } from './credit-policy/projection.ts';
import { pricingProjection } from './pricing/projection.ts';
import { proposalProjection } from './proposal/projection.ts';
import { operationProjection } from './operation/projection.ts';
import { messagingProjection } from './messaging/projection.ts';
import { collectionTemplateProjection } from './collection-template/projection.ts';
import { collectionTrailProjection } from './collection/trail-projection.ts';
import { registryProjection } from './registry/projection.ts';
import { collectionProjection } from './collection/projection.ts';
import { collectionInputsProjection } from './collection/inputs-projection.ts';
import { collectionIdentityProjection } from './collection/identity-projection.ts';
import { committeeProjection } from './committee/projection.ts';

/** Every read model of the service. A module adds its projections here. */
export const allProjections: Projection[] = [
  identityProjection,
  webhookSubscriptionsProjection,
  creditPolicyProjection,
  reportProjection,
  catalogProjection,
  pricingProjection,
  proposalProjection,
  operationProjection,
  messagingProjection,
  collectionTemplateProjection,
  collectionTrailProjection,
  registryProjection,
  collectionProjection,
  collectionInputsProjection,
  collectionIdentityProjection,
  committeeProjection,
];

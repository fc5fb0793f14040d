import type { Projection } from '../platform/projections/projection.ts';
import { identityProjection } from './identity/projection.ts';
import { webhookSubscriptionsProjection } from './webhook/subscriptions-projection.ts';
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
import { webhookOutboxProjection } from './webhook/outbox-projection.ts';
import { messagingDeliveriesProjection } from './messaging/deliveries-projection.ts';

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

/**
 * The queues filled by a projection that its dispatcher's worker runs (a deployment without that
 * role fills none), not the projector: the webhook outbox and the messaging deliveries. Both are
 * safe to rebuild (neither sends history again: see their definitions).
 */
export const dispatcherProjections: Projection[] = [webhookOutboxProjection, messagingDeliveriesProjection];

/** Every projection, wherever it runs: what `projections:rebuild --all` and the parked-event tools cover. */
export const everyProjection: Projection[] = [...allProjections, ...dispatcherProjections];

/** The projections `projections:rebuild` is asked for: every one with --all, else those named; names it does not know apart. */
export function projectionsToRebuild(args: readonly string[]): { projections: Projection[]; unknown: string[] } {
  if (args.includes('--all')) return { projections: everyProjection, unknown: [] };
  return { projections: everyProjection.filter((p) => args.includes(p.name)), unknown: args.filter((name) => !everyProjection.some((p) => p.name === name)) };
}

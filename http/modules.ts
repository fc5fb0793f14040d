import type { RouteTable } from './route.ts';
import { identityRoutes } from './identity/routes.ts';
import { webhookRoutes } from './webhook/routes.ts';
import { reportRoutes } from './report/routes.ts';
import { reportListRoutes } from './report/list-routes.ts';
import { reportInsightsRoutes } from './report/insights-routes.ts';
import { creditPolicyRoutes } from './credit-policy/routes.ts';
import { personalDataRoutes } from './personal-data/routes.ts';
import { catalogRoutes } from './catalog/routes.ts';
import { pricingRoutes } from './pricing/routes.ts';
import { proposalRoutes } from './proposal/routes.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { operationRoutes } from './operation/routes.ts';
import { collectionTemplateRoutes } from './collection-template/routes.ts';
import { collectionTrailRoutes } from './collection/trail-routes.ts';
import { collectionRoutes } from './collection/routes.ts';
import { collectionKindRoutes } from './collection/kinds/index.ts';
import { registryRoutes } from './registry/routes.ts';
import { publicFormRoutes } from './public-form/routes.ts';
import { messagingRoutes } from './messaging/routes.ts';
import { smsRoutes } from './messaging/sms-routes.ts';
import { messagingSettingsRoutes } from './messaging/settings-routes.ts';
import { dashboardExportRoutes } from './dashboard-export/routes.ts';
import { inputDataRoutes } from './input-data/routes.ts';
import { financialUploadRoutes } from './financial-upload/routes.ts';
import { committeeRoutes } from './committee/routes.ts';
import { consoleRoutes } from './console/routes.ts';
import { screeningRoutes } from './screening/routes.ts';

/** Every router of the service, one per module. A module adds its table here. */
export const routeTables: RouteTable[] = [
  identityRoutes,
  webhookRoutes,
  creditPolicyRoutes,
  reportRoutes,
  reportListRoutes,
  reportInsightsRoutes,
  personalDataRoutes,
  catalogRoutes,
  pricingRoutes,
  dashboardRoutes, // before proposalRoutes: /v1/proposals/dashboard is not /v1/proposals/:id
  proposalRoutes,
  operationRoutes,
  collectionTemplateRoutes,
  collectionTrailRoutes,
  collectionRoutes,
  collectionKindRoutes,
  registryRoutes,
  publicFormRoutes,
  messagingRoutes,
  smsRoutes,
  messagingSettingsRoutes,
  dashboardExportRoutes,
  inputDataRoutes,
  financialUploadRoutes,
  committeeRoutes,
  screeningRoutes,
  consoleRoutes,
];

import type { Module, Permission, Principal } from '../domain/identity/access.ts';
import { Messages } from '../domain/shared/messages.ts';
import { HttpError } from './errors.ts';

/**
 * Who may call a route: one of `modules` contracted by the organization and one of
 * `permissions` held by the credential. Each refusal has its own status and text, because the
 * contract answers some modules with 403 and hides others behind 404.
 */
export interface Gate {
  modules?: readonly Module[];
  permissions?: readonly Permission[];
  moduleDenied?: { status: 403 | 404; message: string };
  permissionDenied?: { status: 403 | 404; message: string };
  /**
   * A caller that passes only through `permission` (an integration credential: none of the
   * gate's other permissions) also needs one of `modules`; refused like a missing module.
   */
  integration?: { permission: Permission; modules: readonly Module[] };
}

/** Whether the principal passes the gate (a page showing a link or a form only to those who may use it). */
export function allows(gate: Gate, principal: Principal): boolean {
  try {
    checkGate(gate, principal);
    return true;
  } catch {
    return false;
  }
}

export function checkGate(gate: Gate | undefined, principal: Principal): void {
  if (!gate) return;
  if (gate.modules && !gate.modules.some((m) => principal.modules.has(m))) {
    const denied = gate.moduleDenied ?? { status: 403, message: Messages.forbidden };
    throw new HttpError(denied.status, denied.message);
  }
  if (gate.permissions && !gate.permissions.some((p) => principal.permissions.has(p))) {
    const denied = gate.permissionDenied ?? { status: 403, message: Messages.forbidden };
    throw new HttpError(denied.status, denied.message);
  }
  const integration = gate.integration;
  if (integration && !gate.permissions?.some((p) => p !== integration.permission && principal.permissions.has(p)) && !integration.modules.some((m) => principal.modules.has(m))) {
    const denied = gate.moduleDenied ?? { status: 403, message: Messages.forbidden };
    throw new HttpError(denied.status, denied.message);
  }
}

const hidden = { status: 404, message: Messages.resourceNotFound } as const;
const proposalsOff = { status: 403, message: Messages.proposalsModuleDisabled } as const;
/** Changing what the proposals module sells and runs: catalog, settings, pipelines. */
const manageOperations = { modules: ['proposals'], permissions: ['can-manage-operations'], moduleDenied: proposalsOff } satisfies Gate;
const inputDataOff = { status: 403, message: Messages.inputDataModulesDisabled } as const;

/** The permission groups of the contract (Authentication 5 to 7), named once. */
export const Gates = {
  reportsRead: { modules: ['reports'], permissions: ['can-generate-report', 'can-create-report', 'can-create-report-api'] },
  reportCreate: { modules: ['reports'], permissions: ['can-create-report', 'can-create-report-api', 'can-generate-report'] },
  reportAnalyze: { modules: ['reports'], permissions: ['can-analyze-report', 'can-reanalyze-report'] },
  reportReanalyze: {
    modules: ['reports'],
    permissions: ['can-reanalyze-report'],
    permissionDenied: { status: 403, message: Messages.reanalyzeForbidden },
  },
  financialUpload: { modules: ['reports'], permissions: ['can-generate-report'] },
  creditPolicyRead: { modules: ['reports'], permissions: ['can-manage-credit-policy', 'can-generate-report', 'can-create-report', 'can-create-report-api'] },
  creditPolicyManage: { modules: ['reports'], permissions: ['can-manage-credit-policy'] },
  legacyWebhooks: { permissions: ['can-manage-webhooks', 'can-manage-settings'] },
  namedWebhooks: {
    modules: ['registry', 'onboarding', 'formalization'],
    permissions: ['can-use-registry-api', 'can-manage-settings'],
    moduleDenied: hidden,
    permissionDenied: hidden,
  },
  webhookCatalog: { permissions: ['can-use-registry-api', 'can-manage-settings', 'can-manage-webhooks'] },
  // Authentication 7: /v1/registry needs kycEnabled (module kyc) for integration credentials.
  registry: {
    modules: ['registry'],
    permissions: ['can-use-registry-api', 'can-generate-report'],
    moduleDenied: hidden,
    permissionDenied: hidden,
    integration: { permission: 'can-use-registry-api', modules: ['kyc'] },
  },
  collections: {
    modules: ['onboarding', 'formalization', 'registry'],
    permissions: ['can-use-registry-api', 'can-generate-report'],
    moduleDenied: hidden,
    permissionDenied: hidden,
  },
  proposalsOperate: { modules: ['proposals'], permissions: ['can-generate-report', 'can-use-registry-api'], moduleDenied: proposalsOff },
  proposalsRun: { modules: ['proposals'], permissions: ['can-generate-report', 'can-create-report-api'], moduleDenied: proposalsOff },
  inputData: {
    modules: ['proposals', 'onboarding', 'formalization'],
    permissions: ['can-generate-report', 'can-use-registry-api', 'can-manage-credit-policy', 'can-manage-policy-rules', 'can-manage-operations'],
    moduleDenied: inputDataOff,
  },
  catalogManage: manageOperations,
  // Pipelines (operations): defined by can-manage-operations, read by whoever runs or operates proposals.
  operationsManage: manageOperations,
  operationsRead: {
    modules: ['proposals'],
    permissions: ['can-manage-operations', 'can-generate-report', 'can-create-report-api', 'can-use-registry-api'],
    moduleDenied: proposalsOff,
  },
  externalClosing: { modules: ['proposals'], permissions: ['can-manage-operations', 'can-generate-report', 'can-create-report-api'], moduleDenied: proposalsOff },
  // Settings of the messages sent to the organization's customers (collections, offers): its REST
  // integrator or whoever manages its settings.
  messagingSettings: { modules: ['onboarding', 'formalization', 'registry', 'proposals'], permissions: ['can-use-registry-api', 'can-manage-settings'] },
  authenticated: {},
} satisfies Record<string, Gate>;

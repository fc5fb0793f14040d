/**
 * The words of access control. Module and permission names are public (configuration, the
 * provisioning CLI and the README use them): never rename one.
 */
export const MODULES = ['reports', 'committee', 'proposals', 'onboarding', 'formalization', 'registry', 'kyc', 'scr', 'committee-custom-prompts'] as const;
export type Module = (typeof MODULES)[number];

export const PERMISSIONS = [
  // Named by the spec
  'can-generate-report',
  'can-use-registry-api',
  'can-create-report-api',
  'can-manage-credit-policy',
  'can-manage-policy-rules',
  'can-manage-operations',
  'can-manage-settings',
  // The spec leaves these unnamed; named in the same style
  'can-create-report', // POST /v2/report from an operator (the -api one is for integrations)
  'can-manage-webhooks', // legacy typed webhook routes
  'can-analyze-report', // the first manual analysis (POST /report/analyze)
  'can-reanalyze-report', // redoing a manual analysis (POST /report/re-analyze)
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function isModule(value: string): value is Module {
  return (MODULES as readonly string[]).includes(value);
}

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** A principal from the read model's rows: names it no longer knows (a module or permission retired) are dropped. */
export function principalFrom(row: Omit<Principal, 'modules' | 'permissions'> & { modules: readonly string[]; permissions: readonly string[] }): Principal {
  const { organizationId, userId, userName, credentialId, sessionId } = row;
  return { organizationId, userId, userName, credentialId, sessionId, modules: new Set(row.modules.filter(isModule)), permissions: new Set(row.permissions.filter(isPermission)) };
}

/** Who is calling: always taken from the token, never from a body. */
export interface Principal {
  organizationId: string;
  userId: string;
  userName: string;
  /** Null in the web console: its session was begun with e-mail and password, not a credential. */
  credentialId: string | null;
  sessionId: string;
  modules: ReadonlySet<Module>;
  permissions: ReadonlySet<Permission>;
}

import type { Principal } from '../domain/identity/access.ts';
import type { AppContext } from './context.ts';
import { creditPolicyDemoSeeder } from './credit-policy/demo.ts';
import { catalogDemoSeeder } from './catalog/demo.ts';
import { proposalDemoSeeder } from './proposal/demo.ts';
import { collectionDemoSeeder } from './collection/demo.ts';

/** The tenant `provision --demo` just created, for seeders to fill with sample data. */
export interface DemoTenant {
  organizationId: string;
  userId: string;
  /** The tenant's user with every module and permission it was given; no session (sessionId is ''). */
  principal: Principal;
}

export interface DemoSeeder {
  /** Shown on stderr when the seeder fails. */
  name: string;
  /**
   * Append the demo data through the module's own commands (never straight into read tables)
   * and return the ids to print, under keys of the module's choosing (e.g. `policies`). The CLI
   * waits for every projection before it exits, so seeders need not wait themselves.
   */
  seed(app: AppContext, tenant: DemoTenant): Promise<Record<string, unknown>>;
}

/** A module adds its seeder here (one line); results are merged into the CLI's JSON output. */
export const demoSeeders: DemoSeeder[] = [
  creditPolicyDemoSeeder,
  catalogDemoSeeder,
  // After the two above: its pipeline and proposals use their policy and catalog.
  proposalDemoSeeder,
  collectionDemoSeeder,
];

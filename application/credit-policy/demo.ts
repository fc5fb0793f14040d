import type { DemoSeeder } from '../demo.ts';
import { createPolicy } from './commands.ts';
import { DEMO_CNPJ_POLICY, DEMO_CPF_POLICY } from './demo-policies.ts';

/** `provision --demo`: one CPF and one CNPJ policy under which every sandbox test document decides as documented. */
export const creditPolicyDemoSeeder: DemoSeeder = {
  name: 'credit-policy',
  async seed(app, tenant) {
    const policies = [];
    for (const content of [DEMO_CPF_POLICY, DEMO_CNPJ_POLICY]) {
      const { state } = await createPolicy(app, tenant.principal, content);
      policies.push({ id: state.policyId!, name: content.name, documentType: content.documentType });
    }
    return { policies };
  },
};

import * as assert from 'uvu/assert';
import type { TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { field, scrTerm } from '../collection/forms/fixtures.ts';

/**
 * A lender exposed to the public: a public form, and a sent collection whose FORM field carries
 * the tenant-written `pattern` (the backtracking victim) beside a consent item; what every
 * hostile-input test of this folder attacks.
 */
export async function exposedTenant(app: TestApp, name: string, pattern: string): Promise<{ tenant: TestTenant; templateId: string; collection: any }> {
  const tenant = await provisionTenant(app, { name: `Banco ${name}` });
  const template = await app.call('POST', '/v1/collection-templates', {
    token: tenant.token,
    body: {
      slug: 'publico',
      name: 'Cadastro',
      description: 'Cadastro público.',
      items: [{ key: 'ficha', kind: 'FORM', title: 'Ficha', config: { form: { fields: [field('nome')] } } }],
      notificationChannel: 'NONE',
      publicForm: true,
    },
  });
  assert.is(template.status, 201, JSON.stringify(template.body));
  const created = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      subject: { name: `Padaria ${name} Ltda`, document: '11222333000181' },
      items: [
        { key: 'ficha', kind: 'FORM', title: 'Ficha', config: { form: { fields: [field('codigo', { label: 'Código', validation: { pattern } })] } } },
        { key: 'scr', kind: 'CONSENT', title: 'Autorização SCR', config: { consent: scrTerm() } },
      ],
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
      notificationChannel: 'NONE',
      send: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  return { tenant, templateId: template.body.id, collection: created.body };
}

import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigSchema } from '../../config/schema.ts';
import { configurationDocPath, currentDocument, readSettings } from '../../scripts/configuration-doc.ts';

test('docs/configuration.md is what npm run docs:configuration writes from config/schema.ts', () => {
  const document = readFileSync(configurationDocPath, 'utf8');
  assert.ok(currentDocument(document) === document, 'docs/configuration.md is not current: run npm run docs:configuration');
});

test('every key the service reads is described in the schema, in a group, and listed in the document', () => {
  const settings = readSettings();
  assert.equal(settings.map((s) => s.key).sort(), Object.keys(ConfigSchema.properties).sort());
  for (const setting of settings) {
    assert.ok(setting.description, `${setting.key} has no /** doc comment */ in config/schema.ts`);
    assert.ok(setting.group, `${setting.key} sits under no // group comment in config/schema.ts`);
  }
  const document = readFileSync(configurationDocPath, 'utf8');
  for (const setting of settings) assert.ok(document.includes(`| \`${setting.key}\` |`), `${setting.key} missing from docs/configuration.md`);
});

test.run();

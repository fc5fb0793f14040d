import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig, parseDurationList } from '../../config/index.ts';

test('defaults run on a bare machine', () => {
  const config = loadConfig({});
  assert.is(config.PORT, 3000);
  assert.is(config.DATABASE_URL, undefined);
  assert.is(config.ROLES, 'api,projector,dispatcher,scheduler');
  assert.ok(config.DATA_DIR.endsWith('/data'));
});

test('environment values are converted to their types', () => {
  const config = loadConfig({ PORT: '8080', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  assert.is(config.PORT, 8080);
  assert.is(config.WEBHOOK_ALLOW_PRIVATE_NETWORKS, true);
});

test('a bad value is refused with its name', () => {
  assert.throws(() => loadConfig({ PORT: 'abc' }), /PORT/);
});

test('duration lists', () => {
  assert.equal(parseDurationList('5s,30s,120s'), [5000, 30000, 120000]);
  assert.equal(parseDurationList('10ms, 2m'), [10, 120000]);
});

test.run();

import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BcbSgsFeed, SgsFeedError } from '../../application/pricing/sgs.ts';

const test = suite('pricing: Banco Central SGS adapter (nock)');
const BASE = 'https://bcb.test';
const feed = new BcbSgsFeed(BASE, 500);
const path = (code: number) => `/dados/serie/bcdata.sgs.${code}/dados/ultimos/1`;

test.before(() => nock.disableNetConnect());
test.after.each(() => nock.cleanAll());
test.after(() => nock.enableNetConnect());

test('CDI (4389), SELIC (432), IPCA (13522): the last row as a yearly percent and an ISO date', async () => {
  nock(BASE)
    .get(path(4389))
    .query({ formato: 'json' })
    .reply(200, [{ data: '20/11/2026', valor: '14.90' }]);
  nock(BASE)
    .get(path(432))
    .query({ formato: 'json' })
    .reply(200, [{ data: '19/11/2026', valor: '15.00' }]);
  nock(BASE)
    .get(path(13522))
    .query({ formato: 'json' })
    .reply(200, [{ data: '01/10/2026', valor: '4,68' }]);
  assert.equal(await feed.latest('CDI'), { percentYear: '14.90', date: '2026-11-20' });
  assert.equal(await feed.latest('SELIC'), { percentYear: '15.00', date: '2026-11-19' });
  assert.equal(await feed.latest('IPCA'), { percentYear: '4.68', date: '2026-10-01' });
  assert.ok(nock.isDone());
});

test('an error status or an unexpected body is an SgsFeedError, never a value', async () => {
  nock(BASE).get(path(4389)).query(true).reply(503, 'indisponível');
  nock(BASE).get(path(432)).query(true).reply(200, { erro: 'serie inexistente' });
  nock(BASE)
    .get(path(13522))
    .query(true)
    .reply(200, [{ data: '2026-10-01', valor: 'n/d' }]);
  for (const index of ['CDI', 'SELIC', 'IPCA'] as const) {
    try {
      await feed.latest(index);
      assert.unreachable(`${index} should fail`);
    } catch (error) {
      assert.instance(error, SgsFeedError);
    }
  }
});

test('a reply slower than the timeout is abandoned', async () => {
  nock(BASE)
    .get(path(4389))
    .query(true)
    .delay(2_000)
    .reply(200, [{ data: '20/11/2026', valor: '14.90' }]);
  const started = Date.now();
  try {
    await feed.latest('CDI');
    assert.unreachable('should time out');
  } catch (error) {
    assert.is((error as Error).name, 'TimeoutError');
  }
  assert.ok(Date.now() - started < 1_900);
});

test.run();

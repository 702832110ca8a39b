// The console's balance and blocklist pages on a long history: pages of the newest entries with links to older
// ones and back, every entry exactly once across them; blocking numbers answers with a redirect (a reload does
// not block again) whose notice gives the counts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

const [sqlite] = await storeTargets();

/** The text of each table row's cell `column` on a page, in order. */
function cells(html: string, column: number): string[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(
    (row) => [...row[1].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)][column]?.[1].replace(/<[^>]+>/g, '') ?? '',
  );
}

const olderLink = (html: string) =>
  /<a href="([^"]+\?before=[^"]+)">Older<\/a>/.exec(html)?.[1]?.replaceAll('&amp;', '&');

describe('console balance and blocklist pages', () => {
  let t: TestService;
  let c: ConsoleClient;
  before(async () => {
    t = await startTestService(sqlite);
    await t.admin('create-account', 'pages', '--password', 'pages-pw-1', '--credits', '5');
    c = new ConsoleClient(t.httpsUrl);
    await c.login('pages', 'pages-pw-1');
  });
  after(() => t?.close());

  it('pages a ledger of 451 entries 200 at a time, newest first, each entry once', async () => {
    const id = await t.accountId('pages');
    const now = Date.now();
    await t.service.store.db
      .insertInto('ledger_entries')
      .values(
        Array.from({ length: 450 }, (_, i) => ({
          account_id: id,
          currency: 'credits',
          amount: 1,
          reason: `entry ${i + 1}`,
          ref_type: null,
          ref_id: null,
          created_at: now + i,
        })),
      )
      .execute();
    const reasons: string[] = [];
    let path: string | undefined = '/console/balance';
    const pageSizes: number[] = [];
    while (path) {
      const page = await c.get(path);
      assert.equal(page.status, 200);
      const shown = cells(page.text, 3);
      pageSizes.push(shown.length);
      reasons.push(...shown);
      if (path !== '/console/balance') assert.match(page.text, /<a href="\/console\/balance">Newest<\/a>/);
      path = olderLink(page.text);
    }
    assert.deepEqual(pageSizes, [200, 200, 51]);
    assert.equal(reasons[0], 'entry 450');
    assert.equal(reasons[449], 'entry 1');
    assert.equal(new Set(reasons).size, 451, 'no entry shown twice');
  });

  it('blocks numbers with a redirect whose notice counts them, and pages a blocklist of 520', async () => {
    await c.get('/console/blocklist');
    const phones = Array.from({ length: 520 }, (_, i) => `05${String(30_000_000 + i)}`);
    const posted = await c.post('/console/blocklist', { phones: phones.join('\n') });
    assert.equal(posted.status, 303);
    assert.match(posted.location ?? '', /^\/console\/blocklist\?ok=blockAdded&added=520&already=0$/);
    const landed = await c.get(posted.location!);
    assert.match(landed.text, /520 numbers blocked; 0 were already blocked\./);
    const again = await c.post('/console/blocklist', { phones: phones.slice(0, 2).join('\n') });
    assert.match((await c.get(again.location!)).text, /0 numbers blocked; 2 were already blocked\./);

    const first = cells(landed.text, 0);
    assert.equal(first.length, 500);
    const older = olderLink(landed.text);
    assert.ok(older, 'a link to the older entries');
    const second = cells((await c.get(older)).text, 0);
    assert.equal(second.length, 20);
    assert.deepEqual(new Set([...first, ...second]), new Set(phones), 'every blocked number on one of the two pages');
    const bad = await c.get('/console/blocklist?before=not-a-cursor');
    assert.equal(cells(bad.text, 0).length, 500, 'a cursor that does not parse shows the newest page');
  });

  it('writes balances, ledger amounts and sub-account balances with thousands separators', async () => {
    await t.admin(
      'create-account',
      'bigres',
      '--password',
      'bigres-pw-1',
      '--credits',
      '2500000',
      '--international',
      '12345.5',
      '--reseller',
    );
    await t.admin(
      'create-account',
      'bigsub',
      '--password',
      'bigsub-pw-1',
      '--credits',
      '1500',
      '--international',
      '1000',
      '--parent',
      'bigres',
    );
    const web = new ConsoleClient(t.httpsUrl);
    await web.login('bigres', 'bigres-pw-1');
    const credits = Number(
      (
        await t.service.store.db
          .selectFrom('accounts')
          .select('credits')
          .where('username', '=', 'bigres')
          .executeTakeFirstOrThrow()
      ).credits,
    );
    const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    const balance = await web.get('/console/balance');
    assert.ok(credits >= 1000);
    assert.match(balance.text, new RegExp(`<b>${grouped(credits)}</b>`));
    assert.match(balance.text, /<b>₪\d{1,2},\d{3}\.\d0<\/b>/, 'shekels grouped, two decimals');
    assert.ok(cells(balance.text, 1).includes('2,500,000'), 'the opening grant in the ledger');
    const subs = await web.get('/console/subaccounts');
    assert.match(subs.text, /<span class="num">1,500<\/span>/);
    assert.match(subs.text, /<span class="num">₪1,000\.00<\/span>/);
  });
});

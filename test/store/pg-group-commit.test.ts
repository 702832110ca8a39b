// Sends of one account on PostgreSQL share transactions (store/engine/pg-group-commit.ts). Over HTTP: concurrent sends
// beyond the balance are each answered 0 or 4 with the balance exactly spent and never negative; a send that
// fails inside a group (an unverified sender) leaves its neighbours accepted; a group whose combined debit finds
// too little runs the short account's sends again alone and the other accounts' sends again as a group; every
// accepted send has its message, campaign and ledger row.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyLedgerChange } from '../../src/store/ledger.ts';
import { PgGroupCommit } from '../../src/store/engine/pg-group-commit.ts';
import type { Tx } from '../../src/store/engine/db.ts';
import { storeTargets } from '../helpers/stores.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const postgres = (await storeTargets()).find((t) => t.name === 'postgres');

describe('group commit of sends on PostgreSQL', { skip: postgres ? false : 'PostgreSQL not reachable' }, () => {
  let t: TestService;

  before(async () => {
    t = await startTestService(postgres!, { env: { YONA_PG_GROUP_LANES: '2' } });
  });
  after(() => t?.close());

  const balanceOf = async (username: string, token: string) =>
    Number((await t.api('balance', { user: { username } }, { token })).balance);
  const ledgerSum = async (username: string) => {
    const id = await t.accountId(username);
    const row = await t.service.store.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.sum<number>('amount').as('sum'))
      .where('account_id', '=', id)
      .where('currency', '=', 'credits')
      .executeTakeFirstOrThrow();
    return Number(row.sum);
  };
  const countRows = async (table: 'messages' | 'campaigns', username: string) => {
    const id = await t.accountId(username);
    const row = await t.service.store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it('answers 120 concurrent sends against 70 credits with exactly 70 accepted, shared commits and the balance at 0', async () => {
    await t.admin('create-account', 'busy', '--password', 'secret-pw', '--credits', '70');
    const token = (await t.admin('create-token', 'busy')).at(-1)!;
    await t.admin('verify-sender', 'busy', 'Yona');
    const stats = t.service.store.sendGroups!.stats;
    const before = { ...stats };
    const replies = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        t.api(
          'sms',
          {
            user: { username: 'busy' },
            source: 'Yona',
            destinations: { phone: `0521${String(i).padStart(6, '0')}` },
            message: 'hello',
          },
          { token },
        ),
      ),
    );
    const statuses = replies.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 0).length, 70, `statuses: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 4).length, 50);
    assert.equal(await balanceOf('busy', token), 0);
    assert.equal(await ledgerSum('busy'), 0); // +70 at creation, -70 over the sends
    assert.equal(await countRows('messages', 'busy'), 70);
    assert.equal(await countRows('campaigns', 'busy'), 70);
    // The sends shared commits: fewer groups than sends committed in them.
    const groups = stats.groups - before.groups;
    const sends = stats.sends - before.sends;
    assert.ok(groups > 0 && groups < sends, `groups ${groups}, sends ${sends}`);
    // Past the 70th credit, a group's combined debit found too little and its sends ran again alone.
    assert.ok(stats.fallbacks > before.fallbacks);
    // The node's /metrics tells the same.
    const metrics = await (await fetch(`${t.httpUrl}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\d+)`, 'm').exec(metrics)?.[1]);
    assert.equal(value('yona_pg_grouped_sends_total'), stats.sends);
    assert.equal(value('yona_pg_send_groups_total'), stats.groups);
    assert.ok(value('yona_pg_send_group_retries_total') >= 1);
  });

  it('refuses a deleted token on the next send, though groups read a token once for all their sends', async () => {
    await t.admin('create-account', 'revoked', '--password', 'secret-pw', '--credits', '100');
    const lines = await t.admin('create-token', 'revoked');
    const token = lines.at(-1)!;
    await t.admin('verify-sender', 'revoked', 'Yona');
    const send = (i: number) =>
      t.api(
        'sms',
        {
          user: { username: 'revoked' },
          source: 'Yona',
          destinations: { phone: `0524${String(i).padStart(6, '0')}` },
          message: 'hi',
        },
        { token },
      );
    assert.deepEqual(
      (await Promise.all([0, 1, 2, 3].map(send))).map((r) => r.status),
      [0, 0, 0, 0],
    );
    const name = (
      await t.service.store.db
        .selectFrom('api_tokens')
        .select('name')
        .where('account_id', '=', await t.accountId('revoked'))
        .executeTakeFirstOrThrow()
    ).name;
    await t.admin('delete-token', 'revoked', name);
    assert.deepEqual(
      (await Promise.all([4, 5].map(send))).map((r) => r.status),
      [3, 3],
    );
    assert.equal(await countRows('messages', 'revoked'), 4);
  });

  it('keeps the other sends of a group when one of them fails, and charges only the accepted', async () => {
    const { token } = await t.account('mixed'); // 1000 credits
    await t.admin('verify-sender', 'mixed', 'Yona');
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        t.api(
          'sms',
          {
            user: { username: 'mixed' },
            source: i % 3 === 0 ? 'Unknown' : 'Yona',
            destinations: { phone: `0522${String(i).padStart(6, '0')}` },
            message: 'hi',
          },
          { token },
        ),
      ),
    );
    const failed = replies.filter((_, i) => i % 3 === 0);
    const accepted = replies.filter((_, i) => i % 3 !== 0);
    assert.ok(
      failed.every((r) => r.status === 515),
      JSON.stringify(failed.map((r) => r.status)),
    );
    assert.ok(
      accepted.every((r) => r.status === 0),
      JSON.stringify(accepted.map((r) => r.status)),
    );
    assert.equal(await balanceOf('mixed', token), 1000 - 40);
    assert.equal(await ledgerSum('mixed'), 1000 - 40);
    assert.equal(await countRows('messages', 'mixed'), 40);
  });

  it('keeps nothing of a send refused after it wrote its first batch, and accepts the sends made beside it', async () => {
    const { token } = await t
      .admin('create-account', 'partial', '--password', 'secret-pw', '--credits', '5500')
      .then(async () => ({ token: (await t.admin('create-token', 'partial')).at(-1)! }));
    await t.admin('verify-sender', 'partial', 'Yona');
    // 6,000 recipients: the first 5,000 are written, the next batch finds the balance short (status 4).
    const big = Array.from({ length: 6000 }, (_, i) => `0523${String(i).padStart(6, '0')}`);
    const replies = await Promise.all([
      t.api(
        'sms',
        { user: { username: 'partial' }, source: 'Yona', destinations: { phone: big }, message: 'hi' },
        { token },
      ),
      ...Array.from({ length: 30 }, (_, i) =>
        t.api(
          'sms',
          {
            user: { username: 'partial' },
            source: 'Yona',
            destinations: { phone: `0524${String(i).padStart(6, '0')}` },
            message: 'hi',
          },
          { token },
        ),
      ),
    ]);
    assert.equal(replies[0].status, 4, JSON.stringify(replies[0]));
    assert.ok(
      replies.slice(1).every((r) => r.status === 0),
      JSON.stringify(replies.slice(1).map((r) => r.status)),
    );
    assert.equal(await countRows('messages', 'partial'), 30);
    assert.equal(await countRows('campaigns', 'partial'), 30);
    assert.equal(await balanceOf('partial', token), 5500 - 30);
    assert.equal(await ledgerSum('partial'), 5500 - 30);
  });

  it('rolls back a group whose send failed after writing and runs its sends alone; a refusal before any write keeps the group', async () => {
    const db = t.service.store.db;
    const groups = new PgGroupCommit(db, 1);
    const route = (prefix: string, refuse?: 'before' | 'after') => async (trx: Tx) => {
      if (refuse === 'before') throw new Error('refused before writing');
      await trx.insertInto('carrier_routes').values({ prefix, carrier: 'sim', created_at: 0 }).execute();
      if (refuse === 'after') throw new Error('refused after writing');
      return prefix;
    };
    const prefixes = async (start: string) =>
      (
        await db
          .selectFrom('carrier_routes')
          .select('prefix')
          .where('prefix', 'like', `${start}%`)
          .orderBy('prefix')
          .execute()
      ).map((r) => r.prefix);
    const outcomes = async (runs: Array<Promise<string>>) => (await Promise.allSettled(runs)).map((r) => r.status);

    // The first run starts a group alone; the three queued meanwhile share the next one.
    assert.deepEqual(
      await outcomes([
        groups.run(route('9990')),
        groups.run(route('9991')),
        groups.run(route('9992', 'after')),
        groups.run(route('9993')),
      ]),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await prefixes('999'), ['9990', '9991', '9993']);
    assert.equal(groups.stats.fallbacks, 1);

    assert.deepEqual(
      await outcomes([
        groups.run(route('9980')),
        groups.run(route('9981')),
        groups.run(route('9982', 'before')),
        groups.run(route('9983')),
      ]),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await prefixes('998'), ['9980', '9981', '9983']);
    assert.equal(groups.stats.fallbacks, 1, 'no group ran alone');
    assert.equal(groups.stats.groups, 3); // the first round's lone first run, and the second round's two groups
    await groups.close();
  });

  it("runs a short account's sends alone and the other accounts' sends of its group again as a group", async () => {
    await t.admin('create-account', 'dry', '--password', 'secret-pw', '--credits', '2');
    await t.admin('create-account', 'wet', '--password', 'secret-pw', '--credits', '100');
    const dry = await t.accountId('dry');
    const wet = await t.accountId('wet');
    const groups = new PgGroupCommit(t.service.store.db, 1);
    const debit = (accountId: number) => async (trx: Tx) => {
      const change = { accountId, currency: 'credits' as const, amount: -1, reason: 'test', now: 0 };
      if (!(await applyLedgerChange(trx, change))) throw new Error('short');
      return accountId;
    };
    // The first run starts a group alone; the eight queued meanwhile share the next one, whose debit of `dry`
    // (4 credits) finds 2.
    const runs = [groups.run(debit(wet))];
    for (let i = 0; i < 4; i++) runs.push(groups.run(debit(dry)), groups.run(debit(wet)));
    const outcomes = (await Promise.allSettled(runs)).map((r) => r.status);
    assert.deepEqual(
      outcomes.filter((_, i) => i % 2 === 0),
      Array(5).fill('fulfilled'),
      'every send of wet',
    );
    assert.deepEqual(outcomes.filter((_, i) => i % 2 === 1).sort(), ['fulfilled', 'fulfilled', 'rejected', 'rejected']);
    assert.equal(await ledgerSum('dry'), 0);
    assert.equal(await ledgerSum('wet'), 100 - 5);
    assert.equal(groups.stats.fallbacks, 1);
    // wet's four queued sends committed together after the fallback, not one by one.
    assert.deepEqual([groups.stats.groups, groups.stats.sends], [2, 5]);
    await groups.close();
  });

  it('never lets two accounts sending at once take from each other, nor a dry run change anything', async () => {
    const a = await t.account('left');
    const b = await t.account('right');
    for (const u of ['left', 'right']) await t.admin('verify-sender', u, 'Yona');
    const send = (username: string, token: string, i: number, dryRun = false) =>
      t.api(
        'sms',
        {
          user: { username },
          source: 'Yona',
          destinations: { phone: `0523${String(i).padStart(6, '0')}` },
          message: 'x'.repeat(i % 2 ? 200 : 10),
        },
        { token, dryRun },
      );
    const replies = await Promise.all(
      Array.from({ length: 80 }, (_, i) => (i % 2 ? send('left', a.token, i) : send('right', b.token, i, i % 4 === 0))),
    );
    assert.ok(
      replies.every((r) => r.status === 0),
      JSON.stringify(replies.map((r) => r.status)),
    );
    // left: 40 sends of 2 parts each (200 characters); right: 20 real sends of 1 part (the other 20 dry runs).
    assert.equal(await balanceOf('left', a.token), 1000 - 80);
    assert.equal(await balanceOf('right', b.token), 1000 - 20);
    assert.equal(await ledgerSum('left'), 1000 - 80);
    assert.equal(await ledgerSum('right'), 1000 - 20);
    assert.equal(await countRows('messages', 'right'), 20);
  });
});

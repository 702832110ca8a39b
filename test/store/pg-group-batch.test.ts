// Sends of a PostgreSQL send group share their statements (store/engine/pg-group-batch.ts): one blocklist look-up and one
// campaign-with-messages insert for all of them. Over HTTP, with bursts of concurrent sends of one account: each
// accepted send has exactly its own campaign, messages and charge; a blocked recipient is left out of its own send
// only; a send beyond the balance is refused with 4 and the balance never goes below zero; an idempotency key
// repeated within a burst makes one campaign; a mixed burst answers each send as it would be answered alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeTargets } from '../helpers/stores.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const postgres = (await storeTargets()).find((t) => t.name === 'postgres');

describe('batched statements of PostgreSQL send groups', {
  skip: postgres ? false : 'PostgreSQL not reachable',
}, () => {
  let t: TestService;

  before(async () => {
    t = await startTestService(postgres!, { env: { YONA_PG_GROUP_LANES: '1' } });
  });
  after(() => t?.close());

  const phone = (prefix: string, i: number) => `05${prefix}${String(i).padStart(8 - prefix.length, '0')}`;
  const newAccount = async (username: string, credits: number) => {
    await t.admin('create-account', username, '--password', 'secret-pw', '--credits', String(credits));
    const token = (await t.admin('create-token', username)).at(-1)!;
    await t.admin('verify-sender', username, 'Yona');
    return token;
  };
  const sms = (username: string, token: string, extra: Record<string, unknown>, dryRun = false) =>
    t.api('sms', { user: { username }, source: 'Yona', message: 'hi', ...extra }, { token, dryRun });
  const balanceOf = async (username: string) =>
    Number(
      (
        await t.service.store.db
          .selectFrom('accounts')
          .select('credits')
          .where('username', '=', username)
          .executeTakeFirstOrThrow()
      ).credits,
    );
  const ledgerSum = async (username: string) => {
    const row = await t.service.store.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.sum<number>('amount').as('sum'))
      .where('account_id', '=', await t.accountId(username))
      .where('currency', '=', 'credits')
      .executeTakeFirstOrThrow();
    return Number(row.sum);
  };
  const messagesOf = async (username: string) =>
    t.service.store.db
      .selectFrom('messages')
      .select(['campaign_id', 'phone', 'text', 'cost_credits'])
      .where('account_id', '=', await t.accountId(username))
      .execute();
  const stats = () => ({ ...t.service.store.sendGroups!.stats });

  it('writes each send of a burst under its own campaign, with its own phones, text and charge, in shared statements', async () => {
    const token = await newAccount('batched', 1000);
    const before = stats();
    // 40 sends: 1 to 3 phones each, each its own text.
    const sends = Array.from({ length: 40 }, (_, i) => ({
      phones: Array.from({ length: (i % 3) + 1 }, (_, j) => phone('21', i * 10 + j)),
      message: `send number ${i}`,
    }));
    const replies = await Promise.all(
      sends.map((s) => sms('batched', token, { destinations: { phone: s.phones }, message: s.message })),
    );
    assert.ok(
      replies.every((r) => r.status === 0),
      JSON.stringify(replies.map((r) => r.status)),
    );
    const ids = replies.map((r) => Number(r.campaign_id));
    assert.equal(new Set(ids).size, 40);
    const rows = await messagesOf('batched');
    sends.forEach((s, i) => {
      const mine = rows.filter((m) => Number(m.campaign_id) === ids[i]);
      assert.deepEqual(mine.map((m) => m.phone).sort(), s.phones.map((p) => `972${p.slice(1)}`).sort());
      assert.ok(
        mine.every((m) => m.text === s.message),
        `campaign ${ids[i]}`,
      );
    });
    const campaigns = await t.service.store.db
      .selectFrom('campaigns')
      .select(['id', 'recipients', 'credits_charged'])
      .where('account_id', '=', await t.accountId('batched'))
      .execute();
    for (const c of campaigns) {
      const i = ids.indexOf(Number(c.id));
      assert.deepEqual(
        [Number(c.recipients), Number(c.credits_charged)],
        [sends[i].phones.length, sends[i].phones.length],
      );
    }
    const charged = sends.reduce((n, s) => n + s.phones.length, 0);
    assert.equal(await balanceOf('batched'), 1000 - charged);
    assert.equal(await ledgerSum('batched'), 1000 - charged);
    // The burst's look-ups and inserts shared statements: fewer statements than the calls they answered.
    const after = stats();
    const statements = after.batchStatements - before.batchStatements;
    const calls = after.batchedCalls - before.batchedCalls;
    assert.ok(statements > 0 && calls >= 2 * 40 && statements < calls, `${statements} statements, ${calls} calls`);
  });

  it('leaves a blocked number out of the sends to it only, in a burst beside sends to other numbers', async () => {
    const token = await newAccount('blocking', 1000);
    const blocked = phone('29', 1);
    assert.equal(
      (await t.api('addNumBL', { user: { username: 'blocking' }, phones: { phone: blocked } }, { token })).status,
      946,
    );
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => {
        if (i % 3 === 0) return sms('blocking', token, { destinations: { phone: blocked } });
        if (i % 3 === 1) return sms('blocking', token, { destinations: { phone: [blocked, phone('29', 100 + i)] } });
        return sms('blocking', token, { destinations: { phone: phone('29', 100 + i) } });
      }),
    );
    replies.forEach((r, i) => {
      if (i % 3 === 0) assert.equal(r.status, 8, JSON.stringify(r));
      else assert.equal(r.status, 0, JSON.stringify(r));
      if (i % 3 === 1) assert.equal(r.rejected_by_reason?.blocked, 1, JSON.stringify(r));
    });
    const rows = await messagesOf('blocking');
    assert.equal(rows.length, 20);
    assert.ok(rows.every((m) => m.phone !== `972${blocked.slice(1)}`));
    assert.equal(await balanceOf('blocking'), 1000 - 20);
    assert.equal(await ledgerSum('blocking'), 1000 - 20);
  });

  it('refuses with 4 the sends of a burst that the balance does not cover, and never takes it below zero', async () => {
    const token = await newAccount('short', 10);
    const replies = await Promise.all([
      // Needs 12 credits: refused before it writes anything.
      sms('short', token, { destinations: { phone: Array.from({ length: 12 }, (_, i) => phone('27', i)) } }),
      ...Array.from({ length: 14 }, (_, i) => sms('short', token, { destinations: { phone: phone('27', 50 + i) } })),
    ]);
    assert.equal(replies[0].status, 4, JSON.stringify(replies[0]));
    const statuses = replies.slice(1).map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 0).length, 10, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 4).length, 4, statuses.join(','));
    assert.equal(await balanceOf('short'), 0);
    assert.equal(await ledgerSum('short'), 0);
    assert.equal((await messagesOf('short')).length, 10);
  });

  it('makes one campaign of an idempotency key sent twice within a burst of other sends', async () => {
    const token = await newAccount('keyed', 1000);
    const keyedSend = () =>
      t.api(
        'sms',
        { user: { username: 'keyed' }, source: 'Yona', message: 'keyed', destinations: { phone: phone('26', 1) } },
        { token, headers: { 'Idempotency-Key': 'burst-1' } },
      );
    const replies = await Promise.all([
      keyedSend(),
      ...Array.from({ length: 20 }, (_, i) => sms('keyed', token, { destinations: { phone: phone('26', 100 + i) } })),
      keyedSend(),
    ]);
    assert.ok(
      replies.every((r) => r.status === 0),
      JSON.stringify(replies.map((r) => r.status)),
    );
    const first = replies[0];
    const second = replies.at(-1)!;
    assert.equal(second.campaign_id, first.campaign_id);
    assert.deepEqual(await keyedSend(), first);
    const rows = await messagesOf('keyed');
    assert.equal(rows.length, 21);
    assert.equal(rows.filter((m) => m.text === 'keyed').length, 1);
    assert.equal(await balanceOf('keyed'), 1000 - 21);
    assert.equal(await ledgerSum('keyed'), 1000 - 21);
  });

  it('answers each send of a mixed burst as it would be answered alone', async () => {
    const token = await newAccount('mixedburst', 1000);
    await t.api('addNumBL', { user: { username: 'mixedburst' }, phones: { phone: phone('25', 1) } }, { token });
    const kinds = ['plain', 'unverified', 'blocked', 'scheduled', 'long', 'dry', 'two', 'bad-phone'] as const;
    const send = (kind: (typeof kinds)[number], i: number) => {
      const to = { destinations: { phone: phone('25', 100 + i) } };
      switch (kind) {
        case 'unverified':
          return sms('mixedburst', token, { ...to, source: 'Nobody' });
        case 'blocked':
          return sms('mixedburst', token, { destinations: { phone: phone('25', 1) } });
        case 'scheduled':
          return sms('mixedburst', token, { ...to, timing: '01/01/35 08:30' });
        case 'long':
          return sms('mixedburst', token, { ...to, message: 'x'.repeat(200) });
        case 'dry':
          return sms('mixedburst', token, to, true);
        case 'two':
          return sms('mixedburst', token, { destinations: { phone: [phone('25', 100 + i), phone('25', 500 + i)] } });
        case 'bad-phone':
          return sms('mixedburst', token, { destinations: { phone: '12' } });
        default:
          return sms('mixedburst', token, to);
      }
    };
    const plan = Array.from({ length: 48 }, (_, i) => kinds[i % kinds.length]);
    const replies = await Promise.all(plan.map((kind, i) => send(kind, i)));
    const expected: Record<(typeof kinds)[number], number> = {
      plain: 0,
      unverified: 515,
      blocked: 8,
      scheduled: 0,
      long: 0,
      dry: 0,
      two: 0,
      'bad-phone': 9,
    };
    plan.forEach((kind, i) =>
      assert.equal(replies[i].status, expected[kind], `${kind}: ${JSON.stringify(replies[i])}`),
    );
    // Six of each kind: plain 1, scheduled 1, long 2 (200 GSM characters), two 2 credits; the dry runs nothing.
    const cost = 6 * (1 + 1 + 2 + 2);
    assert.equal(await balanceOf('mixedburst'), 1000 - cost);
    assert.equal(await ledgerSum('mixedburst'), 1000 - cost);
    assert.equal((await messagesOf('mixedburst')).length, 6 * (1 + 1 + 1 + 2));
    const states = await t.service.store.db
      .selectFrom('campaigns')
      .select('state')
      .where('account_id', '=', await t.accountId('mixedburst'))
      .execute();
    assert.equal(states.filter((c) => c.state === 'scheduled').length, 6);
    assert.equal(states.length, 24);
  });
});

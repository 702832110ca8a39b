// Sending to contact lists on every store: cl_id expansion (with phones, deduplicated), 988 for an unknown
// or another account's list, add_dynamic 1 merging df1..df6 (987 unless exactly one cl_id and no phone).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  campaignRow,
  messagesOf,
  newSender,
  sendTableCounts,
  startSendingService,
  xmlStatus,
  type Sender,
} from './send-helpers.ts';
import { createContactList, insertContacts } from '../../src/store/contacts.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`sms to contact lists (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let listId: number;
    let otherListId: number;

    const newList = async (who: Sender, name: string, destination: Array<Record<string, string>>) => {
      const reply = await who.call('newCL', { cl: { name, destinations: { destination } } });
      assert.equal(reply.status, 0);
      return Number(reply.id);
    };

    const setCredits = (credits: number) =>
      t.service.store.db.updateTable('accounts').set({ credits }).where('username', '=', 'lister').execute();

    before(async () => {
      t = await startSendingService(target);
      s = await newSender(t, 'lister');
      listId = await newList(s, 'customers', [
        { phone: '0501111111', df1: 'Dana', df2: 'Haifa' },
        { phone: '0502222222', df1: 'Avi' },
        { phone: '+33612345678', df1: 'Jean' },
      ]);
      const other = await newSender(t, 'otherlister');
      otherListId = await newList(other, 'theirs', [{ phone: '0509999999' }]);
    });
    after(() => t.close());

    it('sends to every contact of a list, together with phones and without repeats', async () => {
      const reply = await s.sms({ destinations: { cl_id: String(listId), phone: ['0501111111', '0503333333'] } });
      assert.equal(reply.status, 0);
      assert.equal(reply.recipients, 3);
      assert.deepEqual(reply.rejected, [{ phone: '33612345678', reason: 'international_not_allowed', status: 933 }]);
      const rows = await messagesOf(t, reply.campaign_id);
      assert.deepEqual(rows.map((m) => m.phone).sort(), ['972501111111', '972502222222', '972503333333']);
      const intl = await newSender(t, 'listintl', 100, ['--international', '5']);
      const intlList = await newList(intl, 'abroad', [{ phone: '+33612345678' }, { phone: '0501111111' }]);
      const both = await intl.sms({ destinations: { cl_id: [intlList, intlList] }, includes_international: '1' });
      assert.deepEqual([both.status, both.recipients, both.credits, both.international_cost], [0, 2, 1, '0.25']);
    });

    it("an unknown list, or another account's list, is 988", async () => {
      for (const cl_id of ['999999', String(otherListId), 'abc']) {
        const reply = await s.sms({ destinations: { cl_id, phone: '0501234567' } });
        assert.equal(reply.status, 988, cl_id);
      }
      const xml = await t.post(
        `<sms><user><username>lister</username></user><source>Yona</source><destinations><cl_id>${otherListId}</cl_id>` +
          '</destinations><message>hi</message></sms>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(xmlStatus(xml.text), 988);
    });

    it("add_dynamic 1 merges each contact's fields into its text", async () => {
      const reply = await s.sms({
        destinations: { cl_id: listId },
        add_dynamic: '1',
        message: 'Hi [df1] from [DYNAMIC_FIELD2]!',
        includes_international: '1',
      });
      assert.equal(reply.status, 12, 'the French contact needs international money');
      const ok = await s.sms({
        destinations: { cl_id: listId },
        add_dynamic: '1',
        message: 'Hi [df1] from [DYNAMIC_FIELD2]!',
      });
      assert.equal(ok.status, 0);
      const rows = await messagesOf(t, ok.campaign_id);
      assert.deepEqual(rows.map((m) => [m.phone, m.text]).sort(), [
        ['972501111111', 'Hi Dana from Haifa!'],
        ['972502222222', 'Hi Avi from !'],
      ]);
      const plain = await s.sms({ destinations: { cl_id: listId }, add_dynamic: '0', message: 'Hi [df1]' });
      assert.deepEqual(
        (await messagesOf(t, plain.campaign_id)).map((m) => m.text),
        ['Hi [df1]', 'Hi [df1]'],
      );
    });

    it('landlines in a list are left out as not_mobile (933), like a landline phone element; a list of landlines only is 933', async () => {
      const mixed = await newList(s, 'with landlines', [
        { phone: '031234567' },
        { phone: '0505555555' },
        { phone: '0722222222' },
      ]);
      const reply = await s.sms({ destinations: { cl_id: mixed } });
      assert.deepEqual([reply.status, reply.recipients, reply.credits], [0, 1, 1]);
      assert.deepEqual(
        reply.rejected
          .map((r: { phone: string; reason: string; status: number }) => [r.phone, r.reason, r.status])
          .sort(),
        [
          ['97231234567', 'not_mobile', 933],
          ['972722222222', 'not_mobile', 933],
        ],
      );
      assert.deepEqual(
        (await messagesOf(t, reply.campaign_id)).map((m) => m.phone),
        ['972505555555'],
      );
      const landlines = await newList(s, 'landlines only', [{ phone: '031234567' }]);
      const before = await sendTableCounts(t);
      assert.equal((await s.sms({ destinations: { cl_id: landlines } })).status, 933);
      assert.deepEqual(await sendTableCounts(t), before, 'nothing written');
    });

    it('a list larger than one page is sent page by page: every contact once, blocked ones left out, one debit for the whole send', async () => {
      const accountId = await t.accountId('lister');
      const big = await createContactList(t.service.store.db, accountId, 'big', Date.now());
      const contacts = Array.from({ length: 12_000 }, (_, i) => ({
        phone: `97252${String(i).padStart(7, '0')}`,
        df1: i % 2 ? 'long '.repeat(40) : 'x',
        df2: null,
        df3: null,
        df4: null,
        df5: null,
        df6: null,
      }));
      await insertContacts(t.service.store.db, big, contacts, Date.now());
      await s.call('addNumBL', { phones: { phone: ['0520000007', '0520011000'] } });
      await setCredits(20_000);
      const reply = await s.sms({ destinations: { cl_id: big }, add_dynamic: '1', message: 'Hello [df1]' });
      assert.equal(reply.status, 0);
      assert.equal(reply.recipients, 11_998);
      assert.deepEqual(
        reply.rejected.map((r: { phone: string; reason: string }) => [r.phone, r.reason]),
        [
          ['972520000007', 'blocked'],
          ['972520011000', 'blocked'],
        ],
      );
      // Odd contacts (5,999 of them, one of the blocked is odd) carry a long name: two parts each.
      const twoPart = 6_000 - 1;
      const oneP = 11_998 - twoPart;
      assert.deepEqual([reply.parts, reply.credits], [2, twoPart * 2 + oneP]);
      const campaign = await campaignRow(t, reply.campaign_id);
      assert.deepEqual([Number(campaign.recipients), Number(campaign.credits_charged)], [11_998, reply.credits]);
      const rows = await t.service.store.db
        .selectFrom('messages')
        .select((eb) => [
          eb.fn.countAll<number>().as('n'),
          eb.fn.count<number>('phone').distinct().as('phones'),
          eb.fn.sum<number>('cost_credits').as('cost'),
        ])
        .where('campaign_id', '=', reply.campaign_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([Number(rows.n), Number(rows.phones), Number(rows.cost)], [11_998, 11_998, reply.credits]);
      assert.equal((await s.balance()).credits, 20_000 - reply.credits);
      const ledger = await t.service.store.db
        .selectFrom('ledger_entries')
        .select('amount')
        .where('ref_type', '=', 'campaign')
        .where('ref_id', '=', reply.campaign_id)
        .execute();
      assert.deepEqual(
        ledger.map((l) => Number(l.amount)),
        [-reply.credits],
      );
    });

    it('a list send that runs out of credit part way is 4 and writes nothing', async () => {
      const accountId = await t.accountId('lister');
      const list = await createContactList(t.service.store.db, accountId, 'too big', Date.now());
      await insertContacts(
        t.service.store.db,
        list,
        Array.from({ length: 7_000 }, (_, i) => ({
          phone: `97253${String(i).padStart(7, '0')}`,
          df1: null,
          df2: null,
          df3: null,
          df4: null,
          df5: null,
          df6: null,
        })),
        Date.now(),
      );
      await setCredits(6_000);
      const before = await sendTableCounts(t);
      const reply = await s.sms({ destinations: { cl_id: list } });
      assert.equal(reply.status, 4);
      assert.deepEqual(await sendTableCounts(t), before);
      assert.equal((await s.balance()).credits, 6_000);
    });

    it('add_dynamic 1 with phones, with two lists or with no list is 987', async () => {
      const second = await newList(s, 'second', [{ phone: '0504444444' }]);
      for (const destinations of [
        { cl_id: listId, phone: '0501234567' },
        { cl_id: [listId, second] },
        { phone: '0501234567' },
      ]) {
        assert.equal(
          (await s.sms({ destinations, add_dynamic: '1', message: 'Hi [df1]' })).status,
          987,
          JSON.stringify(destinations),
        );
      }
    });
  });
}

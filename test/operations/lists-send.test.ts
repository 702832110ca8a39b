// Sending to contact lists on every store: cl_id expansion (with phones, deduplicated), 988 for an unknown
// or another account's list, add_dynamic 1 merging df1..df6 (987 unless exactly one cl_id and no phone).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { messagesOf, newSender, startSendingService, xmlStatus, type Sender } from './send-helpers.ts';

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

    it('an unknown list, or another account\'s list, is 988', async () => {
      for (const cl_id of ['999999', String(otherListId), 'abc']) {
        const reply = await s.sms({ destinations: { cl_id, phone: '0501234567' } });
        assert.equal(reply.status, 988, cl_id);
      }
      const xml = await t.post(`<sms><user><username>lister</username></user><source>Yona</source><destinations><cl_id>${otherListId}</cl_id>` +
        '</destinations><message>hi</message></sms>', { contentType: 'application/xml', token: s.token });
      assert.equal(xmlStatus(xml.text), 988);
    });

    it('add_dynamic 1 merges each contact\'s fields into its text', async () => {
      const reply = await s.sms({ destinations: { cl_id: listId }, add_dynamic: '1', message: 'Hi [df1] from [DYNAMIC_FIELD2]!', includes_international: '1' });
      assert.equal(reply.status, 12, 'the French contact needs international money');
      const ok = await s.sms({ destinations: { cl_id: listId }, add_dynamic: '1', message: 'Hi [df1] from [DYNAMIC_FIELD2]!' });
      assert.equal(ok.status, 0);
      const rows = await messagesOf(t, ok.campaign_id);
      assert.deepEqual(rows.map((m) => [m.phone, m.text]).sort(), [['972501111111', 'Hi Dana from Haifa!'], ['972502222222', 'Hi Avi from !']]);
      const plain = await s.sms({ destinations: { cl_id: listId }, add_dynamic: '0', message: 'Hi [df1]' });
      assert.deepEqual((await messagesOf(t, plain.campaign_id)).map((m) => m.text), ['Hi [df1]', 'Hi [df1]']);
    });

    it('add_dynamic 1 with phones, with two lists or with no list is 987', async () => {
      const second = await newList(s, 'second', [{ phone: '0504444444' }]);
      for (const destinations of [{ cl_id: listId, phone: '0501234567' }, { cl_id: [listId, second] }, { phone: '0501234567' }]) {
        assert.equal((await s.sms({ destinations, add_dynamic: '1', message: 'Hi [df1]' })).status, 987, JSON.stringify(destinations));
      }
    });
  });
}

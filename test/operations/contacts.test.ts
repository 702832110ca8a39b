// Contact lists over real HTTP on every store: partial success, duplicates, 988 (tenant scoping), paging,
// XML, dry-run, and the streaming reader the send path uses.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  countContacts,
  createContactList,
  findContactList,
  insertContacts,
  streamContacts,
} from '../../src/store/contacts.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const xmlStatus = (text: string) => Number(/<status>(-?\d+)<\/status>/.exec(text)?.[1]);
const DATE = /^\d\d\/\d\d\/\d\d \d\d:\d\d$/;

const targets = await storeTargets();
for (const target of targets) {
  describe(`contacts (${target.name})`, () => {
    let t: TestService;
    let token: string;
    let otherToken: string;
    const call = (root: string, doc: Record<string, unknown>, dryRun = false) =>
      t.api(root, { user: { username: 'cllist' }, ...doc }, { token, dryRun });
    const other = (root: string, doc: Record<string, unknown>) =>
      t.api(root, { user: { username: 'clother' }, ...doc }, { token: otherToken });
    const newList = async (name: string, phones: string[]) => {
      const reply = await call('newCL', {
        cl: { name, destinations: { destination: phones.map((phone) => ({ phone })) } },
      });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      return reply.id as number;
    };

    before(async () => {
      t = await startTestService(target);
      token = (await t.account('cllist')).token;
      otherToken = (await t.account('clother')).token;
    });
    after(() => t.close());

    it('newCL creates lists, keeps good rows and reports every rejected row with status 0', async () => {
      const reply = await call('newCL', {
        cl: [
          {
            name: 'VIP',
            destinations: {
              destination: [
                { phone: '0501234567', df1: 'Dana', df2: '14/03' },
                { phone: '123' },
                { phone: '', df1: 'no phone' },
                { phone: '+972-50-123-4567' },
                { phone: '521111111', df6: 'six' },
                { phone: 'abc' },
              ],
            },
          },
          { name: 'Second', destinations: { destination: { phone: '0549999999' } } },
        ],
      });
      assert.equal(reply.status, 0);
      assert.equal(typeof reply.id, 'number');
      assert.equal(reply.lists.length, 2);
      assert.equal(reply.id, reply.lists[0].id);
      assert.deepEqual(
        reply.lists.map((l: any) => [l.name, l.contacts, l.rejected]),
        [
          ['VIP', 2, 4],
          ['Second', 1, 0],
        ],
      );
      assert.deepEqual(
        reply.errors.map((e: any) => [e.list, e.list_id, e.row, e.phone, e.reason]),
        [
          ['VIP', reply.id, 2, '123', 'too_short'],
          ['VIP', reply.id, 3, '', 'missing_phone'],
          ['VIP', reply.id, 4, '+972-50-123-4567', 'duplicate'],
          ['VIP', reply.id, 6, 'abc', 'invalid'],
        ],
      );
      const read = await call('getCLbyID', { cl: { id: reply.id } });
      assert.equal(read.status, 0);
      assert.equal(read.total, 2);
      assert.deepEqual(read.contacts, [
        { phone: '0501234567', df1: 'Dana', df2: '14/03', df3: '', df4: '', df5: '', df6: '' },
        { phone: '0521111111', df1: '', df2: '', df3: '', df4: '', df5: '', df6: 'six' },
      ]);
    });

    it('newCL without cl or without a list name answers 2; a list without destinations is created empty', async () => {
      assert.equal((await call('newCL', {})).status, 2);
      const empty = await call('newCL', { cl: { name: 'Empty' } });
      assert.deepEqual([empty.status, empty.lists[0].contacts, empty.errors], [0, 0, []]);
      const reply = await call('newCL', { cl: { destinations: { destination: { phone: '0501234567' } } } });
      assert.equal(reply.status, 2);
      assert.match(reply.message, /name/);
    });

    it('getCL lists id, name, number of contacts and creation date; other accounts see none of them', async () => {
      const id = await newList('Counted', ['0501111111', '0502222222', '0503333333']);
      const reply = await call('getCL', {});
      assert.equal(reply.status, 0);
      const mine = reply.lists.find((l: any) => l.id === id);
      assert.equal(mine.name, 'Counted');
      assert.equal(mine.contacts, 3);
      assert.match(mine.date, DATE);
      const theirs = await other('getCL', {});
      assert.equal(theirs.status, 0);
      assert.deepEqual(theirs.lists, []);
    });

    it('addNumCL adds new numbers and reports duplicates (in the list or repeated) without adding them twice', async () => {
      const id = await newList('Grow', ['0501111111']);
      const reply = await call('addNumCL', {
        cl: { id: String(id) },
        destinations: {
          destination: [
            { phone: '0501111111' },
            { phone: '0502222222', df1: 'new' },
            { phone: '502222222' },
            { phone: '1' },
          ],
        },
      });
      assert.equal(reply.status, 0);
      assert.equal(reply.added, 1);
      assert.equal(reply.contacts, 2);
      assert.deepEqual(
        reply.errors.map((e: any) => [e.row, e.reason]),
        [
          [1, 'duplicate'],
          [3, 'duplicate'],
          [4, 'too_short'],
        ],
      );
      const read = await call('getCLbyID', { cl: { id } });
      assert.deepEqual(
        read.contacts.map((c: any) => [c.phone, c.df1]),
        [
          ['0501111111', ''],
          ['0502222222', 'new'],
        ],
      );
    });

    it('rmNumCL removes numbers and reports the ones that were not in the list', async () => {
      const id = await newList('Shrink', ['0501111111', '0502222222', '0503333333']);
      const reply = await call('rmNumCL', {
        cl: { id },
        destinations: { destination: [{ phone: '0501111111' }, { phone: '0509999999' }, { phone: 'x' }] },
      });
      assert.equal(reply.status, 0);
      assert.equal(reply.removed, 1);
      assert.equal(reply.contacts, 2);
      assert.deepEqual(
        reply.errors.map((e: any) => [e.row, e.phone, e.reason]),
        [
          [2, '0509999999', 'not_in_list'],
          [3, 'x', 'invalid'],
        ],
      );
    });

    it("answers 988 for unknown ids, malformed ids and another account's list, which stays untouched", async () => {
      const id = await newList('Private', ['0501111111']);
      for (const [root, extra] of [
        ['getCLbyID', {}],
        ['removeCL', {}],
        ['addNumCL', { destinations: { destination: { phone: '0502222222' } } }],
        ['rmNumCL', { destinations: { destination: { phone: '0501111111' } } }],
      ] as const) {
        assert.equal((await other(root, { cl: { id }, ...extra })).status, 988, `${root} on another account's list`);
        assert.equal((await call(root, { cl: { id: 999_999 }, ...extra })).status, 988, `${root} on an unknown list`);
        assert.equal((await call(root, { cl: { id: 'abc' }, ...extra })).status, 988, `${root} on a malformed id`);
      }
      const missing = await call('getCLbyID', {});
      assert.equal(missing.status, 2);
      assert.match(missing.message, /cl\.id/);
      const read = await call('getCLbyID', { cl: { id } });
      assert.equal(read.total, 1);
      assert.equal(read.contacts[0].phone, '0501111111');
    });

    it('removeCL deletes a list and its contacts; afterwards the list is 988', async () => {
      const id = await newList('Doomed', ['0501111111', '0502222222']);
      const reply = await call('removeCL', { cl: { id } });
      assert.equal(reply.status, 0);
      assert.deepEqual(reply.ids, [id]);
      assert.equal((await call('getCLbyID', { cl: { id } })).status, 988);
      assert.equal(await countContacts(t.service.store.db, id), 0);
      const left = await t.service.store.db.selectFrom('contacts').select('id').where('list_id', '=', id).execute();
      assert.equal(left.length, 0);
    });

    it('getCLbyID pages large lists with page/page_size and reports total and pages', async () => {
      const phones = Array.from({ length: 25 }, (_, i) => `05020000${String(i).padStart(2, '0')}`);
      const id = await newList('Paged', phones);
      const first = await call('getCLbyID', { cl: { id }, page_size: 10 });
      assert.deepEqual(
        [first.total, first.page, first.page_size, first.pages, first.contacts.length],
        [25, 1, 10, 3, 10],
      );
      assert.equal(first.contacts[0].phone, phones[0]);
      const last = await call('getCLbyID', { cl: { id }, page: '3', page_size: '10' });
      assert.deepEqual(
        last.contacts.map((c: any) => c.phone),
        phones.slice(20),
      );
      const beyond = await call('getCLbyID', { cl: { id }, page: 4, page_size: 10 });
      assert.deepEqual(beyond.contacts, []);
      const all = await call('getCLbyID', { cl: { id } });
      assert.equal(all.page_size, 1000);
      assert.equal(all.contacts.length, 25);
      assert.equal((await call('getCLbyID', { cl: { id }, page_size: 50_000 })).page_size, 10_000);
      assert.equal((await call('getCLbyID', { cl: { id }, page: 0 })).status, 2);
      assert.equal((await call('getCLbyID', { cl: { id }, page_size: 'many' })).status, 2);
    });

    it('getCLbyID pages by keyset with after/next_after, in JSON and XML, and sees the whole list once', async () => {
      const phones = Array.from({ length: 25 }, (_, i) => `05030000${String(i).padStart(2, '0')}`);
      const id = await newList('Keyset', phones);
      const seen: string[] = [];
      let after: number | undefined;
      for (let pageNo = 0; pageNo < 5; pageNo++) {
        const reply = await call('getCLbyID', {
          cl: { id },
          page_size: 10,
          ...(after === undefined ? {} : { after: String(after) }),
        });
        assert.equal(reply.status, 0);
        assert.equal(reply.total, 25);
        assert.equal('page' in reply, after === undefined, 'page only when paging by number');
        seen.push(...reply.contacts.map((c: any) => c.phone));
        if (reply.next_after === undefined) break;
        after = reply.next_after;
      }
      assert.deepEqual(seen, phones, 'every contact once, in order');
      const xml = await t.post(
        `<?xml version="1.0" encoding="UTF-8"?><getCLbyID><user><username>cllist</username></user><cl><id>${id}</id></cl>` +
          `<page_size>10</page_size><after>${after}</after></getCLbyID>`,
        { contentType: 'application/xml', token },
      );
      assert.match(xml.text, /<status>0<\/status>/);
      assert.deepEqual(
        [...xml.text.matchAll(/<phone>(\d+)<\/phone>/g)].map((m) => m[1]),
        phones.slice(20),
      );
      assert.doesNotMatch(xml.text, /<next_after>/, 'a short page is the last');
      assert.equal((await call('getCLbyID', { cl: { id }, after: -1 })).status, 2);
      assert.equal((await call('getCLbyID', { cl: { id }, after: 'x' })).status, 2);
    });

    it('speaks XML: newCL with rows and errors, getCLbyID and getCL', async () => {
      const created = await t.post(
        '<?xml version="1.0" encoding="UTF-8"?><newCL><user><username>cllist</username></user><cl><name>Xml</name><destinations>' +
          '<destination><phone>0501234567</phone><df1>Avi</df1></destination><destination><phone>12</phone></destination>' +
          '</destinations></cl></newCL>',
        { contentType: 'application/xml', token },
      );
      assert.equal(xmlStatus(created.text), 0, created.text);
      const id = Number(/<id>(\d+)<\/id>/.exec(created.text)?.[1]);
      assert.match(
        created.text,
        /<lists><list><id>\d+<\/id><name>Xml<\/name><contacts>1<\/contacts><rejected>1<\/rejected><\/list><\/lists>/,
      );
      assert.match(
        created.text,
        /<errors><error><list>Xml<\/list><list_id>\d+<\/list_id><row>2<\/row><phone>12<\/phone><reason>too_short<\/reason><\/error><\/errors>/,
      );
      const read = await t.post(
        `<getCLbyID><user><username>cllist</username></user><cl><id>${id}</id></cl></getCLbyID>`,
        { contentType: 'application/xml', token },
      );
      assert.equal(xmlStatus(read.text), 0);
      assert.match(read.text, /<contacts><contact><phone>0501234567<\/phone><df1>Avi<\/df1>/);
      const lists = await t.post('<getCL><user><username>cllist</username></user></getCL>', {
        contentType: 'application/xml',
        token,
      });
      assert.match(lists.text, new RegExp(`<list><id>${id}</id><name>Xml</name><contacts>1</contacts><date>`));
    });

    it('dry-run (/api/test) answers like the real call and changes no list', async () => {
      const id = await newList('Stable', ['0501111111']);
      const before = (await call('getCL', {})).lists;
      const created = await call(
        'newCL',
        { cl: { name: 'Ghost', destinations: { destination: { phone: '0501234567' } } } },
        true,
      );
      assert.equal(created.status, 0);
      assert.equal(created.lists[0].contacts, 1);
      const added = await call(
        'addNumCL',
        { cl: { id }, destinations: { destination: { phone: '0502222222' } } },
        true,
      );
      assert.equal(added.added, 1);
      assert.equal(
        (await call('rmNumCL', { cl: { id }, destinations: { destination: { phone: '0501111111' } } }, true)).removed,
        1,
      );
      assert.equal((await call('removeCL', { cl: { id } }, true)).status, 0);
      assert.deepEqual((await call('getCL', {})).lists, before);
      const read = await call('getCLbyID', { cl: { id } });
      assert.deepEqual(
        read.contacts.map((c: any) => c.phone),
        ['0501111111'],
      );
    });

    it('streamContacts reads a list in id order in bounded batches; tenant scoping in findContactList', async () => {
      const db = t.service.store.db;
      const accountId = await t.accountId('cllist');
      const listId = await createContactList(db, accountId, 'Streamed', 1);
      const contacts = Array.from({ length: 12 }, (_, i) => ({
        phone: `97250300${String(i).padStart(4, '0')}`,
        df1: `n${i}`,
        df2: null,
        df3: null,
        df4: null,
        df5: null,
        df6: null,
      }));
      assert.equal((await insertContacts(db, listId, [...contacts, contacts[0]], 1)).length, 12);
      assert.equal(await countContacts(db, listId), 12);
      const sizes: number[] = [];
      const seen: string[] = [];
      let lastId = 0;
      for await (const batch of streamContacts(db, listId, 5)) {
        sizes.push(batch.length);
        for (const c of batch) {
          assert.ok(c.id > lastId);
          lastId = c.id;
          seen.push(c.phone);
        }
      }
      assert.deepEqual(sizes, [5, 5, 2]);
      assert.deepEqual(
        seen,
        contacts.map((c) => c.phone),
      );
      // Interleaved with another list (sparse ids, gaps): only this list's contacts, each once, in id order.
      const sparseId = await createContactList(db, accountId, 'Sparse', 1);
      const noiseId = await createContactList(db, accountId, 'Noise', 1);
      const phone = (prefix: string, i: number) => ({
        phone: `${prefix}${String(i).padStart(4, '0')}`,
        df1: null,
        df2: null,
        df3: null,
        df4: null,
        df5: null,
        df6: null,
      });
      const expected: string[] = [];
      for (let round = 0; round < 4; round++) {
        const mine = Array.from({ length: round + 2 }, (_, i) => phone(`9725040${round}`, i));
        expected.push(...mine.map((c) => c.phone));
        await insertContacts(db, sparseId, mine, 1);
        await insertContacts(
          db,
          noiseId,
          Array.from({ length: 40 * (round + 1) }, (_, i) => phone(`9725050${round}`, i)),
          1,
        );
      }
      for (const size of [1, 3, 5, 100]) {
        const got: string[] = [];
        for await (const batch of streamContacts(db, sparseId, size)) {
          assert.ok(batch.length >= 1 && batch.length <= size);
          got.push(...batch.map((c) => c.phone));
        }
        assert.deepEqual(got, expected, `batch size ${size}`);
      }
      const empty = await createContactList(db, accountId, 'Empty', 1);
      for await (const _ of streamContacts(db, empty)) assert.fail('an empty list yields nothing');
      assert.ok(await findContactList(db, accountId, listId));
      const otherId = await t.accountId('clother');
      assert.equal(await findContactList(db, otherId, listId), undefined);
    });
  });
}

// Send-path gaps over real HTTP on every store (SQLite and PostgreSQL):
// - XML: 50 concurrent sms sends against a balance for 10 leave it at exactly 0 with exactly 10 accepted (the rest 4);
// - XML: a number blocked after an immediate send was accepted is skipped by the dispatcher (201) and refunded;
// - /api/test: an XML sms and a JSON bulk answer recipients, parts, encoding, credits and the rejected recipients
//   with reasons, store nothing and charge nothing, and match the real send;
// - add_dynamic 1 merging df3..df6 (either spelling) from a contact list, in JSON and in XML;
// - XML: a link placed with [link-<id>] becomes the short link in the stored text;
// - JSON: bulk with a batch-wide timing is scheduled;
// - XML: verify_phone for a landline tells the caller to call a number (and sends no SMS); getVerifiedPhones
//   without is_subs lists only the account's own senders.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { Router } from '../../src/delivery/routing.ts';
import { SmscSimulator } from '../../src/carriers/simulator/index.ts';
import { SmppCarrier } from '../../src/carriers/smpp/connector.ts';
import { fromZoned } from '../../src/domain/dates.ts';
import { createLogger } from '../../src/logger.ts';
import { campaignLinks } from '../../src/store/links.ts';
import { deliverySettings } from '../../src/config.ts';
import { Dispatcher } from '../../src/delivery/dispatcher.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  assertTenOfFiftyAccepted,
  campaignRow,
  messagesOf,
  newResellerWithSubSender,
  newSender,
  sendTableCounts,
  startSendingService,
  xmlField,
  xmlStatus,
  type Sender,
} from '../operations/send-helpers.ts';
import { settleOnClose, simCarrier } from '../delivery/delivery-helpers.ts';

const ZONE = 'Asia/Jerusalem';
const PUBLIC = 'https://yona.example.test';
/** A wall-clock time in June 2026, Israel time. */
const at = (day: number, hour: number, minute = 0) =>
  fromZoned({ year: 2026, month: 6, day, hour, minute, second: 0 }, ZONE);
/** An XML request document for `who`. */
const xmlDoc = (root: string, who: Sender, inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><${root}><user><username>${who.username}</username></user>${inner}</${root}>`;
/** `<phone>` elements; a value already starting with `<` is taken as it is. */
const phones = (...list: string[]) => list.map((p) => (p.startsWith('<') ? p : `<phone>${p}</phone>`)).join('');
/** One rejected recipient as the XML reply lists it. */
const rejectedXml = (phone: string, reason: string, status: number, id?: string) =>
  `<recipient><phone>${phone}</phone>${id ? `<id>${id}</id>` : ''}<reason>${reason}</reason><status>${status}</status></recipient>`;
/** Every value of a repeated XML element, in order. */
const xmlAll = (text: string, name: string) =>
  [...text.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]);
const bulkItem = (phone: unknown, message: string) => ({ source: 'Yona', destinations: { phone }, message });

/** Posts an XML document as `who` (to /api/test when dryRun); checks HTTP 200 and an XML reply. */
async function postXml(t: TestService, who: Sender, root: string, inner: string, dryRun = false) {
  const res = await t.post(xmlDoc(root, who, inner), { contentType: 'application/xml', token: who.token, dryRun });
  assert.equal(res.httpStatus, 200, res.text);
  assert.match(res.contentType, /application\/xml/);
  return { text: res.text, status: xmlStatus(res.text), field: (name: string) => xmlField(res.text, name) };
}

const targets = await storeTargets();
for (const target of targets) {
  describe(`sending coverage over HTTP (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    const now = at(1, 10);
    const xml = (root: string, inner: string, o: { who?: Sender; dryRun?: boolean } = {}) =>
      postXml(t, o.who ?? s, root, inner, o.dryRun);
    const smsXml = (destinations: string, message: string, extra = '', o: { who?: Sender; dryRun?: boolean } = {}) =>
      xml(
        'sms',
        `<source>Yona</source><destinations>${destinations}</destinations><message>${message}</message>${extra}`,
        o,
      );

    before(async () => {
      t = await startSendingService(target, { clock: () => now, env: { YONA_PUBLIC_URL: `${PUBLIC}/` } });
      s = await newSender(t, 'coverage', 10_000);
    });
    after(() => t.close());

    it('XML: 50 concurrent sms sends against a balance for 10 leave it at exactly 0 with exactly 10 accepted and the rest 4', async () => {
      const ten = await newSender(t, 'xmltencredits', 10);
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          smsXml(phones(`05000000${String(i).padStart(2, '0')}`), 'hello', '', { who: ten }),
        ),
      );
      await assertTenOfFiftyAccepted(
        t,
        ten,
        replies.map((r) => r.status),
      );
    });

    it('XML /api/test sms: answers recipients, parts, encoding, credits and the rejected with reasons; stores and charges nothing', async () => {
      const destinations = phones('0501234567', '0521234567', '<phone id="x">12</phone>', '031234567');
      const message = 'ש'.repeat(71);
      const figures = (r: { field(name: string): string | undefined }) =>
        ['recipients', 'parts', 'encoding', 'credits'].map((f) => r.field(f));
      const [counts, balance] = [await sendTableCounts(t), await s.balance()];
      const dry = await smsXml(destinations, message, '<campaign_name>dry</campaign_name>', { dryRun: true });
      assert.equal(dry.status, 0, dry.text);
      assert.match(
        dry.text,
        /^<\?xml version="1.0" encoding="UTF-8"\?><sms><status>0<\/status><message>SMS will be sent<\/message><shipment_id>0<\/shipment_id>/,
      );
      assert.equal(dry.field('campaign_id'), '0', 'a dry run names no campaign');
      assert.deepEqual(figures(dry), ['2', '2', 'ucs2', '4']);
      assert.match(
        dry.text,
        new RegExp(
          `<rejected>${rejectedXml('12', 'too_short', 9, 'x')}${rejectedXml('031234567', 'not_mobile', 933)}</rejected>`,
        ),
      );
      assert.deepEqual(await sendTableCounts(t), counts);
      assert.deepEqual(await s.balance(), balance);

      const real = await smsXml(destinations, message, '<campaign_name>dry</campaign_name>');
      assert.equal(real.status, 0, real.text);
      assert.deepEqual(figures(real), figures(dry));
      assert.equal((await s.balance()).credits, balance.credits - 4);
    });

    it('JSON /api/test bulk: answers parts, encoding, credits and the rejected with reasons; stores and charges nothing', async () => {
      const doc = {
        campaign_name: 'dry bulk',
        messages: {
          sms: [
            bulkItem({ $: { id: 'a' }, _: '0501111111' }, 'ש'.repeat(71)),
            bulkItem('0502222222', 'hi'),
            bulkItem({ $: { id: 'c' }, _: '123' }, 'nobody'),
            bulkItem('031234567', 'a landline'),
          ],
        },
      };
      const figures = (r: Record<string, any>) => [r.recipients, r.parts, r.encoding, r.credits];
      const [counts, balance] = [await sendTableCounts(t), await s.balance()];
      const dry = await s.call('bulk', doc, { dryRun: true });
      assert.deepEqual([dry.status, dry.message, dry.shipment_id, dry.campaign_id], [0, 'SMS will be sent', '0', 0]);
      assert.deepEqual(figures(dry), [2, 2, 'ucs2', 3]);
      assert.deepEqual(dry.rejected, [
        { phone: '123', id: 'c', reason: 'too_short', status: 9 },
        { phone: '031234567', reason: 'not_mobile', status: 933 },
      ]);
      assert.deepEqual(await sendTableCounts(t), counts);
      assert.deepEqual(await s.balance(), balance);

      const real = await s.call('bulk', doc);
      assert.equal(real.status, 0);
      assert.deepEqual(figures(real), figures(dry));
      assert.deepEqual(real.rejected, dry.rejected);
      assert.equal((await s.balance()).credits, balance.credits - 3);
    });

    describe('add_dynamic 1 merges df3..df6 from a contact list', () => {
      // [dfN] and [DYNAMIC_FIELDN] name the same field; a field the contact lacks merges as empty text.
      const template = 'Hi [df3] [DYNAMIC_FIELD4], code [df5] at [DYNAMIC_FIELD6].';
      const full = { phone: '0501110003', df1: 'one', df2: 'two', df3: 'Dana', df4: 'Levi', df5: '4711', df6: 'Haifa' };
      const partial = { phone: '0501110004', df3: 'Avi', df6: 'Eilat' };
      const expected = [
        ['972501110003', 'Hi Dana Levi, code 4711 at Haifa.'],
        ['972501110004', 'Hi Avi , code  at Eilat.'],
      ];

      it('in JSON', async () => {
        const list = await s.call('newCL', {
          cl: { name: 'dynamic json', destinations: { destination: [full, partial] } },
        });
        assert.equal(list.status, 0);
        const reply = await s.sms({ destinations: { cl_id: list.id }, add_dynamic: '1', message: template });
        assert.equal(reply.status, 0);
        assert.equal(reply.recipients, 2);
        assert.deepEqual((await messagesOf(t, reply.campaign_id)).map((m) => [m.phone, m.text]).sort(), expected);
      });

      it('in XML', async () => {
        const contact = (c: Record<string, string>) =>
          `<destination>${Object.entries(c)
            .map(([k, v]) => `<${k}>${v}</${k}>`)
            .join('')}</destination>`;
        const list = await xml(
          'newCL',
          `<cl><name>dynamic xml</name><destinations>${contact(full)}${contact(partial)}</destinations></cl>`,
        );
        assert.equal(list.status, 0, list.text);
        const reply = await smsXml(`<cl_id>${list.field('id')}</cl_id>`, template, '<add_dynamic>1</add_dynamic>');
        assert.equal(reply.status, 0, reply.text);
        assert.equal(reply.field('recipients'), '2');
        assert.deepEqual(
          (await messagesOf(t, Number(reply.field('campaign_id')))).map((m) => [m.phone, m.text]).sort(),
          expected,
        );
      });
    });

    it('XML: a link placed with [link-<id>] becomes the short link in each stored text, and it redirects', async () => {
      const reply = await smsXml(
        phones('0501234567', '0521234567'),
        'Sale: [link-shop] today',
        '<links><link id="shop">https://shop.example.com/sale?a=1&amp;b=2</link></links>',
      );
      assert.equal(reply.status, 0, reply.text);
      const id = Number(reply.field('campaign_id'));
      const links = await campaignLinks(t.service.store.db, id);
      assert.deepEqual(
        links.map((l) => [l.link_key, l.target]),
        [['shop', 'https://shop.example.com/sale?a=1&b=2']],
      );
      const short = `${PUBLIC}/l/${links[0].code}`;
      assert.deepEqual(
        (await messagesOf(t, id)).map((m) => m.text),
        [`Sale: ${short} today`, `Sale: ${short} today`],
      );
      const res = await request(`${t.httpUrl}/l/${links[0].code}`);
      assert.deepEqual([res.statusCode, res.headers.location], [302, 'https://shop.example.com/sale?a=1&b=2']);
      await res.body.dump();
    });

    it('JSON: bulk with a valid batch-wide timing schedules the campaign and its messages', async () => {
      const reply = await s.call('bulk', {
        timing: '02/06/26 08:30',
        messages: {
          sms: [
            bulkItem({ $: { id: '1' }, _: '0501111111' }, 'one'),
            bulkItem({ $: { id: '2' }, _: '0502222222' }, 'two'),
          ],
        },
      });
      assert.equal(reply.status, 0);
      assert.equal(reply.timing, '02/06/26 08:30');
      const campaign = await campaignRow(t, reply.campaign_id);
      assert.deepEqual(
        [campaign.kind, campaign.state, Number(campaign.scheduled_at)],
        ['bulk', 'scheduled', at(2, 8, 30)],
      );
      const rows = await messagesOf(t, campaign.id);
      assert.deepEqual(
        rows.map((m) => [m.external_id, m.text, m.state, Number(m.next_attempt_at)]),
        [
          ['1', 'one', 'scheduled', at(2, 8, 30)],
          ['2', 'two', 'scheduled', at(2, 8, 30)],
        ],
      );
    });

    it('XML: verify_phone for a landline answers a verify_message telling the caller to call a number, and sends no SMS', async () => {
      const counts = await sendTableCounts(t);
      const reply = await xml('verify_phone', '<phone>03-1234567</phone>');
      assert.equal(reply.status, 0, reply.text);
      const messages = xmlAll(reply.text, 'verify_message');
      assert.equal(messages.length, 1);
      assert.match(messages[0], /^To verify the landline 031234567, call 03-0000000 from it/);
      const after = await sendTableCounts(t);
      assert.deepEqual(
        [after.campaigns, after.messages, after.sender_verifications],
        [counts.campaigns, counts.messages, counts.sender_verifications + 1],
      );
      const unverified = await xml(
        'sms',
        `<source>031234567</source><destinations>${phones('0501234567')}</destinations><message>hi</message>`,
      );
      assert.equal(unverified.status, 515, 'asking is not being verified');
    });

    it("XML: getVerifiedPhones without is_subs lists only the account's own senders", async () => {
      const token = await newResellerWithSubSender(t, 'covreseller', 'covsub');
      const reseller = { username: 'covreseller', token } as Sender;
      const own = await xml('getVerifiedPhones', '', { who: reseller });
      assert.equal(own.status, 0, own.text);
      assert.match(own.text, /<phones><phone>Shop<\/phone><\/phones>/);
      assert.deepEqual(xmlAll(own.text, 'phone'), ['Shop']);
      const withSubs = await xml('getVerifiedPhones', '<is_subs>1</is_subs>', { who: reseller });
      assert.deepEqual(
        xmlAll(withSubs.text, 'phone'),
        ['Shop', 'SubShop'],
        'the sub-account does have a sender of its own',
      );
    });
  });

  describe(`dispatcher blocklist check on an XML send (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    const now = Date.now();
    let sim: SmscSimulator;
    let carrier: SmppCarrier;
    let dispatcher: Dispatcher;

    before(async () => {
      t = await startTestService(target, { clock: () => now });
      settleOnClose(t);
      s = await newSender(t, 'xmldispatch', 100);
      sim = new SmscSimulator({ systemId: 'yona', password: 'secret', receiptDelayMs: 5 });
      carrier = new SmppCarrier(simCarrier(await sim.start(0), { name: 'a', queueTimeoutMs: 2000 }));
      await carrier.start();
      // Not started: the test runs one batch when it chooses, as in test/delivery/dispatcher.test.ts.
      dispatcher = new Dispatcher({
        store: t.service.store,
        logger: createLogger('silent'),
        signals: t.service.signals,
        clock: () => now,
        carriers: new Map([['a', carrier]]),
        routers: new Map([['sms', new Router([{ prefix: '', carrier: 'a' }], ['a'])]]),
        settings: { ...deliverySettings({}), batchSize: 50, maxAttempts: 3 },
      });
    });
    after(async () => {
      await carrier.stop();
      await sim.stop();
      await t.close();
    });

    it('a number blocklisted in XML after an immediate XML send was accepted is skipped with 201 and refunded; the other is sent', async () => {
      const accepted = await postXml(
        t,
        s,
        'sms',
        `<source>Yona</source><destinations>${phones('0521230019', '0521230029')}</destinations><message>blocked at dispatch</message>`,
      );
      assert.equal(accepted.status, 0, accepted.text);
      const id = Number(accepted.field('campaign_id'));
      assert.deepEqual(
        (await messagesOf(t, id)).map((m) => m.state),
        ['queued', 'queued'],
      );
      const before = await s.balance();
      const blocked = await postXml(t, s, 'addNumBL', `<phones>${phones('0521230019')}</phones>`);
      assert.deepEqual([blocked.status, blocked.field('added')], [946, '1']);

      await dispatcher.runBatch();
      const rows = await messagesOf(t, id);
      assert.deepEqual(
        rows.map((m) => [m.phone, m.state, m.status, Number(m.cost_credits)]),
        [
          ['972521230019', 'skipped', 201, 0],
          ['972521230029', 'submitted', -1, 1],
        ],
      );
      assert.equal((await s.balance()).credits, before.credits + 1);
      assert.equal(sim.messages({ to: '972521230019' }).length, 0);
      assert.deepEqual(
        sim.messages({ to: '972521230029' }).map((m) => m.text),
        ['blocked at dispatch'],
      );
      assert.equal((await campaignRow(t, id)).state, 'sent');
    });
  });
}

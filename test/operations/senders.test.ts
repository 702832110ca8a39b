// Senders on every store: verify_phone (a mobile gets a free SMS with a one-time `/v/:code` link whose POST
// verifies it, a GET does not; a landline is told to call and the operator verifies), 510 with no phones,
// 933 when none is usable, and getVerifiedPhones with and without sub-accounts, in JSON and XML (XML: one
// <verify_message> per number straight under the root).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  newResellerWithSubSender,
  newSender,
  sendTableCounts,
  startSendingService,
  xmlStatus,
  type Sender,
} from './send-helpers.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`senders (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let now = Date.UTC(2026, 5, 1, 9, 0);
    const page = (path: string, method: 'GET' | 'POST' = 'GET') =>
      request(`${t.httpUrl}${path}`, { method, body: method === 'POST' ? '' : undefined });
    const verifyMessages = () =>
      t.service.store.db
        .selectFrom('messages')
        .innerJoin('campaigns', 'campaigns.id', 'messages.campaign_id')
        .select(['messages.phone', 'messages.text', 'messages.state', 'messages.cost_credits', 'messages.source'])
        .where('campaigns.kind', '=', 'verify')
        .orderBy('messages.id')
        .execute();
    const codeOf = (text: string) => /\/v\/([A-Za-z0-9_-]{16})$/.exec(text)?.[1] ?? '';

    before(async () => {
      t = await startSendingService(target, {
        clock: () => now,
        env: { YONA_PUBLIC_URL: 'https://yona.example.test' },
      });
      s = await newSender(t, 'verifier', 50);
    });
    after(() => t.close());

    it('a mobile gets a free SMS with a one-time link; GET shows a page, POST verifies, a second POST does nothing', async () => {
      const reply = await s.call('verify_phone', { phone: '0541234567' });
      assert.equal(reply.status, 0);
      assert.equal(reply.verify_message.length, 1);
      assert.match(reply.verify_message[0], /sent by SMS to 0541234567/);
      const [sms] = await verifyMessages();
      assert.deepEqual(
        [sms.phone, sms.state, Number(sms.cost_credits), sms.source],
        ['972541234567', 'queued', 0, 'Yona'],
      );
      assert.match(
        sms.text,
        /^To confirm 0541234567 as a sender of verifier, open https:\/\/yona\.example\.test\/v\/[A-Za-z0-9_-]{16}$/,
      );
      assert.equal((await s.balance()).credits, 50, 'free of charge');
      const code = codeOf(sms.text);

      const get = await page(`/v/${code}`);
      assert.equal(get.statusCode, 200);
      assert.match(await get.body.text(), /<form method="post" action="\/v\//);
      assert.equal(
        (await s.sms({ source: '0541234567', destinations: { phone: '0501234567' } })).status,
        515,
        'a GET verifies nothing',
      );
      const post = await page(`/v/${code}`, 'POST');
      assert.equal(post.statusCode, 200);
      await post.body.dump();
      assert.equal((await s.sms({ source: '0541234567', destinations: { phone: '0501234567' } })).status, 0);
      const again = await page(`/v/${code}`, 'POST');
      assert.equal(again.statusCode, 404);
      await again.body.dump();
      assert.match(
        (await s.call('verify_phone', { phone: '0541234567' })).verify_message[0],
        /already a verified sender/,
      );
    });

    it('a verification link expires after 48 hours', async () => {
      await s.call('verify_phone', { phone: '0547654321' });
      const code = codeOf((await verifyMessages()).at(-1)!.text);
      now += 49 * 3600_000;
      const late = await page(`/v/${code}`, 'POST');
      assert.equal(late.statusCode, 404);
      await late.body.dump();
      assert.equal((await s.sms({ source: '0547654321', destinations: { phone: '0501234567' } })).status, 515);
    });

    it('a landline is told to call; the operator verifies it; several numbers answer in request order', async () => {
      const reply = await s.call('verify_phone', { phone: ['03-1234567', 'not-a-phone', '0551234567'] });
      assert.equal(reply.status, 0);
      assert.equal(reply.verify_message.length, 3);
      assert.match(reply.verify_message[0], /call 03-0000000 from it/);
      assert.match(reply.verify_message[1], /not-a-phone: not an Israeli/);
      assert.match(reply.verify_message[2], /sent by SMS to 0551234567/);
      assert.equal((await s.sms({ source: '031234567', destinations: { phone: '0501234567' } })).status, 515);
      await t.admin('verify-sender', 'verifier', '031234567');
      assert.equal((await s.sms({ source: '031234567', destinations: { phone: '0501234567' } })).status, 0);
      const xml = await t.post(
        '<verify_phone><user><username>verifier</username></user><phone>0561234567</phone><phone>0571234567</phone></verify_phone>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(xmlStatus(xml.text), 0);
      // One <verify_message> per number, straight under the root, in request order (clients regex
      // <verify_message>(.*?)</verify_message>, so no element of that name may wrap the others).
      assert.deepEqual(
        [...xml.text.matchAll(/<verify_message>(.*?)<\/verify_message>/g)].map((m) => m[1]),
        [
          'A verification link was sent by SMS to 0561234567; open it on that phone and confirm within 48 hours',
          'A verification link was sent by SMS to 0571234567; open it on that phone and confirm within 48 hours',
        ],
      );
      assert.match(
        xml.text,
        /^<\?xml[^>]*\?><verify_phone><status>0<\/status><message>[^<]*<\/message><verify_message>[^<]*<\/verify_message><verify_message>[^<]*<\/verify_message><\/verify_phone>$/,
      );
      const refused = await t.post(
        '<verify_phone><user><username>verifier</username></user><phone>12</phone></verify_phone>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(xmlStatus(refused.text), 933);
      assert.deepEqual(
        [...refused.text.matchAll(/<verify_message>(.*?)<\/verify_message>/g)].map((m) => m[1]),
        ['12: not an Israeli mobile or landline number; not accepted'],
      );
    });

    it('at most three verification requests per number a day', async () => {
      for (let i = 0; i < 3; i++)
        assert.match((await s.call('verify_phone', { phone: '0591234567' })).verify_message[0], /sent by SMS/);
      const fourth = await s.call('verify_phone', { phone: '0591234567' });
      assert.equal(fourth.status, 0);
      assert.match(fourth.verify_message[0], /too many verification requests/);
      now += 25 * 3600_000;
      assert.match((await s.call('verify_phone', { phone: '0591234567' })).verify_message[0], /sent by SMS/);
    });

    it('no phone is 510; only unusable numbers is 933; /api/test queues nothing', async () => {
      assert.equal((await s.call('verify_phone', {})).status, 510);
      assert.equal((await s.call('verify_phone', { phone: [] })).status, 510);
      assert.equal((await s.call('verify_phone', { phone: ' ' })).status, 510);
      const xml = await t.post('<verify_phone><user><username>verifier</username></user></verify_phone>', {
        contentType: 'application/xml',
        token: s.token,
      });
      assert.equal(xmlStatus(xml.text), 510);
      assert.equal((await s.call('verify_phone', { phone: ['12', '+447911123456'] })).status, 933);
      const counts = await sendTableCounts(t);
      assert.equal((await s.call('verify_phone', { phone: '0581234567' }, { dryRun: true })).status, 0);
      assert.deepEqual(await sendTableCounts(t), counts);
    });

    it("getVerifiedPhones lists the account's senders; is_subs 1 adds its sub-accounts' senders", async () => {
      const token = await newResellerWithSubSender(t, 'reseller1', 'sub1');
      const call = (doc: Record<string, unknown>) =>
        t.api('getVerifiedPhones', { user: { username: 'reseller1' }, ...doc }, { token });
      assert.deepEqual((await call({})).phones, ['Shop']);
      assert.deepEqual((await call({ is_subs: '1' })).phones, ['Shop', 'SubShop']);
      const mine = await s.call('getVerifiedPhones', { is_subs: 1 });
      assert.deepEqual([mine.status, mine.phones], [0, ['031234567', '0541234567', 'Yona']]);
      const xml = await t.post(
        '<getVerifiedPhones><user><username>reseller1</username></user><is_subs>1</is_subs></getVerifiedPhones>',
        { contentType: 'application/xml', token },
      );
      assert.match(xml.text, /<phones><phone>Shop<\/phone><phone>SubShop<\/phone><\/phones>/);
    });
  });
}

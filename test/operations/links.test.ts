// Short links and removal links on every store: `[id]` in the message becomes `{public}/l/{code}` (980 for
// an invalid link, an unknown [link-x] or a link never placed; 981 when it cannot be shortened), `/l/:code`
// redirects and counts a GET as a click with its time (a HEAD is no click), `/u/:code` shows a page and its
// POST puts the number on the sender's blocklist.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { campaignLinks, clickTimes } from '../../src/store/links.ts';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { messagesOf, newSender, sendTableCounts, startSendingService, xmlStatus, type Sender } from './send-helpers.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`links (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let now = Date.UTC(2026, 5, 1, 9, 0);
    const get = (path: string, method: 'GET' | 'POST' = 'GET') =>
      request(`${t.httpUrl}${path}`, { method, body: method === 'POST' ? '' : undefined });

    before(async () => {
      t = await startSendingService(target, {
        clock: () => now,
        env: { YONA_PUBLIC_URL: 'https://sms.example.test/' },
      });
      s = await newSender(t, 'linker');
    });
    after(() => t.close());

    it('places a short link wherever the message says [id] or [link-id], and /l/:code redirects counting each click', async () => {
      const reply = await s.sms({
        destinations: { phone: ['0501234567', '0521234567'] },
        message: 'Sale: [shop] or [link-shop]; map [map]',
        links: {
          link: [
            { $: { id: 'shop' }, _: 'https://shop.example.com/sale?a=1&b=2' },
            { $: { id: 'map' }, _: 'http://maps.example.com/x' },
          ],
        },
      });
      assert.equal(reply.status, 0);
      const links = await campaignLinks(t.service.store.db, reply.campaign_id);
      assert.deepEqual(
        links.map((l) => [l.link_key, l.target, l.clicks]),
        [
          ['shop', 'https://shop.example.com/sale?a=1&b=2', 0],
          ['map', 'http://maps.example.com/x', 0],
        ],
      );
      for (const l of links) assert.match(l.code, /^[A-Za-z0-9_-]{16}$/);
      const [shop, map] = links.map((l) => `https://sms.example.test/l/${l.code}`);
      const rows = await messagesOf(t, reply.campaign_id);
      assert.deepEqual(
        rows.map((m) => m.text),
        [`Sale: ${shop} or ${shop}; map ${map}`, `Sale: ${shop} or ${shop}; map ${map}`],
      );

      const first = await get(`/l/${links[0].code}`);
      assert.equal(first.statusCode, 302);
      assert.equal(first.headers.location, 'https://shop.example.com/sale?a=1&b=2');
      await first.body.dump();
      now += 60_000;
      await (await get(`/l/${links[0].code}`)).body.dump();
      assert.deepEqual(await clickTimes(t.service.store.db, links[0].code), [now - 60_000, now]);
      assert.equal((await campaignLinks(t.service.store.db, reply.campaign_id))[0].clicks, 2);
      // A HEAD (link previews, scanners) is answered like the GET but is no click.
      const head = await request(`${t.httpUrl}/l/${links[0].code}`, { method: 'HEAD' });
      assert.deepEqual([head.statusCode, head.headers.location], [302, 'https://shop.example.com/sale?a=1&b=2']);
      await head.body.dump();
      const headUnknown = await request(`${t.httpUrl}/l/AAAAAAAAAAAAAAAA`, { method: 'HEAD' });
      assert.equal(headUnknown.statusCode, 404);
      await headUnknown.body.dump();
      assert.deepEqual(await clickTimes(t.service.store.db, links[0].code), [now - 60_000, now]);
      assert.equal((await campaignLinks(t.service.store.db, reply.campaign_id))[0].clicks, 2);
      const unknown = await get('/l/AAAAAAAAAAAAAAAA');
      assert.equal(unknown.statusCode, 404);
      await unknown.body.dump();
    });

    it('an invalid link, or one without id, is 980; a link to this service itself is 981', async () => {
      const send = (link: unknown) =>
        s.sms({ destinations: { phone: '0501234567' }, message: 'x [a]', links: { link } });
      for (const link of [
        { $: { id: 'a' }, _: 'not a url' },
        { $: { id: 'a' }, _: 'ftp://example.com/f' },
        { _: 'https://example.com' },
        'https://example.com',
        { $: { id: 'a b' }, _: 'https://example.com' },
        [
          { $: { id: 'a' }, _: 'https://a.com' },
          { $: { id: 'a' }, _: 'https://b.com' },
        ],
      ]) {
        assert.equal((await send(link)).status, 980, JSON.stringify(link));
      }
      assert.equal((await send({ $: { id: 'a' }, _: 'https://sms.example.test/l/AAAAAAAAAAAAAAAA' })).status, 981);
      const xml = await t.post(
        '<sms><user><username>linker</username></user><source>Yona</source><destinations><phone>0501234567</phone></destinations>' +
          '<message>go [w]</message><links><link id="w">javascript:alert(1)</link></links></sms>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(xmlStatus(xml.text), 980);
      const good = await t.post(
        '<sms><user><username>linker</username></user><source>Yona</source><destinations><phone>0501234567</phone></destinations>' +
          '<message>go [w]</message><links><link id="w">https://example.com/w</link></links></sms>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(xmlStatus(good.text), 0);
    });

    it('an unknown [link-x] placeholder, or a link the message never places, is 980 naming it, in JSON and XML; nothing is stored', async () => {
      const counts = await sendTableCounts(t);
      const unknown = await s.sms({ destinations: { phone: '0501234567' }, message: 'x [link-zz]' });
      assert.equal(unknown.status, 980);
      assert.match(unknown.message, /\[link-zz\].*no link with id "zz"/);
      const other = await s.sms({
        destinations: { phone: '0501234567' },
        message: 'go [link-shop] or [link-shp]',
        links: { link: { $: { id: 'shop' }, _: 'https://shop.example.com' } },
      });
      assert.deepEqual([other.status, /\[link-shp\]/.test(other.message)], [980, true]);
      const unused = await s.sms({
        destinations: { phone: '0501234567' },
        message: 'go [shp]',
        links: { link: { $: { id: 'shop' }, _: 'https://shop.example.com' } },
      });
      assert.equal(unused.status, 980);
      assert.match(unused.message, /link "shop" is never placed in the message/);
      const xml = (message: string, links = '') =>
        t.post(
          '<sms><user><username>linker</username></user><source>Yona</source><destinations><phone>0501234567</phone></destinations>' +
            `<message>${message}</message>${links}</sms>`,
          { contentType: 'application/xml', token: s.token },
        );
      const xmlUnknown = await xml('x [link-zz]');
      assert.equal(xmlStatus(xmlUnknown.text), 980);
      assert.match(
        xmlUnknown.text,
        /<message>Invalid link: the message has \[link-zz\] but no link with id "zz" was given<\/message>/,
      );
      const xmlUnused = await xml('no placeholder here', '<links><link id="w">https://example.com/w</link></links>');
      assert.equal(xmlStatus(xmlUnused.text), 980);
      assert.match(
        xmlUnused.text,
        /<message>Invalid link: link "w" is never placed in the message: write \[link-w\] where it goes<\/message>/,
      );
      assert.deepEqual(await sendTableCounts(t), counts);
      // Other bracketed words are text (or dynamic fields), not placeholders.
      const plain = await s.sms({
        destinations: { phone: '0501234567' },
        message: '[SALE] [df1] go [w]',
        links: { link: { $: { id: 'w' }, _: 'https://example.com/w' } },
      });
      assert.equal(plain.status, 0);
      const [link] = await campaignLinks(t.service.store.db, plain.campaign_id);
      assert.equal(
        (await messagesOf(t, plain.campaign_id))[0].text,
        `[SALE] [df1] go https://sms.example.test/l/${link.code}`,
      );
    });

    it('a removal link (add_unsubscribe 3): GET shows a page and changes nothing, POST blocks the number for that account only', async () => {
      const reply = await s.sms({
        destinations: { phone: ['0547770001', '0547770002'] },
        add_unsubscribe: '3',
        message: 'Promo',
      });
      const rows = await messagesOf(t, reply.campaign_id);
      const code = rows[0].unsubscribe_code!;
      assert.equal(rows[0].text, `Promo\nלהסרה: https://sms.example.test/u/${code}`);
      assert.notEqual(rows[1].unsubscribe_code, code);

      const page = await get(`/u/${code}`);
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /text\/html/);
      const html = await page.body.text();
      assert.match(html, /<form method="post" action="\/u\//);
      assert.match(html, /5\*{8}/, 'the number is shown masked');
      assert.equal((await s.sms({ destinations: { phone: '0547770001' } })).status, 0, 'a GET blocks nobody');

      const confirm = await get(`/u/${code}`, 'POST');
      assert.equal(confirm.statusCode, 200);
      await confirm.body.dump();
      const blocked = await s.sms({ destinations: { phone: '0547770001' } });
      assert.equal(blocked.status, 8);
      const other = await newSender(t, 'notlinker');
      assert.equal(
        (await other.sms({ destinations: { phone: '0547770001' } })).status,
        0,
        'another account may still send',
      );
      const listed = await s.call('blacklist', { from: '01/01/26 00:00', to: '31/12/26 23:59' });
      assert.equal(listed.transactions.length, 1);
      const again = await get(`/u/${code}`, 'POST');
      assert.equal(again.statusCode, 200, 'confirming twice is harmless');
      await again.body.dump();
      const bad = await get('/u/short', 'POST');
      assert.equal(bad.statusCode, 404);
      await bad.body.dump();
    });
  });
}

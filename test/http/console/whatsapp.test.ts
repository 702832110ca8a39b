// The console's WhatsApp pages over HTTPS on every store: the message log filtered by channel (page and CSV), a
// conversation on the replies page with the user's messages and the account's replies, a reply inside the 24-hour
// window written as the API's send_whatsapp_message writes it, a reply after the window closed refused (nothing
// written) with the template picker offered instead and a template sent from it, CSRF on both forms, and another
// account's conversations and templates out of sight.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { whatsappSendingComponent } from '../../../src/delivery/whatsapp-sending.ts';
import { openWindow } from '../../../src/store/whatsapp.ts';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startGraphTemplatesApi } from '../../helpers/graph-templates.ts';
import { queueWhatsappIn } from '../../helpers/whatsapp.ts';
import type { TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { waitFor } from '../../helpers/push-receiver.ts';
import { newSender, startSendingService, type Sender } from '../../operations/send-helpers.ts';
import { whatsappCarrierArgs } from '../../helpers/whatsapp-carrier.ts';

const BUSINESS = '972771234567';
const OTHER_BUSINESS = '972779876543';
const OPEN_USER = '972501112233';
const CLOSED_USER = '972502223344';
const BOB_USER = '972503334455';
const PAGED_USER = '972504445566';

const TEMPLATES = [
  {
    name: 'order_update',
    language: 'he',
    status: 'APPROVED',
    category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Order {{1}} ships on {{2}}' }],
  },
  {
    name: 'sale',
    language: 'en_US',
    status: 'PENDING',
    category: 'MARKETING',
    components: [{ type: 'BODY', text: 'Sale {{1}}' }],
  },
];

/** A Graph API that lists TEMPLATES for business account WABA1 and refuses every send (401). */
const graphApi = () => startGraphTemplatesApi(TEMPLATES, 'T');

/** The rows of a page's first table, each as the text of its cells. */
function rows(page: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1].replace(/<[^>]+>/g, '').trim()),
  );
}

const threadPath = (business: string, user: string) => `/console/whatsapp/threads/${business}/${user}`;

for (const target of await storeTargets()) {
  describe(`console WhatsApp pages (${target.name})`, () => {
    let t: TestService;
    let graph: Awaited<ReturnType<typeof graphApi>>;
    let alice: Sender;
    let web: ConsoleClient;
    let bobWeb: ConsoleClient;

    const whatsappMessages = (username: string) =>
      t.service.store.db
        .selectFrom('messages')
        .innerJoin('accounts', 'accounts.id', 'messages.account_id')
        .select(['messages.phone', 'messages.text', 'messages.source'])
        .where('accounts.username', '=', username)
        .where('messages.channel', '=', 'whatsapp')
        .orderBy('messages.id')
        .execute();

    /** A user's WhatsApp message to a business number as the webhook stores it (the inbound row alone). */
    const inboundRow = (accountId: number, business: string, user: string, text: string, at: number) => ({
      account_id: accountId,
      phone: user,
      dest: business,
      text,
      carrier: 'wa1',
      received_at: at,
      channel: 'whatsapp',
    });

    /** A user's message as the webhook stores it: the inbound row and the window it opens (or opened, at `at`). */
    const userWrote = async (username: string, business: string, user: string, text: string, at: number) => {
      const accountId = await t.accountId(username);
      await t.service.store.db
        .insertInto('inbound_messages')
        .values(inboundRow(accountId, business, user, text, at))
        .execute();
      await openWindow(t.service.store.db, { accountId, businessNumber: business, user }, at);
    };

    before(async () => {
      graph = await graphApi();
      const sending = whatsappSendingComponent({ fallbackIntervalMs: 50 });
      t = await startSendingService(target, { components: [sending] });
      const carrier = (name: string, number: string, waba: string) =>
        t.admin(
          ...whatsappCarrierArgs(name, {
            business: number,
            phoneNumberId: `PN-${name}`,
            wabaId: waba,
            token: 'T',
            appSecret: 'app-secret',
            verifyToken: 'verify',
            graphUrl: graph.url,
          }),
        );
      await carrier('wa1', BUSINESS, 'WABA1');
      await carrier('wa2', OTHER_BUSINESS, 'WABA2');
      await sending.syncNow();
      alice = await newSender(t, 'alice', 100);
      await newSender(t, 'bob', 100);
      await t.admin('whatsapp-number', 'add', 'alice', BUSINESS);
      await t.admin('whatsapp-number', 'add', 'bob', OTHER_BUSINESS);
      for (const name of ['alice', 'bob']) await t.admin('set-password', name, '--password', `${name}-console-pw`);
      // The API sees the new carriers within its coverage refresh (2 s).
      await waitFor(async () => {
        const dry = await alice.call(
          'sms',
          {
            source: BUSINESS,
            channel: 'whatsapp',
            destinations: { phone: '0501112233' },
            template: { id: 'order_update', variables: { '1': 'a', '2': 'b' } },
          },
          { dryRun: true },
        );
        return dry.status !== 5;
      }, 'the WhatsApp carrier is seen by the API');
      const now = Date.now();
      await userWrote('alice', BUSINESS, OPEN_USER, 'Where is my order?', now - 60_000);
      await userWrote('alice', BUSINESS, CLOSED_USER, 'Are you open on Friday?', now - 25 * 3600_000);
      await userWrote('bob', OTHER_BUSINESS, BOB_USER, 'A secret of bob', now - 60_000);
      web = new ConsoleClient(t.httpsUrl);
      await web.login('alice', 'alice-console-pw');
      bobWeb = new ConsoleClient(t.httpsUrl);
      await bobWeb.login('bob', 'bob-console-pw');
    });
    after(async () => {
      await t?.close();
      await graph?.close();
    });

    it('lists the conversations on the replies page, with the window open or closed', async () => {
      const page = await web.get('/console/inbound');
      assert.equal(page.status, 200);
      assert.match(page.text, /<h2 id="wa-threads">WhatsApp conversations<\/h2>/);
      assert.match(page.text, new RegExp(`href="${threadPath(BUSINESS, OPEN_USER)}"`));
      assert.match(page.text, new RegExp(`href="${threadPath(BUSINESS, CLOSED_USER)}"`));
      assert.match(page.text, /Open until \d\d\/\d\d\/\d{4}/);
      assert.match(page.text, /Closed: templates only/);
      assert.doesNotMatch(page.text, new RegExp(BOB_USER.slice(3)), "another account's user");
    });

    it('sends a reply inside the window through the API operation and shows it in the thread', async () => {
      const thread = await web.get(threadPath(BUSINESS, OPEN_USER));
      assert.equal(thread.status, 200);
      assert.match(thread.text, /The reply window is open until/);
      assert.match(thread.text, /<textarea id="wa-reply" name="message"/);
      const posted = await web.post(`${threadPath(BUSINESS, OPEN_USER)}/reply`, { message: 'It ships today' });
      assert.equal(posted.status, 303);
      assert.equal(posted.location, `${threadPath(BUSINESS, OPEN_USER)}?ok=waReplySent`);
      const shown = await web.get(posted.location!);
      assert.match(shown.text, /Your reply was accepted and is on its way\./);
      const table = rows(shown.text);
      assert.deepEqual(
        table.map((r) => [r[1], r[2]]),
        [
          ['The user', 'Where is my order?'],
          ['You', 'It ships today'],
        ],
      );
      assert.deepEqual(await whatsappMessages('alice'), [
        { phone: OPEN_USER, text: 'It ships today', source: BUSINESS },
      ]);
      assert.equal((await alice.balance()).credits, 99, 'priced as the API prices a service message');
    });

    it('refuses a reply after the window closed (nothing written) and sends a template from the picker', async () => {
      const thread = await web.get(threadPath(BUSINESS, CLOSED_USER));
      assert.equal(thread.status, 200);
      assert.match(thread.text, /The 24-hour reply window is closed/);
      assert.doesNotMatch(thread.text, /<textarea/, 'no reply box');
      assert.match(thread.text, /<option value="order_update\|he">order_update \(he\) · variables: 2<\/option>/);
      assert.doesNotMatch(thread.text, /value="sale\|/, 'a template not approved is not offered');

      const before = (await whatsappMessages('alice')).length;
      const refused = await web.post(`${threadPath(BUSINESS, CLOSED_USER)}/reply`, { message: 'Yes we are' });
      assert.equal(refused.status, 200);
      assert.match(refused.text, /role="alert">The 24-hour reply window is closed/);
      assert.equal((await whatsappMessages('alice')).length, before, 'nothing written');

      const wrongCount = await web.post(`${threadPath(BUSINESS, CLOSED_USER)}/template`, {
        template: 'order_update|he',
        var1: 'A-17',
      });
      assert.match(wrongCount.text, /Not sent: Variables do not fit the template/);
      assert.equal((await whatsappMessages('alice')).length, before, 'nothing written');

      const sent = await web.post(`${threadPath(BUSINESS, CLOSED_USER)}/template`, {
        template: 'order_update|he',
        var1: 'A-17',
        var2: 'Sunday',
      });
      assert.equal(sent.status, 303);
      assert.equal(sent.location, `${threadPath(BUSINESS, CLOSED_USER)}?ok=waTemplateSent`);
      assert.deepEqual((await whatsappMessages('alice')).at(-1), {
        phone: CLOSED_USER,
        text: 'Order A-17 ships on Sunday',
        source: BUSINESS,
      });
    });

    it('refuses both forms without the session CSRF token', async () => {
      const before = (await whatsappMessages('alice')).length;
      for (const form of ['reply', 'template']) {
        const res = await web.post(`${threadPath(BUSINESS, OPEN_USER)}/${form}`, {
          _csrf: 'not-the-token',
          message: 'forged',
          template: 'order_update|he',
          var1: 'a',
          var2: 'b',
        });
        assert.equal(res.status, 403, form);
      }
      assert.equal((await whatsappMessages('alice')).length, before, 'nothing written');
    });

    it("keeps another account's conversation and templates out of sight", async () => {
      const foreign = await web.get(threadPath(OTHER_BUSINESS, BOB_USER));
      assert.equal(foreign.status, 404);
      assert.doesNotMatch(foreign.text, /A secret of bob/);
      const before = (await whatsappMessages('bob')).length;
      const posted = await web.post(`${threadPath(OTHER_BUSINESS, BOB_USER)}/reply`, { message: 'not yours' });
      assert.equal(posted.status, 404);
      assert.equal((await whatsappMessages('bob')).length, before);
      assert.equal((await whatsappMessages('alice')).filter((m) => m.text === 'not yours').length, 0);
      // Bob sees his own, and none of alice's.
      const own = await bobWeb.get(threadPath(OTHER_BUSINESS, BOB_USER));
      assert.equal(own.status, 200);
      assert.match(own.text, /A secret of bob/);
      assert.equal((await bobWeb.get(threadPath(BUSINESS, OPEN_USER))).status, 404);
      const bobTemplates = await bobWeb.get('/console/whatsapp/templates');
      assert.doesNotMatch(bobTemplates.text, /order_update/);
      assert.match(bobTemplates.text, /Templates of 0779876543/);
    });

    it('lists the templates of the business numbers with status, category, language and variables', async () => {
      const page = await web.get('/console/whatsapp/templates');
      assert.equal(page.status, 200);
      assert.match(page.text, /<h2>Templates of 0771234567<\/h2>/);
      assert.deepEqual(
        rows(page.text).map((r) => r.slice(0, 5)),
        [
          ['order_update', 'he', 'UTILITY', 'APPROVED', '2'],
          ['sale', 'en_US', 'MARKETING', 'PENDING', '1'],
        ],
      );
      assert.match(page.text, /href="\/console\/whatsapp\/templates" aria-current="page">WhatsApp templates</);
    });

    it('filters the message log and its CSV by channel', async () => {
      // An SMS of the account (this service has no SMS carrier: written as a send writes it, then made an SMS).
      const db = t.service.store.db;
      await queueWhatsappIn(db, {
        accountId: await t.accountId('alice'),
        source: 'Yona',
        externalId: 'sms-1',
        phone: '972541234567',
        text: 'an sms text',
      });
      await db.updateTable('messages').set({ channel: 'sms' }).where('external_id', '=', 'sms-1').execute();
      const all = await web.get('/console/messages');
      assert.match(all.text, /<option value="whatsapp">WhatsApp<\/option>/);
      const texts = (page: string) => rows(page).map((r) => `${r[3]}: ${r[5]}`);
      const wa = await web.get('/console/messages?channel=whatsapp');
      assert.deepEqual(texts(wa.text).sort(), ['WhatsApp: It ships today', 'WhatsApp: Order A-17 ships on Sunday']);
      assert.match(wa.text, /<option value="whatsapp" selected>/);
      assert.match(wa.text, /href="\/console\/messages.csv\?channel=whatsapp"/);
      const sms = await web.get('/console/messages?channel=sms');
      assert.deepEqual(texts(sms.text), ['SMS: an sms text']);

      const csv = async (channel: string) => {
        const lines = (await web.get(`/console/messages.csv?channel=${channel}`)).text.trim().split('\r\n');
        const header = lines[0].replace(/^\uFEFF/, '').split(',');
        return lines.slice(1).map((l) => l.split(',')[header.indexOf('channel')]);
      };
      assert.deepEqual(await csv('whatsapp'), ['whatsapp', 'whatsapp']);
      assert.deepEqual(await csv('sms'), ['sms']);
    });

    it('shows the pages in Hebrew, right to left', async () => {
      web.headers['accept-language'] = 'he';
      try {
        const thread = await web.get(threadPath(BUSINESS, CLOSED_USER));
        assert.match(thread.text, /<html lang="he" dir="rtl">/);
        assert.match(thread.text, /חלון המענה של 24 השעות סגור/);
        assert.match((await web.get('/console/whatsapp/templates')).text, /<h1>תבניות וואטסאפ<\/h1>/);
        assert.match((await web.get('/console/inbound')).text, /שיחות וואטסאפ/);
      } finally {
        delete web.headers['accept-language'];
      }
    });

    it('pages a long conversation 200 messages at a time, without a gap or a repeat where two pages meet', async () => {
      const accountId = await t.accountId('alice');
      const db = t.service.store.db;
      const now = Date.now();
      await userWrote('alice', BUSINESS, PAGED_USER, 'opener', now - 60_000);
      const posted = await web.post(`${threadPath(BUSINESS, PAGED_USER)}/reply`, { message: 'the reply' });
      assert.equal(posted.status, 303);
      // The reply moved two hours back, with two messages of the user at the same instant before it (a reply
      // never precedes what it answers), 197 more of the user's after it and 20 before.
      const x = now - 2 * 3600_000;
      await db
        .updateTable('messages')
        .set({ created_at: x })
        .where('account_id', '=', accountId)
        .where('phone', '=', PAGED_USER)
        .execute();
      const inbound = (text: string, at: number) => inboundRow(accountId, BUSINESS, PAGED_USER, text, at);
      const rowsIn = [
        ...Array.from({ length: 20 }, (_, k) => inbound(`before ${k}`, x - (20 - k) * 1000)),
        inbound('tie a', x),
        inbound('tie b', x),
        ...Array.from({ length: 197 }, (_, k) => inbound(`after ${k}`, x + (k + 1) * 1000)),
      ];
      await db.insertInto('inbound_messages').values(rowsIn).execute();
      const expected = [
        ...Array.from({ length: 20 }, (_, k) => `before ${k}`),
        'tie a',
        'tie b',
        'the reply',
        ...Array.from({ length: 197 }, (_, k) => `after ${k}`),
        'opener',
      ];

      const first = await web.get(threadPath(BUSINESS, PAGED_USER));
      assert.equal(first.status, 200);
      const newest = rows(first.text).map((r) => r[2]);
      assert.deepEqual(newest, expected.slice(-200), 'the newest 200, oldest first');
      assert.doesNotMatch(first.text, />Newest</);
      const older = /<a href="([^"]+\?before=[^"]+)">Older<\/a>/.exec(first.text)?.[1];
      assert.ok(older, 'a link to the older messages');
      const second = await web.get(older.replaceAll('&amp;', '&'));
      assert.equal(second.status, 200);
      assert.deepEqual(
        rows(second.text).map((r) => r[2]),
        expected.slice(0, -200),
        'the rest: the other message of the same instant, and none twice',
      );
      assert.match(second.text, new RegExp(`<a href="${threadPath(BUSINESS, PAGED_USER)}">Newest</a>`));
      assert.doesNotMatch(second.text, />Older</, 'nothing older remains');
      const foreign = await bobWeb.get(older);
      assert.equal(foreign.status, 404, "another account's conversation stays out of sight on an older page too");
    });

    it('pages the conversations 100 at a time, the oldest on the last page', async () => {
      const accountId = await t.accountId('alice');
      const users = Array.from({ length: 100 }, (_, k) => `9725060000${String(k).padStart(2, '0')}`);
      const oldest = Date.now() - 3 * 3600_000;
      await t.service.store.db
        .insertInto('inbound_messages')
        .values(users.map((user, k) => inboundRow(accountId, BUSINESS, user, `hello ${k}`, oldest - k * 1000)))
        .execute();
      const replies = await web.get('/console/inbound');
      const firstPage = rows(replies.text).slice(0, 100);
      const shown = firstPage.map((r) => r[0]);
      assert.equal(shown.length, 100);
      const older = /<a href="(\/console\/whatsapp\/threads\?before=[^"]+)">Older<\/a>/.exec(replies.text)?.[1];
      assert.ok(older, 'a link to the older conversations');
      const next = await web.get(older.replaceAll('&amp;', '&'));
      assert.equal(next.status, 200);
      const rest = rows(next.text).map((r) => r[0]);
      assert.deepEqual(rest, ['0506000097', '0506000098', '0506000099'], 'the three oldest, newest first');
      assert.equal(new Set([...shown, ...rest]).size, 103, 'every conversation once');
      assert.match(next.text, /<a href="\/console\/whatsapp\/threads">Newest<\/a>/);
      assert.doesNotMatch(next.text, />Older</);
      const first = await web.get('/console/whatsapp/threads');
      assert.deepEqual(
        rows(first.text).map((r) => r[0]),
        shown,
        "the first page of the list is the replies page's",
      );
      const bobs = await bobWeb.get(older.replaceAll('&amp;', '&'));
      assert.deepEqual(rows(bobs.text), [], "another account's conversations stay out of sight");
    });
  });
}

// The WhatsApp Cloud API carrier end to end on both stores, against a stand-in for Meta's Graph API: added with
// `yona admin add-carrier --protocol whatsapp-cloud` (secrets sealed), a business number granted with `yona admin
// whatsapp-number add`, text and template messages sent over the Graph API, throttling retried and never failed,
// Meta's errors reported as delivery statuses with their code, the webhook's verification, a forged signature
// refused with nothing stored, repeated and out-of-order statuses (read never downgraded, a failure after
// delivery leaves it delivered), the dlr_whatsapp feed pushed as signed JSON with nothing on dlr, and users'
// messages (by phone or by business-scoped user id) opening the window, pushed to incoming_whatsapp and polled.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { signPush } from '../../src/domain/push-sign.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { ingressComponent } from '../../src/delivery/ingress.ts';
import { createPusher } from '../../src/delivery/pusher.ts';
import { isWindowOpen } from '../../src/store/whatsapp.ts';
import {
  messageDocument,
  postWebhook,
  startFakeGraph,
  statusDocument,
  type FakeGraph,
} from '../fixtures/fake-graph/index.ts';
import { startPushReceiver, type PushReceiver } from '../helpers/push-receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { queueWhatsapp, type QueuedWhatsapp } from '../helpers/whatsapp.ts';
import { dlrById, eventually, newSender, windowAroundNow, type Sender } from '../delivery/delivery-helpers.ts';
import { whatsappCarrierArgs } from '../helpers/whatsapp-carrier.ts';

const BUSINESS = '972771234567';
const TOKEN = 'graph-token';
const APP_SECRET = 'meta-app-secret';
const VERIFY = 'verify-me';
const ENV = { YONA_PUSH_ALLOW_PRIVATE: '1', YONA_PUSH_RETRY_BASE_MS: '20', YONA_PUSH_POLL_MS: '20' };

for (const target of await storeTargets()) {
  describe(`WhatsApp over the Cloud API (${target.name})`, () => {
    let t: TestService;
    let graph: FakeGraph;
    let s: Sender;
    let accountId: number;
    let dlrHook: PushReceiver;
    let waHook: PushReceiver;
    let inHook: PushReceiver;
    let pushSecret: string;
    const carrier = `wa-${target.name}`;
    let webhook: string;

    const storedEvents = async () =>
      Number(
        (
          await t.service.store.db
            .selectFrom('ingress_events')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    const queue = (externalId: string, phone: string, text: string, template?: QueuedWhatsapp['template']) =>
      queueWhatsapp(t, { accountId, source: BUSINESS, externalId, phone, text, template });
    const wamidOf = (to: string) => graph.taken.find((m) => m.body.to === to)?.id;
    const statuses = (list: Array<{ id: string; status: string; to: string; code?: number }>) =>
      postWebhook(`${t.httpUrl}${webhook}`, statusDocument(BUSINESS, list), APP_SECRET);
    const statusOf = async (id: string) => (await dlrById(s, [id])).get(id);

    before(async () => {
      graph = await startFakeGraph(TOKEN);
      const first = await startTestService(target, { env: ENV });
      await first.admin(
        ...whatsappCarrierArgs(carrier, {
          business: BUSINESS,
          phoneNumberId: 'PNID',
          wabaId: 'WABA',
          token: TOKEN,
          appSecret: APP_SECRET,
          verifyToken: VERIFY,
          graphUrl: graph.url,
        }),
      );
      await first.admin('add-route', 'default', carrier, '--channel', 'whatsapp');
      t = await first.restart({
        env: ENV,
        components: [
          carriersComponent({ settings: { pollMs: 20, retryBaseMs: 100 }, config: loadConfig({}) }),
          ingressComponent(),
          createPusher({ config: loadConfig(ENV) }),
        ],
      });
      webhook = `/webhooks/whatsapp/${carrier}`;
      s = await newSender(t, 'waacct', 100);
      accountId = await t.accountId('waacct');
      await t.admin('whatsapp-number', 'add', 'waacct', BUSINESS, '--carrier', carrier);
      const lines = await t.admin('push', 'secret', 'waacct');
      pushSecret = lines[lines.length - 1].trim();
      dlrHook = await startPushReceiver();
      waHook = await startPushReceiver();
      inHook = await startPushReceiver();
      for (const [type, hook] of [
        ['dlr', dlrHook],
        ['dlr_whatsapp', waHook],
        ['incoming_whatsapp', inHook],
      ] as const)
        assert.equal((await s.call('push_url', { type, url: hook.url })).status, 0);
    });
    after(async () => {
      await t?.close();
      await graph?.close();
      await dlrHook?.close();
      await waHook?.close();
      await inHook?.close();
    });

    it('keeps the token, app secret and verify token sealed, and lists the grant', async () => {
      const row = await t.service.store.db
        .selectFrom('carriers')
        .select('settings')
        .where('name', '=', carrier)
        .executeTakeFirstOrThrow();
      for (const secret of [TOKEN, APP_SECRET, VERIFY]) assert.ok(!row.settings.includes(secret), 'sealed at rest');
      assert.deepEqual(await t.admin('whatsapp-number', 'list', 'waacct'), [`${BUSINESS} waacct carrier=${carrier}`]);
      await assert.rejects(t.admin('whatsapp-number', 'add', 'other-nobody', BUSINESS));
    });

    it("answers Meta's verification with the challenge, and refuses a wrong token", async () => {
      const ok = await request(
        `${t.httpUrl}${webhook}?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=12345`,
      );
      assert.equal(ok.statusCode, 200);
      assert.equal(await ok.body.text(), '12345');
      const wrong = await request(`${t.httpUrl}${webhook}?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1`);
      assert.equal(wrong.statusCode, 403);
      await wrong.body.text();
      assert.equal(await storedEvents(), 0);
    });

    it('sends text and template messages over the Graph API', async () => {
      await queue('t1', '972521110001', 'hello on WhatsApp');
      await queue('t2', '972521110002', 'Your code is 1234', {
        name: 'otp_code',
        language: 'he',
        parameters: ['1234'],
      });
      await eventually(() => graph.taken.length >= 2 || undefined, 8000, 'both sends');
      const text = graph.taken.find((m) => m.body.to === '972521110001')!;
      assert.equal(text.path, '/v21.0/PNID/messages');
      assert.deepEqual(text.body, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '972521110001',
        type: 'text',
        text: { preview_url: false, body: 'hello on WhatsApp' },
      });
      const template = graph.taken.find((m) => m.body.to === '972521110002')!;
      assert.deepEqual(template.body.template, {
        name: 'otp_code',
        language: { code: 'he' },
        components: [{ type: 'body', parameters: [{ type: 'text', text: '1234' }] }],
      });
      await eventually(async () => (await statusOf('t1'))?.status === '-1' || undefined, 8000, 't1 submitted');
    });

    it('refuses a forged or missing signature with 401 and stores nothing', async () => {
      const before = await storedEvents();
      const doc = statusDocument(BUSINESS, [{ id: wamidOf('972521110001')!, status: 'failed', to: '972521110001' }]);
      assert.equal((await postWebhook(`${t.httpUrl}${webhook}`, doc, 'not-the-secret')).status, 401);
      assert.equal((await postWebhook(`${t.httpUrl}${webhook}`, doc, APP_SECRET, '')).status, 401);
      assert.equal(await storedEvents(), before);
    });

    it('reports sent, delivered and read; repeats and late delivered never downgrade read', async () => {
      const id = wamidOf('972521110001')!;
      const to = '972521110001';
      assert.equal((await statuses([{ id, status: 'sent', to }])).status, 200);
      await eventually(async () => (await statusOf('t1'))?.status === '301' || undefined, 8000, 'sent');
      await statuses([{ id, status: 'delivered', to }]);
      await eventually(async () => (await statusOf('t1'))?.status === '302' || undefined, 8000, 'delivered');
      await statuses([{ id, status: 'read', to }]);
      await eventually(async () => (await statusOf('t1'))?.status === '303' || undefined, 8000, 'read');
      const stored = await storedEvents();
      await statuses([
        { id, status: 'delivered', to },
        { id, status: 'read', to },
        { id, status: 'sent', to },
      ]);
      assert.equal(await storedEvents(), stored, 'repeats of the same message and status are stored once');
      // Out of order for the template: read before delivered.
      const id2 = wamidOf('972521110002')!;
      await statuses([{ id: id2, status: 'read', to: '972521110002' }]);
      await eventually(async () => (await statusOf('t2'))?.status === '303' || undefined, 8000, 't2 read');
      await statuses([{ id: id2, status: 'delivered', to: '972521110002' }]);
      await new Promise((r) => setTimeout(r, 700));
      const report = (await statusOf('t2'))!;
      assert.equal(report.status, '303');
      assert.equal(report.channel, 'whatsapp');
      assert.equal(report.en_message, 'WhatsApp: read');
    });

    it('leaves a message delivered when a failure comes after its delivery', async () => {
      await queue('t3', '972521111001', 'late failure');
      await eventually(() => wamidOf('972521111001'), 8000, 't3 sent');
      const id = wamidOf('972521111001')!;
      await statuses([{ id, status: 'delivered', to: '972521111001' }]);
      await eventually(async () => (await statusOf('t3'))?.status === '302' || undefined, 8000, 'delivered');
      await statuses([{ id, status: 'failed', to: '972521111001', code: 131000 }]);
      await new Promise((r) => setTimeout(r, 700));
      assert.equal((await statusOf('t3'))!.status, '302');
    });

    it('pushes each of sent, delivered and read in order when they arrive in one webhook', async () => {
      const to = '972521113003';
      await queue('t4', to, 'all at once');
      await eventually(() => wamidOf(to), 8000, 't4 sent');
      const id = wamidOf(to)!;
      await statuses([
        { id, status: 'sent', to },
        { id, status: 'delivered', to },
        { id, status: 'read', to },
      ]);
      const acks = () =>
        waHook.received.map((p) => JSON.parse(p.body)).filter((f) => f.external_id === 't4' && f.ack !== 'accepted');
      await eventually(() => acks().some((f) => f.ack === 'read') || undefined, 8000, 'the read push');
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(
        acks().map((f) => f.ack),
        ['sent', 'delivered', 'read'],
      );
      assert.equal((await statusOf('t4'))!.status, '303');
    });

    it('retries throttling answers until taken, never failing the message', async () => {
      await queue('th1', '972521110429', 'throttled twice');
      await queue('th2', '972521111056', 'pair rate once');
      await eventually(() => (wamidOf('972521110429') && wamidOf('972521111056')) || undefined, 15_000, 'taken');
      assert.equal(graph.asked.get('972521110429'), 3);
      assert.equal(graph.asked.get('972521111056'), 2);
      await eventually(async () => (await statusOf('th1'))?.status === '-1' || undefined, 8000, 'th1 submitted');
    });

    it('sends a message again when a status reports it throttled (130429, 131056, 131048), never failing it', async () => {
      const cases = [
        ['th3', '972521114001', 130429],
        ['th4', '972521114002', 131056],
        ['th5', '972521114003', 131048],
      ] as const;
      for (const [ext, to] of cases) await queue(ext, to, 'throttled after it was taken');
      await eventually(() => cases.every(([, to]) => wamidOf(to)) || undefined, 8000, 'taken');
      for (const [, to, code] of cases)
        assert.equal((await statuses([{ id: wamidOf(to)!, status: 'failed', to, code }])).status, 200);
      await eventually(() => cases.every(([, to]) => graph.asked.get(to) === 2) || undefined, 15_000, 'sent again');
      for (const [ext] of cases)
        await eventually(async () => (await statusOf(ext))?.status === '-1' || undefined, 8000, `${ext} submitted`);
      assert.ok(
        !waHook.received.some(
          (p) => ['th3', 'th4', 'th5'].includes(JSON.parse(p.body).external_id) && JSON.parse(p.body).ack === 'failed',
        ),
      );
    });

    it("ends a message Meta refuses with a delivery status and Meta's code", async () => {
      await queue('e1', '972521111026', 'no whatsapp here');
      await queue('e2', '972521112001', 'x', { name: 'missing_template', language: 'en', parameters: [] });
      const e1 = await eventually(async () => {
        const r = await statusOf('e1');
        return r?.status === '305' ? r : undefined;
      }, 8000);
      assert.equal(e1.error_code, '131026');
      assert.equal(e1.en_message, 'WhatsApp: the number has no WhatsApp');
      const e2 = await eventually(async () => {
        const r = await statusOf('e2');
        return r?.status === '307' ? r : undefined;
      }, 8000);
      assert.equal(e2.error_code, '132001');
    });

    it('pushes WhatsApp statuses to dlr_whatsapp as signed JSON, and nothing to dlr', async () => {
      const read = await eventually(
        () => waHook.received.find((p) => JSON.parse(p.body).external_id === 't1' && JSON.parse(p.body).ack === 'read'),
        8000,
        'the read push',
      );
      assert.equal(read.headers['content-type'], 'application/json');
      const ts = Number(read.headers['x-yona-timestamp']);
      assert.equal(read.headers['x-yona-signature'], signPush(pushSecret, ts, read.body));
      const fields = JSON.parse(read.body);
      assert.deepEqual(Object.keys(fields), [
        'hook',
        'channel',
        'unique',
        'ack',
        'external_id',
        'status',
        'he_message',
        'en_message',
        'error_code',
        'date',
        'phone',
        'shipment_id',
      ]);
      assert.equal(fields.hook, 'update');
      assert.equal(fields.channel, 'whatsapp');
      assert.equal(fields.status, '303');
      assert.equal(fields.phone, '972521110001');
      const failed = await eventually(() => waHook.received.find((p) => JSON.parse(p.body).external_id === 'e1'));
      assert.equal(JSON.parse(failed.body).ack, 'failed');
      assert.equal(JSON.parse(failed.body).error_code, '131026');
      assert.equal(dlrHook.received.length, 0, 'a dlr URL gets no WhatsApp report');
    });

    it("takes users' messages: the window opens, incoming_whatsapp is pushed, incoming polls them", async () => {
      const user = '972529990001';
      const before = Date.now();
      const doc = messageDocument(BUSINESS, { id: 'wamid.in1', from: user, text: 'שלום', name: 'Dana' });
      assert.equal((await postWebhook(`${t.httpUrl}${webhook}`, doc, APP_SECRET)).status, 200);
      assert.equal((await postWebhook(`${t.httpUrl}${webhook}`, doc, APP_SECRET)).status, 200);
      const scoped = messageDocument(BUSINESS, { id: 'wamid.in2', userId: 'IL.55511', text: 'by username' });
      assert.equal((await postWebhook(`${t.httpUrl}${webhook}`, scoped, APP_SECRET)).status, 200);
      const pushed = await eventually(() => (inHook.received.length >= 2 ? inHook.received : undefined), 8000);
      const first = JSON.parse(pushed.find((p) => JSON.parse(p.body).unique === 'wamid.in1')!.body);
      assert.equal(pushed[0].headers['content-type'], 'application/json');
      assert.deepEqual(
        { ...first, date: undefined },
        {
          hook: 'message',
          channel: 'whatsapp',
          unique: 'wamid.in1',
          phone: user,
          dest: BUSINESS,
          name: 'Dana',
          message: 'שלום',
          date: undefined,
        },
      );
      assert.equal(JSON.parse(pushed.find((p) => JSON.parse(p.body).unique === 'wamid.in2')!.body).phone, 'IL.55511');
      const db = t.service.store.db;
      assert.equal(await isWindowOpen(db, accountId, BUSINESS, user, Date.now()), true);
      assert.equal(await isWindowOpen(db, accountId, BUSINESS, 'IL.55511', Date.now()), true);
      assert.equal(await isWindowOpen(db, accountId, BUSINESS, '972529990002', Date.now()), false);
      const polled = await s.call('incoming', windowAroundNow(before));
      assert.equal(polled.status, 0);
      const rows = (polled.transactions as Array<Record<string, string>>).filter((r) => r.channel === 'whatsapp');
      assert.deepEqual(rows.map((r) => [r.phone, r.dest, r.message]).sort(), [
        ['972529990001', BUSINESS, 'שלום'],
        ['IL.55511', BUSINESS, 'by username'],
      ]);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(inHook.received.length, 2, 'the repeated message is pushed once');
    });
  });
}

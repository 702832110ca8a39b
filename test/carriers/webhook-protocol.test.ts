// A protocol whose receipts and inbound texts come by webhook is one folder and one registry entry
// (test/fixtures/webhook-protocol): its carriers are added like any other, a message sent over the API is
// submitted to the provider over HTTP, and the provider's signed report, posted to
// /webhooks/hooksms/<carrier>/events on the API node, is stored before the answer and reaches dlr and the push
// events. A forged signature is refused with nothing stored; the same event posted again, or processed again,
// changes nothing; unknown addresses are 404s; a verification GET is answered without storing anything.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { ingressComponent } from '../../src/delivery/ingress.ts';
import { HOOK_PROTOCOL, signBody } from '../fixtures/webhook-protocol/index.ts';
import { startProvider, type Provider } from '../fixtures/webhook-protocol/provider.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { dlrById, eventually, newSender, windowAroundNow, type Sender } from '../delivery/delivery-helpers.ts';

const SECRET = 'provider-signing-secret';

for (const target of await storeTargets()) {
  describe(`a protocol with webhook receipts (${target.name})`, () => {
    let t: TestService;
    let provider: Provider;
    let s: Sender;
    const carrier = `hook-${target.name}`;
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
    const dlrPushes = async () =>
      Number(
        (
          await t.service.store.db
            .selectFrom('push_events')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('type', '=', 'dlr')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const get = async (path: string) => {
      const res = await request(`${t.httpUrl}${path}`);
      return { status: res.statusCode, text: await res.body.text() };
    };

    before(async () => {
      provider = await startProvider();
      const first = await startTestService(target);
      const settings = { url: provider.url, secret: SECRET, verifyToken: 'verify-me' };
      await first.admin('add-carrier', carrier, '--protocol', HOOK_PROTOCOL, '--settings', JSON.stringify(settings));
      await first.admin('add-route', 'default', carrier);
      t = await first.restart({
        env: { YONA_PUSH_ALLOW_PRIVATE: '1' },
        components: [carriersComponent({ settings: { pollMs: 20 }, config: loadConfig({}) }), ingressComponent()],
      });
      webhook = `/webhooks/${HOOK_PROTOCOL}/${carrier}`;
      provider.webhook = { url: `${t.httpUrl}${webhook}`, secret: SECRET };
      s = await newSender(t, 'hooked', 100);
      const push = await s.call('push_url', { type: 'dlr', url: 'http://127.0.0.1:9/dlr' });
      assert.equal(push.status, 0, JSON.stringify(push));
    });
    after(async () => {
      await t?.close();
      await provider?.close();
    });

    it('delivers a message sent over the API and reports it by the signed webhook', async () => {
      const reply = await s.sms({
        destinations: { phone: [{ $: { id: 'w1' }, _: '0521270001' }] },
        message: 'by http',
      });
      assert.equal(reply.status, 0, reply.message);
      await eventually(
        async () => (await dlrById(s, ['w1'])).get('w1')?.status === '102' || undefined,
        8000,
        'the report that came by webhook',
      );
      assert.deepEqual(
        provider.taken.map((m) => [m.to, m.text]),
        [['972521270001', 'by http']],
      );
      assert.equal(await dlrPushes(), 1);
    });

    it('refuses a forged signature and stores nothing', async () => {
      const before = await storedEvents();
      const id = provider.taken[0].id;
      const forged = await provider.post([{ type: 'status', id: 'forged', messageId: id, state: 'failed' }], 'guess');
      assert.equal(forged.status, 401);
      const unsigned = await provider.postRaw(forged.body, '');
      assert.equal(unsigned.status, 401);
      assert.equal(await storedEvents(), before);
      assert.equal((await dlrById(s, ['w1'])).get('w1')?.status, '102');
    });

    it('takes the same event posted again once, and processing it again changes nothing', async () => {
      const id = provider.taken[0].id;
      const before = await storedEvents();
      const again = await provider.post([{ type: 'status', id: `st-${id}`, messageId: id, state: 'delivered' }]);
      assert.equal(again.status, 200);
      assert.equal(await storedEvents(), before);
      // As if a node stopped after applying it but before marking it: it is processed once more.
      const db = t.service.store.db;
      await db.updateTable('ingress_events').set({ processed_at: null, lease_until: 0 }).execute();
      await eventually(
        async () =>
          Number(
            (
              await db
                .selectFrom('ingress_events')
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .where('processed_at', 'is', null)
                .executeTakeFirstOrThrow()
            ).n,
          ) === 0 || undefined,
        8000,
        'the event processed again',
      );
      assert.equal(await dlrPushes(), 1);
      assert.equal((await dlrById(s, ['w1'])).get('w1')?.status, '102');
    });

    it('lands inbound texts once, however often they are posted', async () => {
      await t.admin('add-number', 'hooked', '0559992222');
      const event = {
        type: 'inbound',
        id: 'in-1',
        from: '972521270009',
        to: '972559992222',
        text: 'hi',
        at: Date.now(),
      };
      assert.equal((await provider.post([event as never])).status, 200);
      assert.equal((await provider.post([event as never])).status, 200);
      const inbox = await eventually(
        async () => {
          const r = await s.call('incoming', windowAroundNow());
          return (r.transactions as unknown[]).length ? (r.transactions as Array<{ message: string }>) : undefined;
        },
        8000,
        'the inbound text',
      );
      await eventually(
        async () =>
          (
            await t.service.store.db
              .selectFrom('ingress_events')
              .select('processed_at')
              .where('kind', '=', 'inbound')
              .executeTakeFirst()
          )?.processed_at ?? undefined,
        8000,
        'the inbound event processed',
      );
      assert.deepEqual(
        ((await s.call('incoming', windowAroundNow())).transactions as Array<{ message: string }>).map(
          (m) => m.message,
        ),
        ['hi'],
      );
      assert.equal(inbox[0].message, 'hi');
    });

    it('stores the events of webhooks posted at once, each once (a repeat in the same burst too), and lands them all', async () => {
      const before = await storedEvents();
      const events = Array.from({ length: 30 }, (_, i) => ({
        type: 'inbound',
        id: `burst-${i}`,
        from: '972521270010',
        to: '972559992222',
        text: `burst ${i}`,
        at: Date.now(),
      }));
      const answers = await Promise.all([...events, ...events.slice(0, 10)].map((e) => provider.post([e as never])));
      assert.deepEqual([...new Set(answers.map((a) => a.status))], [200]);
      // Answered 200 only once stored: every event is there when the last answer came.
      assert.equal(await storedEvents(), before + 30);
      const texts = await eventually(
        async () => {
          const r = await s.call('incoming', windowAroundNow());
          const burst = (r.transactions as Array<{ message: string }>)
            .map((m) => m.message)
            .filter((m) => m.startsWith('burst '));
          return burst.length >= 30 ? burst : undefined;
        },
        15_000,
        'the burst landed',
      );
      assert.deepEqual([...texts].sort(), events.map((e) => e.text).sort());
    });

    it("answers the provider's verification GET and stores nothing", async () => {
      const before = await storedEvents();
      assert.deepEqual(await get(`${webhook}?token=verify-me&challenge=c-123`), { status: 200, text: 'c-123' });
      assert.equal((await get(`${webhook}?token=wrong&challenge=c-123`)).status, 403);
      assert.equal(await storedEvents(), before);
    });

    it('answers 404 for an unknown carrier, a protocol without webhooks and a route not declared', async () => {
      const body = JSON.stringify({ events: [] });
      const post = async (path: string) =>
        (
          await request(`${t.httpUrl}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-hook-signature': signBody(SECRET, body) },
            body,
          })
        ).statusCode;
      assert.equal(await post(`/webhooks/${HOOK_PROTOCOL}/nobody/events`), 404);
      assert.equal(await post(`/webhooks/smpp/${carrier}/events`), 404);
      assert.equal(await post(`/webhooks/nothing/${carrier}/events`), 404);
      assert.equal(await post(`${webhook}/elsewhere`), 404);
      assert.equal(await post(`${webhook}/events`), 200);
    });

    it("refuses a body past the protocol's limit", async () => {
      const before = await storedEvents();
      const big = JSON.stringify({ events: [], pad: 'x'.repeat(20_000) });
      const res = await provider.postRaw(big, signBody(SECRET, big));
      assert.equal(res.status, 413);
      assert.equal(await storedEvents(), before);
    });
  });
}

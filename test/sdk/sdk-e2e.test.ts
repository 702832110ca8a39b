// @yona/sdk end to end on every store: a live service with the SMPP simulator and the pusher; the SDK sends,
// polls the report until delivered, meets a typed error, retries with an idempotency key (one campaign, charged
// once), and a signed dlr push is verified with verifyPushSignature (a tampered body or wrong secret refused).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createPusher } from '../../src/delivery/pusher.ts';
import { findOperation, operationNames } from '../../src/operations/index.ts';
import { reportWindow, verifyPushSignature, Yona, YonaError } from '../../sdk/src/index.ts';
import { newSender, startDelivery, type DeliveryHarness } from '../delivery/delivery-helpers.ts';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import { storeTargets } from '../helpers/stores.ts';

const ENV = { YONA_PUSH_ALLOW_PRIVATE: '1', YONA_PUSH_RETRY_BASE_MS: '20', YONA_PUSH_POLL_MS: '20' };

it('has a method for every operation of the table, named as its root element', () => {
  const yona = new Yona({ baseUrl: 'http://127.0.0.1:1', token: 't', username: 'u' }) as unknown as Record<
    string,
    unknown
  >;
  const missing = operationNames()
    .map((root) => findOperation(root)!.names[0])
    .filter((name) => typeof yona[name] !== 'function');
  assert.deepEqual(missing, []);
});

for (const target of await storeTargets()) {
  describe(`@yona/sdk against a live server (${target.name})`, () => {
    let h: DeliveryHarness;
    let yona: Yona;
    let receiver: PushReceiver;
    let secret: string;

    before(async () => {
      h = await startDelivery(target, { env: ENV, components: [createPusher({ config: loadConfig(ENV) })] });
      const s = await newSender(h.t, 'sdkuser', 100);
      yona = new Yona({ baseUrl: h.t.httpUrl, token: s.token, username: s.username });
      const lines = await h.t.admin('push', 'secret', s.username);
      secret = lines[lines.length - 1];
      receiver = await startPushReceiver();
      await yona.push_url({ type: 'dlr', url: receiver.url });
    });
    after(async () => {
      await h?.close();
      await receiver?.close();
    });

    it('sends, and polls dlr until the report says delivered', async () => {
      const sent = await yona.sms({
        source: 'Yona',
        message: 'sent with the SDK',
        destinations: { phone: [{ $: { id: 'sdk-1' }, _: '0521111234' }] },
      });
      assert.equal(sent.status, 0);
      assert.ok(sent.campaign_id > 0);
      assert.equal(sent.recipients, 1);
      let status = '';
      await waitFor(async () => {
        const report = await yona.dlr({ transactions: { external_id: ['sdk-1'] }, ...reportWindow(1) });
        status = report.transactions[0]?.status ?? '';
        return status === '102';
      }, 'the delivered report');
      assert.equal(status, '102');
    });

    it('throws a YonaError carrying the status and its text', async () => {
      const error = await yona
        .sms({ source: 'Nobody', message: 'hi', destinations: { phone: ['0521111234'] } })
        .then(() => assert.fail('an unverified source was accepted'))
        .catch((e: unknown) => e);
      assert.ok(error instanceof YonaError, String(error));
      assert.equal(error.status, 515);
      assert.match(error.text, /unverified source/i);
      assert.equal(error.reply?.status, 515);
      assert.equal(error.operation, 'sms');
    });

    it('a retry with the same idempotency key answers the first reply and charges once', async () => {
      const before = Number((await yona.balance()).balance);
      const send = () =>
        yona.sms(
          { source: 'Yona', message: 'once only', destinations: { phone: ['0521110009'] } },
          { idempotencyKey: 'sdk-order-1' },
        );
      const first = await send();
      const retry = await send();
      assert.equal(retry.campaign_id, first.campaign_id);
      assert.equal(Number((await yona.balance()).balance), before - first.credits);
      assert.ok(first.credits > 0);
    });

    it('verifies a signed push, and refuses a tampered body or another secret', async () => {
      await waitFor(() => receiver.received.length > 0, 'a dlr push');
      const push = receiver.received[0];
      assert.ok(push.headers['x-yona-signature'], 'the push is signed');
      assert.equal(verifyPushSignature(push.headers, push.body, secret), true);
      assert.equal(verifyPushSignature(push.headers, push.body.replace('102', '103'), secret), false);
      assert.equal(verifyPushSignature(push.headers, push.body, `${secret}x`), false);
      const stale = Number(push.headers['x-yona-timestamp']) + 600;
      assert.equal(verifyPushSignature(push.headers, push.body, secret, { nowSeconds: stale }), false);
    });
  });
}

// The Cloud API simulator as a protocol's bundled simulator, as `yona serve` starts it in-process: a fresh token
// and app secret, the carrier the protocol makes for it, webhooks pointed at the server once it listens (signed
// with that secret), and its registration (`whatsappControlUrl` in simulator.json) found by `yona sim --channel
// whatsapp`.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  bundledWhatsAppSimulator,
  type RunningWhatsAppSimulator,
} from '../../src/carriers/whatsapp-cloud/simulator/index.ts';
import { eventually } from '../delivery/delivery-helpers.ts';
import { startPushReceiver } from '../helpers/push-receiver.ts';
import { runCli } from '../helpers/serve-process.ts';

describe('bundledWhatsAppSimulator', () => {
  it('starts with its own secrets, binds the carrier the protocol makes and is found by yona sim', async () => {
    const receiver = await startPushReceiver();
    const dataDir = mkdtempSync(join(tmpdir(), 'yona-wa-bundled-'));
    const bundled = await bundledWhatsAppSimulator((sim) => ({
      name: 'simulator-whatsapp',
      protocol: 'whatsapp-cloud',
      graphUrl: sim.url,
      token: sim.token,
    })).start({ receiptDelayMs: 30 });
    const sim = bundled.instance as RunningWhatsAppSimulator;
    try {
      assert.equal(bundled.carrier.name, 'simulator-whatsapp');
      assert.equal((bundled.carrier as unknown as { graphUrl: string }).graphUrl, sim.url);
      assert.match(sim.token, /^[0-9a-f]{32}$/);
      assert.deepEqual(bundled.info, { graphUrl: sim.url, whatsappControlUrl: sim.controlUrl });
      sim.setWebhook(receiver.url);
      const res = await fetch(`${sim.url}/v23.0/972500000000/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sim.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          to: '972501239999',
          type: 'template',
          template: { name: 'hello_world', language: { code: 'en_US' } },
        }),
      });
      assert.equal(res.status, 200);
      await eventually(() => receiver.received.length === 3, 5000, 'sent, delivered and read');
      for (const push of receiver.received)
        assert.equal(
          push.headers['x-hub-signature-256'],
          `sha256=${createHmac('sha256', sim.appSecret).update(push.body).digest('hex')}`,
        );
      // As the server registers its simulators: the SMS simulator's control channel beside WhatsApp's.
      writeFileSync(
        join(dataDir, 'simulator.json'),
        JSON.stringify({ controlUrl: 'http://127.0.0.1:9', ...bundled.info, pid: process.pid }),
      );
      const run = await runCli({ ...process.env, YONA_DATA_DIR: dataDir }, [
        'sim',
        'messages',
        '--channel',
        'whatsapp',
        '--json',
      ]);
      assert.equal(run.status, 0, run.stderr);
      const [message] = JSON.parse(run.stdout) as Array<{ waId: string; template: { name: string } }>;
      assert.equal(message.waId, '972501239999');
      assert.equal(message.template.name, 'hello_world');
    } finally {
      await bundled.stop();
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

// /admin/alerts on every store: an admin operator sets thresholds and the webhook from the page (audited with the
// operator's name, the secret hidden); a support operator reads the page but its forms, and a forged CSRF token,
// change nothing; a message left waiting in the due queue past the queue-age threshold shows as an active alert
// on /admin/alerts and on /admin, stays open (not raised again) across a restart, and clears when the threshold is
// turned off.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { alertsComponent } from '../../../src/delivery/alerts.ts';
import { AdminClient, enrolledSecrets } from '../../helpers/admin-client.ts';
import { waitFor } from '../../helpers/push-receiver.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { newSender, type Sender } from '../../operations/send-helpers.ts';

for (const target of await storeTargets()) {
  describe(`operator console: alerts (${target.name})`, () => {
    let t: TestService;
    let ana: Sender;
    let dana: AdminClient;
    let sam: AdminClient;
    const rules = async () => JSON.parse((await t.admin('alerts', 'list', '--json'))[0]!);

    before(async () => {
      enrolledSecrets.clear();
      // No carrier runs: a message sent waits in the due queue.
      t = await startTestService(target, {
        env: { YONA_ALERT_INTERVAL_MS: '100', YONA_ALERT_MINUTE_MS: '100' },
        components: [alertsComponent()],
      });
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      await t.admin('create-operator', 'sam', '--password', 'sam-pw-1234', '--role', 'support');
      ana = await newSender(t, 'ana', 100);
      dana = new AdminClient(t.httpsUrl);
      assert.equal((await dana.signIn('dana', 'dana-pw-123', Date.now())).status, 303);
      sam = new AdminClient(t.httpsUrl);
      assert.equal((await sam.signIn('sam', 'sam-pw-1234', Date.now())).status, 303);
    });
    after(async () => t?.close());

    it('an admin operator sets thresholds and the webhook from the page, audited', async () => {
      const page = await dana.get('/admin/alerts');
      assert.equal(page.status, 200);
      assert.match(page.text, /No active alerts\./);
      const set = await dana.post('/admin/alerts/set', { kind: 'delivery-rate', percent: '85', minutes: '30' });
      assert.equal(set.status, 303);
      assert.equal((await dana.post('/admin/alerts/set', { kind: 'carrier-down', minutes: '5' })).status, 303);
      const hook = await dana.post('/admin/alerts/webhook', {
        url: 'https://ops.example.com/yona-alerts',
        secret: 'a-long-signing-secret',
      });
      assert.equal(hook.status, 303);
      const after = await dana.get('/admin/alerts');
      assert.match(after.text, /below 85% over 30 min/);
      assert.match(after.text, /down for 5 min/);
      assert.match(after.text, /posted, signed, to https:\/\/ops\.example\.com\/yona-alerts/);
      assert.doesNotMatch(after.text, /a-long-signing-secret/);
      const r = await rules();
      assert.deepEqual(r.rules, [
        { kind: 'carrier-down', percent: null, minutes: 5 },
        { kind: 'delivery-rate', percent: 85, minutes: 30 },
      ]);
      const audit = await dana.get('/admin/audit?action=setAlertWebhook');
      assert.match(audit.text, /<td data-label="Operator">dana<\/td>/);
      assert.match(audit.text, /alert webhook/);
      assert.doesNotMatch(audit.text, /a-long-signing-secret/);
      const ruleAudit = await dana.get('/admin/audit?action=setAlertRule');
      assert.match(ruleAudit.text, /alert delivery-rate/);
    });

    it('a refused threshold says why and changes nothing', async () => {
      const bad = await dana.post('/admin/alerts/set', { kind: 'delivery-rate', percent: '150', minutes: '5' });
      assert.equal(bad.status, 400);
      const short = await dana.post('/admin/alerts/webhook', { url: 'https://ops.example.com/x', secret: 'short' });
      assert.equal(short.status, 400);
      assert.match(short.text, /at least 16 characters/);
      assert.equal((await rules()).rules.find((x: { kind: string }) => x.kind === 'delivery-rate').percent, 85);
    });

    it('a support operator reads the page; its forms and a forged CSRF token change nothing', async () => {
      const page = await sam.get('/admin/alerts');
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.text, /action="\/admin\/alerts\/set"/, 'no forms for support');
      assert.equal((await sam.post('/admin/alerts/set', { kind: 'queue-age', minutes: '1' })).status, 403);
      assert.equal((await sam.post('/admin/alerts/remove', { kind: 'carrier-down' })).status, 403);
      assert.equal(
        (await sam.post('/admin/alerts/webhook', { url: 'https://evil.example.com/', secret: 'x'.repeat(20) })).status,
        403,
      );
      await dana.get('/admin/alerts');
      assert.equal(
        (await dana.post('/admin/alerts/set', { kind: 'queue-age', minutes: '1', _csrf: 'forged' })).status,
        403,
      );
      const r = await rules();
      assert.deepEqual(
        r.rules.map((x: { kind: string }) => x.kind),
        ['carrier-down', 'delivery-rate'],
      );
      assert.equal(r.webhook, 'https://ops.example.com/yona-alerts');
    });

    it('a message waiting past queue-age shows as an active alert on /admin/alerts and /admin, and clears', async () => {
      await dana.post('/admin/alerts/webhook', { url: '' });
      assert.equal((await ana.sms({ destinations: { phone: '0501234567' } })).status, 0);
      await dana.get('/admin/alerts');
      assert.equal((await dana.post('/admin/alerts/set', { kind: 'queue-age', minutes: '2' })).status, 303);
      await waitFor(async () => (await rules()).active.length > 0, 'the queue-age alert', 10_000);
      const [active] = (await rules()).active;
      assert.equal(active.kind, 'queue-age');
      assert.equal(active.subject, 'queue');
      const page = await dana.get('/admin/alerts');
      assert.match(page.text, /<td data-label="Kind">Oldest queued message<\/td><td data-label="Subject">queue<\/td>/);
      const home = await dana.get('/admin');
      assert.match(home.text, /Active alerts[\s\S]*Oldest queued message/);
      assert.match((await sam.get('/admin')).text, /Oldest queued message/);

      // Restarted (the evaluator starting again, as a new leader would), the open alert is neither raised again nor lost.
      t = await t.restart({
        env: { YONA_ALERT_INTERVAL_MS: '100', YONA_ALERT_MINUTE_MS: '100' },
        components: [alertsComponent()],
      });
      await new Promise((r) => setTimeout(r, 500));
      const again = (await rules()).active;
      assert.deepEqual(
        again.map((a: { id: number }) => a.id),
        [active.id],
      );
      await t.admin('alerts', 'remove', 'queue-age');
      await waitFor(async () => (await rules()).active.length === 0, 'the alert cleared', 10_000);
    });
  });
}

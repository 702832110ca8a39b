// The operator console's carriers and routes on every store: carriers and a failover route added from the console
// are what `yona admin` reads (route-test takes them, from the same store), a carrier on a route is not removed,
// the carrier's password never reaches the audit log, and a support operator's forms are refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdminClient, enrolledSecrets } from '../../helpers/admin-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

// The add-carrier form's fields of an SMPP carrier (the options of yona admin add-carrier smpp).
const smpp = (port: number) => ({
  protocol: 'smpp',
  'smpp.host': '127.0.0.1',
  'smpp.port': String(port),
  'smpp.system-id': 'yona',
  'smpp.password': 'carrier-secret',
  'smpp.window': '10',
});

for (const target of await storeTargets()) {
  describe(`operator console carriers and routes (${target.name})`, () => {
    let t: TestService;
    let now = Date.UTC(2026, 10, 27, 11, 0, 0);
    let dana: AdminClient;
    before(async () => {
      enrolledSecrets.clear();
      t = await startTestService(target, { clock: () => now });
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      await t.admin('create-operator', 'sam', '--password', 'sam-pw-1234', '--role', 'support');
      dana = new AdminClient(t.httpsUrl);
      assert.equal((await dana.signIn('dana', 'dana-pw-123', now)).status, 303);
    });
    after(() => t?.close());

    it('adds two carriers and a failover route that the CLI reads from the same store', async () => {
      await dana.get('/admin/carriers');
      for (const [name, port] of [
        ['one', 2775],
        ['two', 2776],
      ] as const) {
        const res = await dana.post('/admin/carriers/add', {
          name,
          ...smpp(port),
          'limits.daily-cap': name === 'one' ? '5000' : '',
          'limits.cost-per-part': name === 'one' ? '2.75' : '',
        });
        assert.equal(res.status, 303, res.text);
      }
      const stored = await t.service.store.db
        .selectFrom('carriers')
        .select(['protocol', 'settings'])
        .where('name', '=', 'one')
        .executeTakeFirstOrThrow();
      assert.equal(stored.protocol, 'smpp');
      const settings = JSON.parse(stored.settings);
      assert.deepEqual(
        [settings.host, settings.port, settings.systemId, settings.windowSize, settings.bindMode, settings.tls],
        ['127.0.0.1', 2775, 'yona', 10, 'transceiver', false],
        'the settings yona admin add-carrier makes of the same options, with its defaults',
      );
      assert.deepEqual([settings.dailyCap, settings.costPerPart], [5000, 2.75], 'the daily cap and cost per part');
      const badCap = await dana.post('/admin/carriers/add', { name: 'three', ...smpp(1), 'limits.daily-cap': '0' });
      assert.equal(badCap.status, 400);
      assert.match(badCap.text, /--daily-cap must be a whole number of SMS parts/);
      assert.doesNotMatch(stored.settings, /carrier-secret/, 'the password kept sealed');
      const missing = await dana.post('/admin/carriers/add', { name: 'three', ...smpp(1), 'smpp.system-id': '' });
      assert.equal(missing.status, 400);
      assert.match(missing.text, /fill in --system-id/);
      const badBind = await dana.post('/admin/carriers/add', { name: 'three', ...smpp(1), 'smpp.bind': 'rx' });
      assert.equal(badBind.status, 400);
      assert.match(badBind.text, /--bind must be transceiver or tx\+rx/);
      const badPort = await dana.post('/admin/carriers/add', { name: 'three', ...smpp(1), 'smpp.port': 'x' });
      assert.equal(badPort.status, 400);
      assert.match(badPort.text, /--port/);
      // A protocol without add-carrier options (a SIP trunk) takes its settings as JSON.
      const sip = await dana.post('/admin/carriers/add', {
        name: 'trunk',
        protocol: 'sip',
        'sip.settings': JSON.stringify({ host: '127.0.0.1', port: 5060, callerId: '97231234567' }),
      });
      assert.equal(sip.status, 303, sip.text);
      const notJson = await dana.post('/admin/carriers/add', { name: 'trunk2', protocol: 'sip', 'sip.settings': '{' });
      assert.equal(notJson.status, 400);
      assert.match(notJson.text, /not a JSON object/);
      assert.equal((await dana.post('/admin/carriers/remove', { name: 'trunk' })).status, 303);
      const form = (await dana.get('/admin/carriers')).text;
      assert.match(form, /<input type="radio" id="carrier-protocol-smpp" name="protocol" value="smpp" checked>/);
      assert.match(form, /id="carrier-smpp-password" name="smpp.password" type="password"/);
      assert.match(form, /id="carrier-whatsapp-cloud-app-secret" name="whatsapp-cloud.app-secret" type="password"/);
      assert.match(form, /<textarea id="carrier-sip-settings" name="sip.settings"/);
      assert.match(
        form,
        /<select id="carrier-smpp-bind" name="smpp.bind" dir="ltr"><option value="">\(the default\)<\/option><option>transceiver<\/option><option>tx\+rx<\/option><\/select>/,
        'the values an option takes, as its usage line lists them',
      );
      await dana.get('/admin/routes');
      assert.equal((await dana.post('/admin/routes/add', { prefix: '', carriers: 'one, two' })).status, 303);
      assert.equal((await dana.post('/admin/routes/add', { prefix: '', carriers: 'nosuch' })).status, 400);
      const routes = await dana.get('/admin/routes');
      assert.match(routes.text, /one → two/);
      const tested = await t.admin('route-test', '--to', '0501234567');
      assert.match(tested.join('\n'), /in the order tried: one, two/);
    });

    it('answers the route test form as yona admin route-test does, and refuses it without the CSRF token', async () => {
      await dana.get('/admin/routes');
      const answered = await dana.post('/admin/routes/test', {
        to: '0501234567',
        account: '',
        source: '',
        channel: 'sms',
      });
      assert.equal(answered.status, 200, answered.text);
      assert.match(answered.text, /A message to \+972501234567 \(sms\)/);
      assert.match(
        answered.text,
        /<ol class="carrier-order"><li><a href="\/admin\/carriers\/one" dir="ltr">one<\/a><\/li><li><a href="\/admin\/carriers\/two" dir="ltr">two<\/a><\/li><\/ol>/,
      );
      assert.match(answered.text, /default: one → two/);
      const bad = await dana.post('/admin/routes/test', { to: 'not-a-phone', channel: 'sms' });
      assert.equal(bad.status, 400);
      assert.match(bad.text, /The destination must be a phone number, got &#34;not-a-phone&#34;/);
      const unknown = await dana.post('/admin/routes/test', { to: '0501234567', account: 'nobody', channel: 'sms' });
      assert.equal(unknown.status, 400);
      assert.match(unknown.text, /No account is named &#34;nobody&#34;/);
      // The Hebrew page words the refusal in Hebrew.
      await dana.get('/admin/lang/he?back=/admin/routes');
      const hebrew = await dana.post('/admin/routes/test', { to: 'not-a-phone', channel: 'sms' });
      assert.equal(hebrew.status, 400);
      assert.match(hebrew.text, /<html lang="he" dir="rtl">/);
      assert.match(hebrew.text, /היעד צריך להיות מספר טלפון, התקבל &#34;not-a-phone&#34;/);
      assert.doesNotMatch(hebrew.text, /must be a phone number/);
      await dana.get('/admin/lang/en?back=/admin/routes');
      const forged = await dana.post('/admin/routes/test', { _csrf: 'forged', to: '0501234567', channel: 'sms' });
      assert.equal(forged.status, 403);
    });

    it("shows a carrier's page with its health, its messages over time as a chart and its routes", async () => {
      const page = await dana.get('/admin/carriers/one');
      assert.equal(page.status, 200, page.text);
      assert.match(page.text, /<h1[^>]*>Carrier one<\/h1>/);
      assert.match(page.text, /id="chart"/);
      assert.match(page.text, /<script type="application\/json" id="chart-data">\{"x":\[/);
      assert.match(page.text, /src="\/console\/assets\/chart\.js"/);
      assert.match(page.text, /one → two/);
      const day = await dana.get('/admin/carriers/one?over=day');
      assert.match(day.text, /each 30-minute interval/);
      assert.equal((await dana.get('/admin/carriers/nosuch')).status, 404);
      assert.match((await dana.get('/admin/carriers')).text, /<a href="\/admin\/carriers\/one" dir="ltr">one<\/a>/);
    });

    it('refuses to remove a carrier a route names, and removes the route', async () => {
      await dana.get('/admin/carriers');
      const refused = await dana.post('/admin/carriers/remove', { name: 'two' });
      assert.equal(refused.status, 400);
      assert.match(refused.text, /is on 1 route/);
      await dana.get('/admin/routes');
      const removed = await dana.post('/admin/routes/remove', { prefix: '', account: '', source: '', channel: '' });
      assert.equal(removed.status, 303);
      assert.doesNotMatch((await dana.get('/admin/routes')).text, /one → two/);
    });

    it('audits carrier and route changes without the carrier password', async () => {
      const audit = await dana.get('/admin/audit.csv');
      assert.match(audit.text, /setCarrier,carrier one/);
      assert.match(audit.text, /setRoute,route default/);
      assert.match(audit.text, /removeRoute,route default/);
      assert.doesNotMatch(audit.text, /carrier-secret/);
    });

    it('refuses a support operator adding a carrier or a route', async () => {
      const sam = new AdminClient(t.httpsUrl);
      now += 31_000;
      assert.equal((await sam.signIn('sam', 'sam-pw-1234', now)).status, 303);
      await sam.get('/admin/carriers');
      assert.equal((await sam.post('/admin/carriers/add', { name: 'x', ...smpp(1) })).status, 403);
      assert.equal((await sam.post('/admin/routes/add', { prefix: '', carriers: 'one' })).status, 403);
      assert.doesNotMatch((await sam.get('/admin/carriers')).text, /\/admin\/carriers\/x"/);
      // The route test changes nothing: a support operator runs it.
      await sam.get('/admin/routes');
      const tested = await sam.post('/admin/routes/test', { to: '0501234567', channel: 'sms' });
      assert.equal(tested.status, 200, tested.text);
      assert.match(tested.text, /Carriers in the order tried/);
    });
  });
}

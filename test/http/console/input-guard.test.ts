// The console's input guard over HTTPS on every store: a form field or query parameter that is not UTF-8 text
// (raw bytes or percent-encoded), or that holds NUL or another C0 control but tab, CR and LF, is refused with a
// 400 page naming the field in the user's language, before anything is stored or sent: /console/send sends nothing
// to the SMSC and stores nothing; the unauthenticated sign-in with `username=carol%00` is refused the same way (on
// PostgreSQL it answered 500); and every console route the router registers, POST body and query string alike,
// answers a NUL with 400, never 500.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SmscSimulator } from '../../../src/carriers/simulator/index.ts';
import { loadConfig } from '../../../src/config.ts';
import { carriersComponent } from '../../../src/delivery/carriers.ts';
import { eventually, newSender, settleOnClose, simCarrier } from '../../delivery/delivery-helpers.ts';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { consoleRoutes, routePath } from '../../helpers/console-routes.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

const PHONE = '0521234567';

for (const target of await storeTargets()) {
  describe(`console input guard (${target.name})`, () => {
    let t: TestService;
    let simulator: SmscSimulator;
    let web: ConsoleClient;
    const received = () => simulator.messages().length;
    const stored = async () =>
      Number(
        (
          await t.service.store.db
            .selectFrom('messages')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirst()
        )?.n,
      );

    before(async () => {
      simulator = new SmscSimulator({ systemId: 'yona', password: 'secret', receiptDelayMs: 20, controlPort: 0 });
      const port = await simulator.start(0);
      const carriers = carriersComponent({
        setup: { carriers: [simCarrier(port)], routes: [] },
        settings: { pollMs: 20 },
        config: loadConfig({}),
      });
      t = await startTestService(target, { components: [carriers] });
      settleOnClose(t);
      await newSender(t, 'carol');
      await t.admin('create-account', 'dan', '--password', 'secret-pw', '--parent', 'carol');
      web = new ConsoleClient(t.httpsUrl);
      assert.equal((await web.login('carol', 'secret-pw')).status, 303);
    });
    after(async () => {
      await t?.close();
      await simulator?.stop();
    });

    const sendForm = (message: string) =>
      `_csrf=${encodeURIComponent(web.csrf)}&action=send&phones=${PHONE}&source=Yona&message=${message}`;

    it('sends a plain message from /console/send (the control: the SMSC gets it)', async () => {
      await web.get('/console/send');
      const res = await web.postRaw('/console/send', sendForm('hello'));
      assert.equal(res.status, 303, res.text.slice(0, 300));
      await eventually(() => received() === 1, 5000, 'the message at the SMSC');
      assert.equal(await stored(), 1);
    });

    it('refuses invalid UTF-8, BEL and NUL in the message: 400 naming the field; nothing stored, nothing sent', async () => {
      const bodies: Array<[string | Buffer, RegExp]> = [
        [sendForm('a%FFb'), /The field “message” was not accepted: it is not valid UTF-8 text/],
        [sendForm('a%C3%28b'), /not valid UTF-8 text/],
        [Buffer.concat([Buffer.from(sendForm('a')), Buffer.from([0xc3, 0x28]), Buffer.from('b')]), /not valid UTF-8/],
        [sendForm('ring%07bell'), /The field “message” was not accepted: it holds the control character U\+0007/],
        [sendForm('nul%00here'), /it holds the control character U\+0000/],
        [sendForm('x').replace('phones=', 'phones=%01'), /The field “phones”/],
        [`${sendForm('x')}&odd%00name=1`, /A field name was not accepted/],
      ];
      for (const [body, refusal] of bodies) {
        await web.get('/console/send');
        const res = await web.postRaw('/console/send', body);
        assert.equal(res.status, 400, String(body));
        assert.match(res.text, refusal);
        assert.match(res.text, /Nothing was saved or sent/);
        assert.match(res.text, /<link rel="stylesheet" href="\/console\/assets\/console.css">/, 'in the console frame');
      }
      // Given the time a message takes to reach the SMSC (the control above), none of these did.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(received(), 1);
      assert.equal(await stored(), 1);
    });

    it('says it in Hebrew to a Hebrew reader', async () => {
      const he = new ConsoleClient(t.httpsUrl);
      he.headers = { 'accept-language': 'he' };
      const res = await he.get('/console/login?back=%07');
      assert.equal(res.status, 400);
      assert.match(res.text, /<html lang="he" dir="rtl">/);
      assert.match(res.text, /הפרמטר „back” בכתובת לא התקבל: הוא מכיל את תו הבקרה U\+0007/);
    });

    it('refuses username=carol%00 at the unauthenticated sign-in with 400, not 500 and no stack trace', async () => {
      const stranger = new ConsoleClient(t.httpsUrl);
      await stranger.get('/console/login');
      const res = await stranger.postRaw(
        '/console/login',
        `_csrf=${encodeURIComponent(stranger.csrf)}&username=carol%00&password=secret-pw`,
      );
      assert.equal(res.status, 400);
      assert.match(res.text, /The field “username” was not accepted: it holds the control character U\+0000/);
      assert.doesNotMatch(res.text, /at .*\.ts:\d+|Error:|stack/i);
      assert.equal(stranger.cookies.has('__Host-yona_session'), false);
      // The form still works for the real name.
      assert.equal((await stranger.login('carol', 'secret-pw')).status, 303);
    });

    it('answers a NUL in the body of every POST route and the query of every route with 400, never 500', async () => {
      const routes = consoleRoutes();
      assert.ok(routes.filter((r) => r.method === 'POST').length >= 30, 'the router lists its POST routes');
      const failures: string[] = [];
      for (const { method, url } of routes) {
        const path = routePath(url, { id: '1', username: 'dan' });
        if (method === 'POST') {
          await web.get('/console');
          for (const field of ['_csrf', 'username', 'message', 'name', 'phone']) {
            const body = `_csrf=${encodeURIComponent(web.csrf)}&${field === '_csrf' ? 'x' : field}=a%00b`;
            const res = await web.postRaw(path, body);
            if (res.status !== 400 || !/was not accepted/.test(res.text))
              failures.push(`POST ${path} ${field}: ${res.status}`);
          }
        }
        const res =
          method === 'GET' ? await web.get(`${path}?q=a%00b&before=1`) : await web.postRaw(`${path}?back=%00`, '');
        if (res.status !== 400) failures.push(`${method} ${path}?…%00: ${res.status}`);
        const param = /:(\w+)/.exec(url);
        if (param && method === 'GET') {
          const bad = await web.get(url.replace(`:${param[1]}`, 'x%00y').replace(/:\w+/g, '1'));
          if (bad.status >= 500) failures.push(`GET ${url} with a NUL in :${param[1]}: ${bad.status}`);
        }
      }
      assert.deepEqual(failures, []);
      assert.equal((await web.get('/console')).status, 200, 'still signed in and serving');
    });
  });
}

// What a customer reads is white-label, and small API frictions, against a real `yona serve` on every store:
// a refusal names neither the product nor an operator command (the operator's hint is in the `api.refused` log
// line), validate_otp's status 12 is logged as an unverified code (not the catalogue's "Not enough money");
// an unknown operation names the nearest, a bulk's `timing` written inside `messages` is a near miss (nothing
// sent), and an XML retry under an Idempotency-Key matches the JSON request whose phone was an array of one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { waitFor } from '../helpers/push-receiver.ts';
import { lastLine, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';

type Reply = { status: number; message: string } & Record<string, unknown>;
type Line = Record<string, unknown> & { event?: string };

for (const target of await storeTargets()) {
  describe(`white-label texts and API frictions (${target.name}, real process)`, () => {
    let store: Awaited<ReturnType<typeof target.create>>;
    let serve: ServeProcess;
    let token = '';
    const post = async (body: string, contentType: string, headers: Record<string, string> = {}) => {
      const res = await request(`http://127.0.0.1:${serve.httpPort}/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': contentType, ...headers },
        body,
      });
      return res.body.text();
    };
    const api = async (doc: unknown, headers: Record<string, string> = {}) =>
      JSON.parse(await post(JSON.stringify(doc), 'application/json', headers)) as Reply;
    const refusedLines = () =>
      serve
        .logs()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Line)
        .filter((l) => l.event === 'api.refused');
    const credits = async () => Number((await api({ balance: { user: { username: 'wlabel' } } })).credits);

    before(async () => {
      store = await target.create();
      serve = await startServeProcess(store.env, { YONA_SIM_RECEIPT_DELAY_MS: '10' });
      const created = await serve.cli(
        'admin',
        'create-account',
        'wlabel',
        '--password',
        'Wl-Secret-Pw1',
        '--credits',
        '100',
      );
      assert.equal(created.status, 0, created.stderr);
      assert.equal((await serve.cli('admin', 'verify-sender', 'wlabel', '0521110000')).status, 0);
      token = lastLine(await serve.cli('admin', 'create-token', 'wlabel'));
    });
    after(async () => {
      await serve?.stop();
      await store?.cleanup();
    });

    it('tells the customer to ask its provider to verify a sender; the operator hint is in the log', async () => {
      const refused = await api({
        sms: { user: { username: 'wlabel' }, source: 'Acme', message: 'hi', destinations: { phone: '0521234567' } },
      });
      assert.equal(refused.status, 515);
      assert.match(refused.message, /ask your provider to verify this sender/);
      assert.doesNotMatch(refused.message, /yona|admin/i);
      assert.equal(Object.hasOwn(refused, 'hint'), false);
      await waitFor(() => refusedLines().some((l) => l.status === 515), 'the api.refused line');
      const line = refusedLines().find((l) => l.status === 515);
      assert.equal(line?.hint, 'yona admin verify-sender wlabel Acme');
    });

    it("logs validate_otp's status 12 as an unverified code, not the catalogue's money text", async () => {
      const reply = await api({ validate_otp: { user: { username: 'wlabel' }, phone: '0521234567', code: '123456' } });
      assert.equal(reply.status, 12);
      assert.match(reply.message, /^Unverified code/);
      await waitFor(() => refusedLines().some((l) => l.operation === 'validate_otp'), 'the validate_otp line');
      const line = refusedLines().find((l) => l.operation === 'validate_otp');
      assert.equal(line?.text, 'Unverified code');
      const hebrew = await request(`http://127.0.0.1:${serve.httpPort}/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'accept-language': 'he' },
        body: JSON.stringify({ validate_otp: { user: { username: 'wlabel' }, phone: '0521234567', code: '1' } }),
      });
      const he = (await hebrew.body.json()) as Reply;
      assert.match(he.message, /^קוד לא מאומת/);
    });

    it('suggests the nearest operation for an unknown one', async () => {
      const reply = await api({ smss: { user: { username: 'wlabel' } } });
      assert.equal(reply.status, 997);
      assert.match(reply.message, /unknown operation "smss"; did you mean "sms"\?/);
    });

    it("refuses a bulk's timing written inside messages as a near miss, sending nothing", async () => {
      const before = await credits();
      const reply = await api({
        bulk: {
          user: { username: 'wlabel' },
          messages: {
            timing: '01/01/40 10:00',
            sms: [{ source: '0521110000', message: 'later', destinations: { phone: '0521234567' } }],
          },
        },
      });
      assert.equal(reply.status, 2, reply.message);
      assert.match(reply.message, /unknown field "timing" in bulk\.messages; did you mean "bulk\.timing"\?/);
      assert.equal(await credits(), before);
    });

    it('answers an XML retry with the reply of the JSON request whose phone was an array of one', async () => {
      const before = await credits();
      const key = { 'idempotency-key': 'xml-after-json-1' };
      const first = await api(
        {
          sms: {
            user: { username: 'wlabel' },
            source: '0521110000',
            message: 'once',
            destinations: { phone: ['0521230001'] },
          },
        },
        key,
      );
      assert.equal(first.status, 0, first.message);
      const xml = await post(
        '<sms><user><username>wlabel</username></user><source>0521110000</source><message>once</message><destinations><phone>0521230001</phone></destinations></sms>',
        'application/xml',
        { ...key, accept: 'application/xml' },
      );
      assert.match(xml, /<status>0<\/status>/, xml);
      assert.equal(/<campaign_id>(\d+)<\/campaign_id>/.exec(xml)?.[1], String(first.campaign_id));
      assert.equal(await credits(), before - 1, 'charged once');
    });
  });
}

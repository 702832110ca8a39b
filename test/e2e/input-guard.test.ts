// Input refused at the door over HTTP on every store: NUL and the other C0 controls but tab, CR and LF, in any
// text or field name, answer status 2 naming the field (also without a token: nothing reaches the store, nothing
// is logged as an error); a body that is not valid UTF-8 (or not valid in its declared charset) answers status 1
// instead of being sent with U+FFFD; tab, CR, LF and text beyond the BMP pass.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeTargets } from '../helpers/stores.ts';
import type { TestService } from '../helpers/service.ts';
import { newSender, startSendingService, xmlField, xmlStatus, type Sender } from '../operations/send-helpers.ts';

const targets = await storeTargets();

for (const target of targets) {
  describe(`input refused at the door (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    before(async () => {
      t = await startSendingService(target);
      s = await newSender(t, 'doorman');
    });
    after(() => t.close());

    it('answers 2 for a NUL in a username, even without a token (not 998)', async () => {
      const res = await t.post('{"balance":{"user":{"username":"a\\u0000","password":"x"}}}', {
        contentType: 'application/json',
      });
      const reply = JSON.parse(res.text);
      assert.deepEqual(
        [reply.status, reply.message],
        [2, 'Invalid value for field balance.user.username: control character U+0000 is not accepted'],
      );
    });

    it('answers 2 for C0 controls in a message, a phone id and a field name; sends nothing', async () => {
      for (const [doc, field, code] of [
        [{ message: 'hi\u0007there' }, 'sms.message', '0007'],
        [{ destinations: { phone: { $: { id: 'a\u001b' }, _: '0521234567' } } }, 'sms.destinations.phone.id', '001B'],
        [{ campaign_name: 'x\u0000' }, 'sms.campaign_name', '0000'],
        [{ 'odd\u0001key': '1' }, 'sms (a field name)', '0001'],
      ] as const) {
        const reply = await s.sms({ destinations: { phone: '0521234567' }, ...doc });
        assert.equal(reply.status, 2, JSON.stringify(doc));
        assert.equal(reply.message, `Invalid value for field ${field}: control character U+${code} is not accepted`);
      }
      const lone = await s.sms({ destinations: { phone: '0521234567' }, message: 'a\ud800b' });
      assert.deepEqual(
        [lone.status, lone.message],
        [2, 'Invalid value for field sms.message: lone surrogate U+D800 is not text'],
      );
      assert.equal((await s.balance()).credits, 1000);
    });

    it('answers 2 for a character reference to a control in XML', async () => {
      const res = await t.post(
        '<sms><user><username>doorman</username></user><source>Yona</source><message>a&#x1;b</message><destinations><phone>0521234567</phone></destinations></sms>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.ok([1, 2].includes(xmlStatus(res.text)), res.text);
      assert.equal((await s.balance()).credits, 1000);
    });

    it('answers 1 for invalid UTF-8, and for bytes invalid in the declared charset', async () => {
      const body = Buffer.concat([
        Buffer.from('{"sms":{"user":{"username":"doorman"},"source":"Yona","message":"a'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('","destinations":{"phone":"0521234567"}}}'),
      ]);
      const res = await t.post(body as unknown as string, { contentType: 'application/json', token: s.token });
      const reply = JSON.parse(res.text);
      assert.equal(reply.status, 1);
      assert.match(reply.message, /not valid UTF-8/);
      const shiftJis = await t.post(Buffer.from([0x7b, 0x81, 0x7d]) as unknown as string, {
        contentType: 'application/json; charset=shift_jis',
        token: s.token,
      });
      assert.equal(JSON.parse(shiftJis.text).status, 1);
      assert.equal((await s.balance()).credits, 1000);
    });

    it('accepts tab, CR, LF and emoji in a message', async () => {
      const reply = await s.sms({ destinations: { phone: '0521234567' }, message: 'a\tb\r\nc 😀' });
      assert.equal(reply.status, 0, reply.message);
      const xml = await t.post('<balance><user><username>doorman</username></user></balance>', {
        contentType: 'application/xml',
        token: s.token,
      });
      assert.equal(xmlStatus(xml.text), 0, xmlField(xml.text, 'message'));
    });
  });
}

// Hebrew replies (extension): with an Accept-Language preferring Hebrew (he, he-IL, iw; q-values respected),
// a reply's catalogue message is the Hebrew one, in JSON and XML, with `Content-Language: he`; otherwise, or
// with no header, English. Operation messages outside the catalogue stay as they are.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { storeTargets } from '../helpers/stores.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const HE_TOKEN_INVALID = 'שם משתמש או סיסמה שגויים והטוקן אינו תקין';
const EN_TOKEN_INVALID = 'Username or password is incorrect and API token is invalid';

for (const target of await storeTargets()) {
  describe(`Accept-Language (${target.name})`, () => {
    let t: TestService;
    let token: string;
    before(async () => {
      t = await startTestService(target);
      token = (await t.account('hebrew')).token;
    });
    after(() => t.close());

    /** POSTs a body with an optional Accept-Language; returns the reply text and its Content-Language. */
    const call = async (
      body: string,
      language: string | undefined,
      options: { contentType?: string; token?: string } = {},
    ) => {
      const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
      if (language !== undefined) headers['accept-language'] = language;
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      const res = await request(`${t.httpUrl}/api`, { method: 'POST', body, headers });
      return { text: await res.body.text(), language: res.headers['content-language'] ?? null };
    };
    const balanceBody = JSON.stringify({ balance: { user: { username: 'hebrew' } } });

    it('answers catalogue messages in Hebrew when Hebrew is preferred, in English otherwise', async () => {
      for (const [header, hebrew] of [
        [undefined, false],
        ['he', true],
        ['he-IL', true],
        ['HE-il,he;q=0.9,en-US;q=0.8,en;q=0.7', true],
        ['iw', true],
        ['fr, he;q=0.5', true],
        ['en-US,en;q=0.9,he;q=0.8', false],
        ['he;q=0.3, en;q=0.7', false],
        ['he;q=0', false],
        ['en, he', false],
        ['he, en', true],
        ['*', false],
        ['', false],
        ['de', false],
      ] as const) {
        const res = await call(balanceBody, header);
        const reply = JSON.parse(res.text);
        assert.equal(reply.status, 3, String(header));
        assert.ok(
          reply.message.startsWith(hebrew ? HE_TOKEN_INVALID : EN_TOKEN_INVALID),
          `${header}: ${reply.message}`,
        );
        assert.equal(res.language, hebrew ? 'he' : null, String(header));
      }
    });

    it('keeps the detail after a catalogue text, in JSON and XML', async () => {
      const unknown = JSON.parse((await call('{"sendFax":{}}', 'he-IL')).text);
      assert.equal(unknown.status, 997);
      assert.equal(unknown.message, 'לא נשלחה פקודה תקינה: unknown operation "sendFax"');
      const xml = await call('<balance><user>', 'he', { contentType: 'application/xml' });
      assert.match(xml.text, /<status>1<\/status><message>ישנה בעיה בפענוח ה-XML\/JSON: invalid XML: [^<]+<\/message>/);
      const missing = JSON.parse((await call('{"balance":{}}', 'he', { token })).text);
      assert.equal(missing.message, 'חסר שדה חובה: user.username');
    });

    it('leaves operation messages outside the catalogue as they are, and serves catalogue successes in Hebrew', async () => {
      const balance = JSON.parse((await call(balanceBody, 'he', { token })).text);
      assert.equal(balance.status, 0);
      assert.equal(balance.message, 'Your balance is 1000 credits');
      const blocked = JSON.parse(
        (
          await call(
            JSON.stringify({ addNumBL: { user: { username: 'hebrew' }, phones: { phone: '0501234567' } } }),
            'he',
            { token },
          )
        ).text,
      );
      assert.equal(blocked.status, 946);
      assert.equal(blocked.message, 'המספרים נוספו בהצלחה לרשימה השחורה');
    });
  });
}

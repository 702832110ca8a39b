// Sender names by request, on every store: a customer asks for a name from /console/senders with a reason; a
// reserved name is refused at once with the reason why; the operator approves (the customer then sends from it)
// or rejects with a reason the customer sees; `yona admin verify-sender` shows among the operator's senders; the
// form refuses a missing CSRF token, and one account never sees another's requests.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { newSender, type Sender } from '../../operations/send-helpers.ts';

for (const target of await storeTargets()) {
  describe(`sender name requests (${target.name})`, () => {
    let t: TestService;
    let ana: Sender;
    let anaConsole: ConsoleClient;
    let benConsole: ConsoleClient;
    const pending = async () => {
      const [json] = await t.admin('senders', '--pending', '--json');
      return JSON.parse(json).requests as Array<{ id: number; username: string; source: string; reason: string }>;
    };
    const ask = (c: ConsoleClient, source: string, reason = 'our shop sends receipts') =>
      c.post('/console/senders/request', { source, reason });

    before(async () => {
      t = await startTestService(target);
      ana = await newSender(t, 'ana', 100);
      await t.admin('set-password', 'ana', '--password', 'ana-console-pw');
      await t.admin('create-account', 'ben', '--password', 'ben-console-pw');
      anaConsole = new ConsoleClient(t.httpsUrl);
      await anaConsole.login('ana', 'ana-console-pw');
      benConsole = new ConsoleClient(t.httpsUrl);
      await benConsole.login('ben', 'ben-console-pw');
    });
    after(async () => t?.close());

    it('a request waits for the operator; once approved the customer sends from the name', async () => {
      await anaConsole.get('/console/senders');
      const sent = await ask(anaConsole, 'AnaShop');
      assert.equal(sent.status, 303);
      const page = await anaConsole.get(sent.location!);
      assert.match(page.text, /Your request was sent to the operator\./);
      assert.match(
        page.text,
        /<td data-label="Sender name">AnaShop<\/td><td data-label="Why you need it">our shop sends receipts<\/td><td data-label="Status">Waiting for approval<\/td>/,
      );
      assert.equal((await ana.sms({ source: 'AnaShop', destinations: { phone: '0501234567' } })).status, 515);
      const [request] = await pending();
      assert.deepEqual(
        [request.username, request.source, request.reason],
        ['ana', 'AnaShop', 'our shop sends receipts'],
      );
      assert.deepEqual(await t.admin('approve-sender', String(request.id)), [
        'approved: AnaShop is a verified sender of ana',
      ]);
      const after = await anaConsole.get('/console/senders');
      assert.match(after.text, /<td data-label="Status">Approved<\/td>/);
      assert.match(after.text, /<td data-label="Sender">AnaShop<\/td><td data-label="Verified by">operator<\/td>/);
      const reply = await ana.sms({ source: 'AnaShop', destinations: { phone: '0501234567' } });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      await assert.rejects(t.admin('approve-sender', String(request.id)), /already approved/);
    });

    it("a rejected request shows the operator's reason to the customer", async () => {
      await anaConsole.get('/console/senders');
      assert.equal((await ask(anaConsole, 'AnaPromo', 'promotions')).status, 303);
      const request = (await pending()).find((r) => r.source === 'AnaPromo')!;
      await assert.rejects(t.admin('reject-sender', String(request.id)), /usage: yona admin reject-sender ID --reason/);
      assert.deepEqual(await t.admin('reject-sender', String(request.id), '--reason', 'Too generic <b>name</b>'), [
        'rejected: AnaPromo of ana',
      ]);
      const page = await anaConsole.get('/console/senders');
      assert.match(
        page.text,
        /AnaPromo<\/td><td data-label="Why you need it">promotions<\/td><td data-label="Status">Rejected<\/td><td data-label="Operator&#39;s reason">Too generic &#60;b&#62;name&#60;\/b&#62;<\/td>/,
      );
      assert.equal((await ana.sms({ source: 'AnaPromo', destinations: { phone: '0501234567' } })).status, 515);
    });

    it("a reserved name (a bank, the government, the operator's own) is refused at once, with the reason", async () => {
      for (const name of ['BankLeumi', 'Hapoalim', 'GovIL', 'Police', 'Yona']) {
        await anaConsole.get('/console/senders');
        const refused = await ask(anaConsole, name);
        assert.equal(refused.status, 200, name);
        assert.match(refused.text, new RegExp(`The sender name “${name}” is reserved`), name);
      }
      assert.deepEqual(
        (await pending()).map((r) => r.source),
        [],
        'nothing recorded',
      );
      await t.admin('reserved-senders', 'add', 'Acme*');
      assert.ok((await t.admin('reserved-senders', 'list')).includes('acme*'));
      await anaConsole.get('/console/senders');
      assert.match((await ask(anaConsole, 'AcmeCorp')).text, /is reserved/);
      await t.admin('reserved-senders', 'remove', 'acme*');
      await anaConsole.get('/console/senders');
      assert.equal((await ask(anaConsole, 'AcmeCorp')).status, 303, 'no longer reserved');
    });

    it('refuses an invalid name, a missing reason and a name already waiting', async () => {
      await anaConsole.get('/console/senders');
      assert.match((await ask(anaConsole, 'Bad Name!')).text, /is not valid: use 1 to 11 English letters and digits/);
      assert.match((await ask(anaConsole, 'Fine1', '   ')).text, /Please say why you need this sender name/);
      assert.match((await ask(anaConsole, 'acmecorp')).text, /A request for “acmecorp” is already waiting/);
      assert.match((await ask(anaConsole, 'AnaShop')).text, /already one of your verified senders/);
    });

    it('verify-sender from the CLI shows among the verified senders the operator lists', async () => {
      await t.admin('verify-sender', 'ben', 'BenLab');
      const [json] = await t.admin('senders', '--json');
      const verified = JSON.parse(json).verified.map((v: { username: string; source: string; method: string }) => [
        v.username,
        v.source,
        v.method,
      ]);
      assert.deepEqual(
        verified.filter((v: string[]) => v[1] === 'BenLab' || v[1] === 'AnaShop'),
        [
          ['ana', 'AnaShop', 'operator'],
          ['ben', 'BenLab', 'operator'],
        ],
      );
      assert.ok((await t.admin('senders')).some((l) => l === `verified ben BenLab (operator, ${l.split(', ')[1]}`));
    });

    it("the request form needs the session's CSRF token, and one account never sees another's requests", async () => {
      await anaConsole.get('/console/senders');
      const forged = await anaConsole.post('/console/senders/request', {
        _csrf: 'forged',
        source: 'Forged1',
        reason: 'x',
      });
      assert.equal(forged.status, 403);
      assert.ok(!(await pending()).some((r) => r.source === 'Forged1'), 'nothing recorded');
      const benPage = await benConsole.get('/console/senders');
      for (const secret of ['AnaShop', 'AnaPromo', 'Too generic', 'our shop sends receipts'])
        assert.doesNotMatch(benPage.text, new RegExp(secret));
      // Ben may ask for a name of his own; it is his, not Ana's.
      assert.equal((await ask(benConsole, 'BenShop')).status, 303);
      assert.doesNotMatch((await anaConsole.get('/console/senders')).text, /BenShop/);
    });
  });
}

// Kannel (an independent SMPP client) against `yona smsc-sim`, the bundled SMSC simulator: in transceiver mode and
// as a transmitter and a receiver, sendsms reaches the simulator with the right text (GSM-7, Hebrew UCS-2, three
// concatenated parts) and Kannel's dlr-url fires with delivered (1); a refused submit_sm reaches Kannel as an SMSC
// reject (16) with its command_status; a wrong password leaves Kannel unbound.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DLR, kannelAvailable, startKannelEsme, type KannelEsme } from '../helpers/kannel.ts';
import { startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';

const HEBREW = 'שלום מקנל, הודעה בעברית';
const LONG = `${'Kannel to the simulator, part by part. '.repeat(10)}end`;

for (const binds of ['transceiver', 'transmitter-receiver'] as const) {
  describe(`Kannel as an ESME of yona smsc-sim (${binds})`, { skip: !kannelAvailable() }, () => {
    let sim: SmscSimProcess;
    let kannel: KannelEsme;

    before(async () => {
      sim = await startSmscSimProcess(['--receipt-delay', '50']);
      kannel = await startKannelEsme({ port: sim.smppPort, systemId: 'yona', password: 'secret', binds });
      await kannel.waitOnline();
    });
    after(async () => {
      await kannel?.stop();
      await sim?.stop();
    });

    it('delivers GSM-7, Hebrew UCS-2 and a 3-part text, each with a delivered dlr-url callback', async () => {
      const sends = [
        { to: '0521230017', text: 'Hello from Kannel: {curly} [square] €uro' },
        { to: '0521230027', text: HEBREW, coding: 2 as const },
        { to: '0521230037', text: LONG },
      ];
      const tags: string[] = [];
      for (const send of sends) {
        const sent = await kannel.send({ from: 'Yona', ...send });
        assert.equal(sent.status, 202, sent.body);
        tags.push(sent.tag);
      }
      for (const tag of tags) assert.match((await kannel.waitForDlr(tag, DLR.DELIVERED)).reply, /stat:DELIVRD/);
      const [gsm, hebrew, long] = await Promise.all(sends.map((s) => sim.messages(s.to)));
      assert.deepEqual(
        gsm.map((m) => [m.text, m.dataCoding, m.parts]),
        [[sends[0].text, 0, 1]],
      );
      assert.deepEqual(
        hebrew.map((m) => [m.text, m.dataCoding, m.parts]),
        [[HEBREW, 8, 1]],
      );
      assert.deepEqual(
        long.map((m) => [m.text, m.parts]),
        [[LONG, 3]],
      );
      assert.equal(kannel.dlrs().filter((d) => tags.includes(d.tag)).length, 3, 'one callback per message');
    });

    it('reports a refused submit_sm to its dlr-url as an SMSC reject with the command_status', async () => {
      await sim.post('/fail-next', { n: 1, status: 0x0a });
      const sent = await kannel.send({ from: 'Yona', to: '0521230047', text: 'refused' });
      assert.equal(sent.status, 202, sent.body);
      const dlr = await kannel.waitForDlr(sent.tag);
      assert.equal(dlr.type, DLR.SMSC_REJECTED);
      assert.match(dlr.reply, /^NACK\/0x0000000a\//);
      assert.deepEqual(await sim.messages('0521230047'), []);
    });
  });
}

describe('Kannel with a wrong password', { skip: !kannelAvailable() }, () => {
  it('is refused at bind (invalid password) and cannot route a send', async () => {
    const sim = await startSmscSimProcess();
    let kannel: KannelEsme | undefined;
    try {
      kannel = await startKannelEsme({ port: sim.smppPort, systemId: 'yona', password: 'wrong' });
      const deadline = Date.now() + 15_000;
      while (!/rejected login.*0x0000000e/.test(kannel.log())) {
        assert.ok(Date.now() < deadline, `no refused bind in Kannel's log\n${kannel.log().slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.doesNotMatch(await kannel.status(), /\(online /);
      const sent = await kannel.send({ from: 'Yona', to: '0521230057', text: 'never' });
      assert.equal(sent.status, 403, sent.body);
      assert.equal((await sim.stats()).submitsReceived, 0);
    } finally {
      await kannel?.stop();
      await sim.stop();
    }
  });
});

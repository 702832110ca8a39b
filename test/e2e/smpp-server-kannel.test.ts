// Interop of Yona's SMPP server with an independent ESME, Kannel, on both stores: with an `smsc = smpp` group
// bound to `yona serve` (one transceiver, then a transmitter beside a receiver), sendsms reaches Yona's carrier
// (`yona smsc-sim`) with the right text (GSM-7, Hebrew UCS-2, three concatenated parts), the account is charged
// as the API charges the same texts, and Kannel's dlr-url fires with delivered (1) from Yona's deliver_sm receipts;
// an unverified sender is refused at submit_sm_resp and Kannel reports the reject (16); a wrong password is
// refused at bind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DLR, freePort, kannelAvailable, startKannelEsme, type KannelEsme } from '../helpers/kannel.ts';
import { lastLine, runCli, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { waitForNoBackends } from '../delivery/delivery-helpers.ts';

const ACCOUNT = 'reseller';
/** SMPP v3.4 passwords are at most 8 characters. */
const SMPP_PASSWORD = 'k4nnel!';
const HEBREW = 'שלום מקנל, הודעה בעברית';
const LONG = `${'Kannel to Yona over SMPP, part by part. '.repeat(10)}end`;
const TEXTS = [
  { text: 'Hello from Kannel: {curly} [square] €uro' },
  { text: HEBREW, coding: 2 as const },
  { text: LONG },
];

const targets = await storeTargets();
for (const target of targets) {
  describe(`Kannel binds to Yona's SMPP server (${target.name})`, { skip: !kannelAvailable() }, () => {
    let created: Awaited<ReturnType<typeof target.create>>;
    let sim: SmscSimProcess;
    let serve: ServeProcess;
    let smppPort: number;
    let token: string;
    const admin = async (...args: string[]) => {
      const run = await runCli({ ...process.env, DATABASE_URL: '', ...created.env }, ['admin', ...args]);
      assert.equal(run.status, 0, `yona admin ${args.join(' ')}: ${run.stderr}${run.stdout}`);
      return run;
    };
    const api = async (root: string, doc: Record<string, unknown>) => {
      const res = await fetch(`http://127.0.0.1:${serve.httpPort}/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ [root]: { user: { username: ACCOUNT }, ...doc } }),
      });
      return (await res.json()) as Record<string, any>;
    };
    const balance = async () => Number((await api('balance', {})).balance);
    const kannelFor = (binds: 'transceiver' | 'transmitter-receiver', password = SMPP_PASSWORD) =>
      startKannelEsme({ port: smppPort, systemId: ACCOUNT, password, binds });

    before(async () => {
      created = await target.create();
      sim = await startSmscSimProcess(['--receipt-delay', '50']);
      await admin('--new-store', 'create-account', ACCOUNT, '--password', 'secret-pw', '--credits', '100');
      await admin('verify-sender', ACCOUNT, 'Yona');
      await admin('smpp-password', ACCOUNT, SMPP_PASSWORD);
      await admin(...simCarrierArgs('carrier', sim));
      token = lastLine(await admin('create-token', ACCOUNT));
      smppPort = await freePort();
      serve = await startServeProcess(created.env, {
        YONA_CARRIERS_FILE: '',
        YONA_SMPP_PORT: String(smppPort),
        YONA_SMPP_HOST: '127.0.0.1',
      });
    });
    after(async () => {
      await serve?.stop();
      await sim?.stop();
      await waitForNoBackends(created?.env.DATABASE_URL);
      await created?.cleanup();
    });

    for (const [binds, prefix] of [
      ['transceiver', '05212301'],
      ['transmitter-receiver', '05212302'],
    ] as const) {
      it(`${binds}: GSM-7, Hebrew UCS-2 and 3 parts reach the carrier, charged as the API charges, each with a delivered dlr-url`, async () => {
        const kannel: KannelEsme = await kannelFor(binds);
        try {
          await kannel.waitOnline();
          const start = await balance();
          const tags: string[] = [];
          for (const [i, send] of TEXTS.entries()) {
            const sent = await kannel.send({ from: 'Yona', to: `${prefix}${i}7`, ...send });
            assert.equal(sent.status, 202, sent.body);
            tags.push(sent.tag);
          }
          for (const tag of tags) {
            const dlr = await kannel.waitForDlr(tag, DLR.DELIVERED, 30_000);
            assert.match(dlr.reply, /stat:DELIVRD/);
          }
          // The carrier sees the number in international form (972...).
          const all = await sim.messages();
          const received = TEXTS.map((_, i) => all.filter((m) => m.destination.endsWith(`${prefix}${i}7`.slice(1))));
          assert.deepEqual(
            received.map((list) => list.map((m) => [m.text, m.parts])),
            [[[TEXTS[0].text, 1]], [[HEBREW, 1]], [[LONG, 3]]],
          );
          assert.equal(received[1][0].dataCoding, 8, 'Hebrew as UCS-2');
          const afterSmpp = await balance();
          assert.ok(afterSmpp < start, `charged: ${start} -> ${afterSmpp}`);
          // The same texts through the API cost the same.
          for (const [i, send] of TEXTS.entries()) {
            const reply = await api('sms', {
              source: 'Yona',
              destinations: { phone: [{ _: `${prefix}${i}8` }] },
              message: send.text,
            });
            assert.equal(reply.status, 0, JSON.stringify(reply));
          }
          assert.equal(start - afterSmpp, afterSmpp - (await balance()), 'SMPP and the API charge alike');
          assert.equal(kannel.dlrs().filter((d) => tags.includes(d.tag)).length, 3, 'one callback per message');
        } finally {
          await kannel.stop();
        }
      });
    }

    it('refuses an unverified sender at submit_sm_resp: Kannel reports the reject, nothing sent or charged', async () => {
      const kannel = await kannelFor('transceiver');
      try {
        await kannel.waitOnline();
        const start = await balance();
        const sent = await kannel.send({ from: 'Stranger', to: '0521230397', text: 'from an unverified sender' });
        assert.equal(sent.status, 202, sent.body);
        const dlr = await kannel.waitForDlr(sent.tag, undefined, 30_000);
        assert.equal(dlr.type, DLR.SMSC_REJECTED, JSON.stringify(dlr));
        assert.match(dlr.reply, /^NACK\/0x[0-9a-f]{8}\//);
        assert.doesNotMatch(dlr.reply, /^NACK\/0x00000000\//);
        assert.deepEqual(
          (await sim.messages()).filter((m) => m.destination.endsWith('521230397')),
          [],
        );
        assert.equal(await balance(), start, 'nothing charged');
      } finally {
        await kannel.stop();
      }
    });

    it('refuses a wrong password at bind', async () => {
      const kannel = await kannelFor('transceiver', 'wrong');
      try {
        const deadline = Date.now() + 15_000;
        while (!/SMSC rejected login/.test(kannel.log())) {
          assert.ok(Date.now() < deadline, `no refused bind in Kannel's log\n${kannel.log().slice(-3000)}`);
          await new Promise((r) => setTimeout(r, 200));
        }
        assert.doesNotMatch(await kannel.status(), /\(online /);
        const sent = await kannel.send({ from: 'Yona', to: '0521230497', text: 'never' });
        assert.equal(sent.status, 403, sent.body);
        assert.deepEqual(
          (await sim.messages()).filter((m) => m.destination.endsWith('521230497')),
          [],
        );
      } finally {
        await kannel.stop();
      }
    });
  });
}

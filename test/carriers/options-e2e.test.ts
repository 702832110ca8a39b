// End to end on every store, with the carrier added by `yona admin add-carrier` and bound by the carriers
// component from the store (the path `yona serve` takes): TLS to a simulator whose certificate a private CA
// signed (--tls-ca, --tls-servername), long messages in message_payload (--long-messages payload), and the
// receipt of such a message (one carrier id for a message billed as several parts) settling its status.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { SmscSimulator } from '../../src/carriers/simulator/index.ts';
import type { Component } from '../../src/service.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { dlrById, eventually, newSender, settleOnClose, type Sender } from '../delivery/delivery-helpers.ts';
import { privatePki, type TestPki } from './tls-helpers.ts';
import { loadConfig } from '../../src/config.ts';

const HEBREW = 'שלום רב! הודעה ארוכה בעברית לספק שמבקש message_payload, בחיבור TLS עם רשות אישורים פרטית. ';

// The carriers component, after `yona admin add-carrier ARGS` ran on the service's store (as an operator
// would before starting yona serve).
function configuredCarriers(addCarrierArgs: string[], printed: string[]): Component {
  const carriers = carriersComponent({ config: loadConfig({}), settings: { pollMs: 20 } });
  return {
    name: 'carriers',
    async start(service) {
      await runAdminCommand(service.store, service.config, ['add-carrier', ...addCarrierArgs], (l) => printed.push(l));
      await runAdminCommand(service.store, service.config, ['carriers'], (l) => printed.push(l));
      await carriers.start(service);
    },
    stop: () => carriers.stop(),
  };
}

const targets = await storeTargets();
for (const target of targets) {
  describe(`carrier options end to end (${target.name})`, () => {
    let pki: TestPki;
    let simulator: SmscSimulator;
    let t: TestService;
    let s: Sender;
    const printed: string[] = [];

    before(async () => {
      pki = await privatePki(['smsc.carrier.test'], false);
      simulator = new SmscSimulator({
        systemId: 'yona',
        password: 'secret',
        receiptDelayMs: 20,
        tls: { key: pki.key, cert: pki.cert },
      });
      const port = await simulator.start();
      t = await startTestService(target, {
        components: [
          configuredCarriers(
            [
              'secure',
              '--host',
              '127.0.0.1',
              '--port',
              String(port),
              '--system-id',
              'yona',
              '--password',
              'secret',
              '--tls',
              '--tls-ca',
              pki.caPath,
              '--tls-servername',
              'smsc.carrier.test',
              '--long-messages',
              'payload',
            ],
            printed,
          ),
        ],
      });
      settleOnClose(t);
      s = await newSender(t, 'payload1', 10_000);
    });
    after(async () => {
      await t.close();
      await simulator.stop();
      pki.cleanup();
    });

    it('add-carrier keeps the TLS trust and long-message settings, and the carrier binds over TLS with them', () => {
      const text = printed.join('\n');
      assert.match(
        text,
        /added carrier secure: 127\.0\.0\.1:\d+ \(TLS, CA .*carrier-ca\.pem, certificate name smsc\.carrier\.test\), .*long messages in message_payload/,
      );
      assert.match(text, /carrier secure: .*\(TLS, CA .*long messages in message_payload/);
      assert.equal(simulator.stats().binds, 1);
    });

    it('add-carrier refuses an unknown long-message mode, TLS options without --tls, and an unreadable CA bundle', async () => {
      const base = ['add-carrier', 'other', '--host', 'h', '--port', '2775', '--system-id', 's', '--password', 'p'];
      await assert.rejects(
        t.admin(...base, '--long-messages', 'split'),
        /--long-messages must be udh or payload, got "split"/,
      );
      await assert.rejects(t.admin(...base, '--tls-ca', pki.caPath), /--tls-ca and --tls-servername need --tls/);
      await assert.rejects(
        t.admin(...base, '--tls', '--tls-ca', `${pki.dir}/nope.pem`),
        /cannot read CA bundle .*nope\.pem: ENOENT/,
      );
      assert.ok(!(await t.admin('carriers')).join('\n').includes('other'), 'nothing was stored');
    });

    it('a long Hebrew message goes as one message_payload submit_sm; its receipt settles every recipient', async () => {
      const text = HEBREW.repeat(3);
      const phones = { '0521113339': 102, '0521110015': 15 };
      const reply = await s.sms({
        destinations: { phone: Object.keys(phones).map((p) => ({ $: { id: `pl-${p}` }, _: p })) },
        message: text,
      });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      assert.ok(reply.parts > 1, 'billed as several parts');
      const reports = await eventually(
        async () => {
          const r = await dlrById(
            s,
            Object.keys(phones).map((p) => `pl-${p}`),
          );
          return Object.entries(phones).every(([p, st]) => r.get(`pl-${p}`)?.status === String(st)) ? r : undefined;
        },
        8000,
        'the mapped status of both recipients',
      );
      assert.equal(reports.size, 2);
      for (const phone of Object.keys(phones)) {
        const received = simulator.messages({ to: `972${phone.slice(1)}` });
        assert.deepEqual(
          received.map((m) => [m.text, m.parts, m.dataCoding, m.messagePayload]),
          [[text, 1, 8, true]],
        );
      }
      assert.equal(simulator.stats().submitsReceived, 2, 'one submit_sm per recipient');
      const rows = await t.service.store.db
        .selectFrom('messages')
        .innerJoin('carrier_message_ids as c', 'c.message_id', 'messages.id')
        .select(['messages.parts', 'messages.status', 'c.part_index', 'c.part_status'])
        .where('messages.campaign_id', '=', reply.campaign_id)
        .orderBy('messages.id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [Number(r.parts), Number(r.status), Number(r.part_index), Number(r.part_status)]),
        [
          [reply.parts, 102, 0, 102],
          [reply.parts, 15, 0, 15],
        ],
      );
    });
  });
}

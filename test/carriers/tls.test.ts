// TLS to a carrier with a private CA, configured the way `yona serve` reads it (YONA_CARRIERS_FILE), over real
// TLS on loopback: binds with tlsCa, verifies the name (tlsServername), and without the CA fails with a clear
// logged error and keeps retrying. Also `yona smsc-sim --tls` and the settings' validation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCarriersFile } from '../../src/delivery/carrier-setup.ts';
import { SmscSimulator } from '../../src/carriers/simulator/index.ts';
import { SmppCarrier, type SmppCarrierConfig } from '../../src/carriers/smpp/connector.ts';
import type { Receipt } from '../../src/carriers/types.ts';
import { runSmscSim } from '../../src/cli/sim.ts';
import { sms, waitFor } from './helpers.ts';
import { capturingLogger, privatePki, type TestPki } from './tls-helpers.ts';

const TIMERS = {
  enquireLinkMs: 1000,
  responseTimeoutMs: 300,
  reconnectBaseMs: 50,
  reconnectMaxMs: 200,
  queueTimeoutMs: 300,
};

// Writes a carriers file for one carrier and reads it back as `yona serve` does.
function carrierFromFile(dir: string, carrier: Record<string, unknown>) {
  const file = join(dir, `carriers-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      carriers: [{ name: 'secure', host: '127.0.0.1', systemId: 'yona', password: 'secret', ...TIMERS, ...carrier }],
    }),
  );
  return readCarriersFile(file).carriers[0] as SmppCarrierConfig;
}

// A carrier built from the file's settings, as the carriers component builds it, logging into `log`.
async function startCarrier(dir: string, carrier: Record<string, unknown>) {
  const log = capturingLogger();
  const smpp = new SmppCarrier({ ...carrierFromFile(dir, carrier), logger: log });
  const receipts: Receipt[] = [];
  smpp.onReceipt((r) => void receipts.push(r));
  await smpp.start();
  return { smpp, log, receipts };
}

const tlsErrors = (log: ReturnType<typeof capturingLogger>) =>
  log.entries.filter((e) => e.level === 'error' && /TLS handshake failed/.test(e.msg ?? ''));

describe('TLS with a private CA', () => {
  let pki: TestPki;
  let simulator: SmscSimulator;
  let port: number;
  before(async () => {
    pki = await privatePki(['smsc.carrier.test'], false);
    simulator = new SmscSimulator({
      systemId: 'yona',
      password: 'secret',
      receiptDelayMs: 10,
      tls: { key: pki.key, cert: pki.cert },
    });
    port = await simulator.start();
  });
  after(async () => {
    await simulator.stop();
    pki.cleanup();
  });

  it('binds with tlsCa (relative to the carriers file) and tlsServername, submits and gets the receipt', async () => {
    const { smpp, receipts } = await startCarrier(pki.dir, {
      port,
      tls: true,
      tlsCa: 'carrier-ca.pem',
      tlsServername: 'smsc.carrier.test',
    });
    try {
      assert.equal(smpp.stats().bound, 1);
      const r = await smpp.submit(sms('972501116666', 'over TLS, private CA'));
      assert.ok(r.ok, JSON.stringify(r));
      await waitFor(() => receipts.some((x) => x.carrierMessageId === r.carrierMessageIds[0]), 2000, 'the receipt');
      assert.equal(receipts[0].status, 102);
      assert.equal(simulator.messages({ to: '972501116666' })[0].text, 'over TLS, private CA');
    } finally {
      await smpp.stop();
    }
  });

  it('without the CA the bind fails with a logged error naming the fix, is retried, and nothing crashes', async () => {
    const binds = simulator.stats().binds;
    const { smpp, log } = await startCarrier(pki.dir, { port, tls: true, tlsServername: 'smsc.carrier.test' });
    try {
      assert.equal(smpp.stats().bound, 0);
      await waitFor(() => tlsErrors(log).length >= 3, 3000, 'three failed handshakes (retries)');
      const [first] = tlsErrors(log);
      assert.equal(first.obj.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      assert.match(String(first.obj.hint), /set tlsCa \(--tls-ca\) to the carrier's CA bundle/);
      assert.equal(first.obj.address, `127.0.0.1:${port}`);
      const r = await smpp.submit(sms('972501116667', 'never sent'));
      assert.deepEqual([r.ok, !r.ok && r.transient], [false, true]);
      assert.equal(simulator.stats().binds, binds, 'no bind reached the simulator');
    } finally {
      await smpp.stop();
    }
  });

  it('with the CA but the wrong name, the certificate name check fails and says to set tlsServername', async () => {
    const { smpp, log } = await startCarrier(pki.dir, { port, tls: true, tlsCa: pki.caPath });
    try {
      await waitFor(() => tlsErrors(log).length >= 1, 2000, 'a failed handshake');
      assert.equal(smpp.stats().bound, 0);
      assert.equal(tlsErrors(log)[0].obj.code, 'ERR_TLS_CERT_ALTNAME_INVALID');
      assert.match(String(tlsErrors(log)[0].obj.hint), /tlsServername/);
    } finally {
      await smpp.stop();
    }
  });
});

describe('carrier TLS settings are checked when read', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'yona-tls-conf-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('names a missing or non-PEM CA bundle, tlsCa without tls, and snake_case keys', () => {
    assert.throws(
      () => carrierFromFile(dir, { port: 1, tls: true, tlsCa: 'missing.pem' }),
      /carrier "secure": cannot read CA bundle .*missing\.pem: ENOENT/,
    );
    writeFileSync(join(dir, 'junk.pem'), 'not a certificate');
    assert.throws(() => carrierFromFile(dir, { port: 1, tls: true, tlsCa: 'junk.pem' }), /holds no PEM certificate/);
    assert.throws(
      () => carrierFromFile(dir, { port: 1, tlsServername: 'x.test' }),
      /tlsCa and tlsServername need tls on/,
    );
    assert.throws(
      () => carrierFromFile(dir, { port: 1, tls: true, tls_ca: 'ca.pem' }),
      /tls_ca.*keys are camelCase, e\.g\. tlsCa/,
    );
  });
});

describe('yona smsc-sim --tls', () => {
  it('serves SMPP over TLS with a self-signed certificate that a carrier trusts through tlsCa', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'yona-smsc-sim-'));
    const previous = process.env.YONA_DATA_DIR;
    process.env.YONA_DATA_DIR = dataDir;
    const lines: string[] = [];
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const running = runSmscSim(
      ['--port', '0', '--control-port', '0', '--tls', '--receipt-delay', '10'],
      (l) => lines.push(l),
      stopped,
    );
    try {
      await waitFor(() => lines.length >= 2, 5000, 'the simulator to listen');
      const port = Number(/over TLS on 127\.0\.0\.1:(\d+)/.exec(lines[0])?.[1]);
      const certPath = /"tlsCa": "([^"]+)"/.exec(lines[1])?.[1];
      assert.ok(port > 0 && certPath?.startsWith(dataDir), lines.join('\n'));
      const { smpp, receipts } = await startCarrier(dataDir, { port, tls: true, tlsCa: certPath });
      try {
        assert.equal(smpp.stats().bound, 1);
        const r = await smpp.submit(sms('972501117777', 'self-signed simulator'));
        assert.ok(r.ok);
        await waitFor(() => receipts.length === 1, 2000, 'the receipt');
      } finally {
        await smpp.stop();
      }
    } finally {
      stop();
      await running;
      if (previous === undefined) delete process.env.YONA_DATA_DIR;
      else process.env.YONA_DATA_DIR = previous;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

// Carrier configuration on every store: yona admin add-carrier / add-route / add-number / carriers (passwords
// never printed), YONA_CARRIERS_FILE merged with the store, and routing by the longest destination prefix.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sealingKey } from '../../src/secret-key.ts';
import { loadCarrierSetup, readCarriersFile } from '../../src/delivery/carrier-setup.ts';
import { normalizeNumber, Router } from '../../src/delivery/routing.ts';
import { findNumberOwner } from '../../src/store/carriers.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { settleOnClose } from './delivery-helpers.ts';

describe('routing and numbers', () => {
  it('picks the longest matching prefix, then the default route, then the first carrier', () => {
    const router = new Router(
      [
        { prefix: '972', carrier: 'il' },
        { prefix: '97254', carrier: 'partner' },
        { prefix: '', carrier: 'world' },
      ],
      ['il', 'partner', 'world'],
    );
    assert.deepEqual(
      ['972541234567', '972521234567', '14155550100'].map((d) => router.pick(d)),
      ['partner', 'il', 'world'],
    );
    assert.equal(new Router([{ prefix: '97254', carrier: 'b' }], ['a', 'b']).pick('972521234567'), 'a');
    assert.throws(() => new Router([{ prefix: '972', carrier: 'ghost' }], ['a']), /not configured/);
  });
  it('splits a weighted route within half a point of its weights, whatever the spacing of the message ids', () => {
    const router = new Router([{ prefix: '', carrier: 'a:70,b:30' }], ['a', 'b']);
    for (const stride of [1, 2, 3, 7, 10, 55, 89, 144, 1000]) {
      for (const start of [1, 12_345, 9_999_999]) {
        let onA = 0;
        for (let i = 0; i < 10_000; i++)
          if (router.candidates({ phone: '972501234567', key: start + i * stride })[0] === 'a') onA++;
        assert.ok(Math.abs(onA / 10_000 - 0.7) <= 0.005, `ids ${start}+${stride}k: ${onA} of 10000 on a`);
      }
    }
    const again = router.candidates({ phone: '972501234567', key: 42 });
    assert.deepEqual(router.candidates({ phone: '972501234567', key: 42 }), again, 'a message always draws the same');
  });
  it('keeps inbound numbers in one form', () => {
    assert.deepEqual(['0559990000', '972559990000', '+972-55-999-0000', '4545'].map(normalizeNumber), [
      '972559990000',
      '972559990000',
      '972559990000',
      '4545',
    ]);
  });
  it('reads a carriers file and names what is wrong in a bad one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'yona-carriers-'));
    try {
      const file = join(dir, 'carriers.json');
      writeFileSync(
        file,
        JSON.stringify({
          carriers: [{ name: 'a', host: 'h', port: 2775, systemId: 's', password: 'p' }],
          routes: { default: 'a', '+97250': 'a' },
        }),
      );
      const setup = readCarriersFile(file);
      assert.deepEqual(
        [
          setup.carriers[0].bindMode,
          setup.carriers[0].binds,
          setup.carriers[0].windowSize,
          setup.carriers[0].enquireLinkMs,
        ],
        ['transceiver', 1, 10, 30_000],
      );
      assert.deepEqual(setup.routes, [
        { prefix: '', carrier: 'a' },
        { prefix: '97250', carrier: 'a' },
      ]);
      writeFileSync(file, JSON.stringify({ carriers: [{ name: 'a', host: 'h', port: 'x' }] }));
      assert.throws(() => readCarriersFile(file), /carriers\.0\.port/);
      const capped = {
        name: 'a',
        host: 'h',
        port: 2775,
        systemId: 's',
        password: 'p',
        dailyCap: 5000,
        costPerPart: 2.75,
      };
      writeFileSync(file, JSON.stringify({ carriers: [capped] }));
      assert.deepEqual(
        [readCarriersFile(file).carriers[0].dailyCap, readCarriersFile(file).carriers[0].costPerPart],
        [5000, 2.75],
      );
      writeFileSync(file, JSON.stringify({ carriers: [{ ...capped, dailyCap: 0 }] }));
      assert.throws(() => readCarriersFile(file), /carriers\.0\.dailyCap/);
      writeFileSync(file, JSON.stringify({ carriers: [{ ...capped, costPerPart: 1.2345 }] }));
      assert.throws(() => readCarriersFile(file), /carriers\.0\.costPerPart: at most three decimals/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const targets = await storeTargets();
for (const target of targets) {
  describe(`carrier admin commands (${target.name})`, () => {
    let t: TestService;
    before(async () => {
      t = await startTestService(target);
      settleOnClose(t);
    });
    after(() => t.close());

    it('add-carrier stores a carrier (updating it by name) and never prints its password', async () => {
      const out = await t.admin(
        'add-carrier',
        'partner',
        '--host',
        'smpp.example.net',
        '--port',
        '2775',
        '--system-id',
        'yona',
        '--password',
        'pw-1234',
        '--bind',
        'tx+rx',
        '--binds',
        '2',
        '--window',
        '50',
        '--max-tps',
        '200',
        '--tls',
      );
      assert.match(
        out.join('\n'),
        /added carrier partner: smpp\.example\.net:2775 \(TLS\), system_id yona, tx\+rx x2, window 50, 200 submits\/s/,
      );
      await t.admin(
        'add-carrier',
        'partner',
        '--host',
        'smpp2.example.net',
        '--port',
        '2776',
        '--system-id',
        'yona',
        '--password',
        'pw-5678',
      );
      const listed = await t.admin('carriers');
      assert.match(listed.join('\n'), /carrier partner: smpp2\.example\.net:2776, system_id yona, transceiver x1/);
      assert.ok(![...out, ...listed].join('\n').includes('pw-'), 'passwords are never printed');
      const setup = await loadCarrierSetup(t.service.store.db, undefined, () => sealingKey(t.config));
      assert.deepEqual(
        setup.carriers.map((c) => [c.name, c.host, c.port, c.password]),
        [['partner', 'smpp2.example.net', 2776, 'pw-5678']],
      );
      await assert.rejects(
        t.admin('add-carrier', 'x', '--host', 'h', '--port', '99999', '--system-id', 's', '--password', 'p'),
        /--port/,
      );
      await assert.rejects(t.admin('add-carrier', 'x', '--host', 'h'), /usage/);
      const sim = ['--host', 'h', '--port', '2775', '--system-id', 's', '--password', 'p'];
      await assert.rejects(
        t.admin('add-carrier', 'x', ...sim, '--daily-cap', '0'),
        /--daily-cap must be a whole number/,
      );
      await assert.rejects(
        t.admin('add-carrier', 'x', ...sim, '--cost-per-part', '2,5'),
        /--cost-per-part must be agorot/,
      );
      await assert.rejects(
        t.admin('add-carrier', 'x', ...sim, '--daily-cpa', '5'),
        /unknown option --daily-cpa; did you mean "--daily-cap"/,
      );
      const capped = await t.admin('add-carrier', 'capped', ...sim, '--daily-cap', '5000', '--cost-per-part', '2.75');
      assert.match(capped.join('\n'), /added carrier capped: h:2775, .*, daily cap 5000 parts, 2\.75 agorot per part/);
      assert.match(
        (await t.admin('carriers')).join('\n'),
        /carrier capped: .*daily cap 5000 parts, 2\.75 agorot per part; today 0 of 5000 parts \(\d{4}-\d\d-\d\d\)/,
      );
      await t.admin('remove-carrier', 'capped');
    });

    it('add-route routes a prefix (or default) to a known carrier only', async () => {
      assert.match((await t.admin('add-route', '97254', 'partner')).join(''), /destinations starting 97254 -> partner/);
      assert.match((await t.admin('add-route', 'default', 'partner')).join(''), /default route -> partner/);
      await assert.rejects(t.admin('add-route', '97250', 'nobody'), /no carrier named "nobody"/);
      await assert.rejects(t.admin('add-route', '05x', 'partner'), /PREFIX/);
      const setup = await loadCarrierSetup(t.service.store.db, undefined, () => sealingKey(t.config));
      assert.deepEqual(setup.routes, [
        { prefix: '', carrier: 'partner' },
        { prefix: '97254', carrier: 'partner' },
      ]);
    });

    it('add-number gives an account an inbound number, once', async () => {
      await t.admin('create-account', 'numbers1', '--password', 'secret-pw');
      await t.admin('create-account', 'numbers2', '--password', 'secret-pw');
      assert.match(
        (await t.admin('add-number', 'numbers1', '055-999-1234')).join(''),
        /inbound SMS to 972559991234 go to numbers1/,
      );
      assert.ok(await findNumberOwner(t.service.store.db, '972559991234'));
      await assert.rejects(t.admin('add-number', 'numbers2', '0559991234'), /already belongs to another account/);
      await assert.rejects(t.admin('add-number', 'nobody', '0559991234'), /no account named/);
    });
  });
}

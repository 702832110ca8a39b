// The JSON lines of a real `yona serve` an operator's tools parse: each key once in a line (JSON.parse keeps
// the last of a repeated key, so a repeat hides a value), here with a carrier that cannot bind (the lines about
// it carry its name) and a send waiting for it; and a shutdown that says its carriers stopped, not that they
// were removed from the configuration.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { duplicateKeys } from '../helpers/json-keys.ts';
import { waitFor } from '../helpers/push-receiver.ts';
import { lastLine, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';

// A loopback port nothing listens on.
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

for (const target of await storeTargets()) {
  describe(`log lines of yona serve (${target.name})`, () => {
    let store: Awaited<ReturnType<typeof target.create>>;
    let serve: ServeProcess;
    const json = () =>
      serve
        .logs()
        .split('\n')
        .filter((l) => l.startsWith('{'));

    before(async () => {
      store = await target.create();
      const carriersFile = join(store.env.YONA_DATA_DIR, 'carriers.json');
      const carrier = {
        name: 'unreachable',
        host: '127.0.0.1',
        port: await closedPort(),
        systemId: 'yona',
        password: 'secret',
        reconnectBaseMs: 100,
        reconnectMaxMs: 200,
        responseTimeoutMs: 1000,
      };
      writeFileSync(carriersFile, JSON.stringify({ carriers: [carrier] }));
      serve = await startServeProcess(store.env, { YONA_CARRIERS_FILE: carriersFile, YONA_LOG_LEVEL: 'debug' });
    });
    after(async () => {
      await serve?.stop();
      await store?.cleanup();
    });

    it('writes each key once in a line, and a shutdown that stops its carriers without removing them', async () => {
      assert.equal(
        (await serve.cli('admin', 'create-account', 'keys', '--password', 'Keys-pw-1', '--credits', '10')).status,
        0,
      );
      assert.equal((await serve.cli('admin', 'verify-sender', 'keys', 'Yona')).status, 0);
      const token = lastLine(await serve.cli('admin', 'create-token', 'keys'));
      const res = await request(`http://127.0.0.1:${serve.httpPort}/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          sms: { user: { username: 'keys' }, source: 'Yona', message: 'waits', destinations: { phone: '0521234567' } },
        }),
      });
      assert.equal(((await res.body.json()) as { status: number }).status, 0);
      await waitFor(
        () => json().some((l) => l.includes('carrier not bound yet')),
        'the line saying the carrier is not bound',
      );
      assert.equal(await serve.stop(), 0);

      const lines = json();
      const repeats = lines.flatMap((l) => duplicateKeys(l).map((key) => `${key} in ${l}`));
      assert.deepEqual(repeats, []);
      const notBound = JSON.parse(lines.find((l) => l.includes('carrier not bound yet'))!);
      assert.equal(notBound.carrier, 'unreachable');
      assert.deepEqual(
        lines.filter((l) => l.includes('removed or changed')),
        [],
      );
      const stopped = lines.filter((l) => l.includes('"msg":"carrier stopped"')).map((l) => JSON.parse(l).carrier);
      assert.deepEqual(stopped, ['unreachable']);
    });
  });
}

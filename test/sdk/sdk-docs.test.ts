// docs/sdk.md runs: its TypeScript blocks, joined in order into one program importing the SDK from sdk/src, run
// with tsx against a live server (the SMPP simulator delivers, the pusher signs) on an account set up as the page
// says; what the program prints must show the idempotent retry, the delivered report, the refusal and a verified
// push, and its receiver must refuse a push whose body was changed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, it } from 'node:test';
import { request } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { createPusher } from '../../src/delivery/pusher.ts';
import { startDelivery, type DeliveryHarness } from '../delivery/delivery-helpers.ts';
import { waitFor } from '../helpers/push-receiver.ts';
import { docsProgram } from './docs-program.ts';
import { storeTargets } from '../helpers/stores.ts';

const ROOT = join(import.meta.dirname, '../..');
const ENV = { YONA_PUSH_ALLOW_PRIVATE: '1', YONA_PUSH_RETRY_BASE_MS: '20', YONA_PUSH_POLL_MS: '20' };

/** A loopback port free now, for the program's push receiver. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let h: DeliveryHarness;
let env: Record<string, string>;
let dir: string;
before(async () => {
  h = await startDelivery((await storeTargets())[0], {
    env: ENV,
    components: [createPusher({ config: loadConfig(ENV) })],
  });
  await h.t.admin('create-account', 'acme', '--password', 'secret-pw', '--credits', '100');
  await h.t.admin('verify-sender', 'acme', 'Acme');
  const token = (await h.t.admin('create-token', 'acme')).at(-1)!;
  const secret = (await h.t.admin('push', 'secret', 'acme')).at(-1)!;
  const port = await freePort();
  env = {
    YONA_URL: h.t.httpUrl,
    YONA_TOKEN: token,
    YONA_PUSH_SECRET: secret,
    PORT: String(port),
    PUSH_URL: `http://127.0.0.1:${port}/yona`,
  };
  dir = mkdtempSync(join(tmpdir(), 'yona-sdk-docs-'));
});
after(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('the examples of docs/sdk.md run against a live server', async () => {
  const file = join(dir, 'sdk-docs.mts');
  writeFileSync(file, docsProgram(pathToFileURL(join(ROOT, 'sdk/src/index.ts')).href));
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let exited: number | null | undefined;
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  child.on('exit', (code) => (exited = code));
  try {
    await waitFor(
      () => exited !== undefined || (/^refused:/m.test(out) && /^verified push:/m.test(out)),
      'the program to print its outcomes',
      60_000,
    );
    assert.equal(exited, undefined, `the program stopped:\n${out}`);
    const campaign = /^campaign (\d+) retried (\d+) credits (\d+)$/m.exec(out);
    assert.ok(campaign, out);
    assert.equal(campaign[1], campaign[2], 'the retry answered the first campaign');
    assert.match(out, /^report 102 \d\d\/\d\d\/\d\d \d\d:\d\d:\d\d$/m);
    assert.match(out, /^refused: 515 Unverified source: "Unverified" \(source\) is not a verified sender/m);
    assert.match(out, /^verified push: order-1001 102$/m);
    const { credits } = await h.t.service.store.db
      .selectFrom('accounts')
      .select('credits')
      .where('username', '=', 'acme')
      .executeTakeFirstOrThrow();
    assert.equal(Number(credits), 100 - Number(campaign[3]), 'charged once');

    const res = await request(env.PUSH_URL, {
      method: 'POST',
      headers: { 'x-yona-timestamp': String(Math.floor(Date.now() / 1000)), 'x-yona-signature': 'v1=00' },
      body: 'external_id=order-1001&status=102',
    });
    assert.equal(res.statusCode, 401, 'an unsigned push is refused');
    await res.body.dump();
  } finally {
    child.kill();
  }
});

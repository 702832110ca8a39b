// The README's quick start, as written there: its second shell block (account, verified sender, token, one SMS,
// the simulator's listing) is read out of README.md and run by bash in the folder of a running `yona serve` on
// the embedded store, with `npx yona` as the package's bin and the README's ports replaced by the server's. The
// SMS must be accepted and the simulator must list it delivered.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startServeProcess } from '../helpers/serve-process.ts';

const root = join(import.meta.dirname, '../..');

/** The shell blocks of the README's "Quick start" section, in order. */
function quickStartBlocks(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Quick start'));
  assert.ok(section, 'README.md has a Quick start section');
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

describe('README quick start', () => {
  const folder = mkdtempSync(join(tmpdir(), 'yona-readme-'));
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('creates an account, a verified sender and a token, and its first SMS is delivered', async () => {
    const blocks = quickStartBlocks();
    assert.equal(blocks.length, 2, 'the install block and the first-SMS block');
    assert.match(blocks[0], /npm install && npm start/);
    const commands = blocks[1]
      .replace(/\\\n/g, ' ')
      .split('\n')
      .filter((l) => l.trim() !== '');
    assert.equal(commands.at(-1)?.split('#')[0].trim(), 'npx yona sim messages');

    // `npm start` in the folder: the default data dir ./data, here with HOME in the folder too.
    const serve = await startServeProcess({ YONA_DATA_DIR: join(folder, 'data'), HOME: folder });
    try {
      const env = { ...process.env, HOME: folder, YONA_DATA_DIR: '', DATABASE_URL: '' };
      const prelude = [
        'set -euo pipefail',
        `npx() { if [ "$1" = yona ]; then shift; node ${JSON.stringify(join(root, 'bin/yona.js'))} "$@"; else command npx "$@"; fi; }`,
      ];
      const onPorts = (line: string) =>
        line
          .replaceAll('localhost:8443', `localhost:${serve.httpsPort}`)
          .replaceAll('127.0.0.1:8080', `127.0.0.1:${serve.httpPort}`);
      const run = (lines: string[]) =>
        spawnSync('bash', ['-c', [...prelude, ...lines.map(onPorts)].join('\n')], {
          cwd: folder,
          env,
          encoding: 'utf8',
        });

      const sent = run(commands.slice(0, -1));
      assert.equal(sent.status, 0, sent.stderr);
      assert.match(sent.stdout, /created account alice with 100 credits/);
      assert.match(sent.stdout, /Yona is a verified sender of alice/);
      const reply = JSON.parse(sent.stdout.trim().split('\n').at(-1)!);
      assert.equal(reply.status, 0, JSON.stringify(reply));

      // The last command again until the receipt has gone out (the README says to run it again).
      let listing = '';
      for (let i = 0; i < 100 && !/delivered/.test(listing); i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 200));
        const shown = run(commands.slice(-1));
        assert.equal(shown.status, 0, shown.stderr);
        listing = shown.stdout;
      }
      assert.match(listing, /to 972521234567 +from Yona +1 part +delivered \(receipt DELIVRD\)\n +Hello from Yona/);
      // Its time is the operator's, with the offset.
      assert.match(listing, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d {2}to /);
    } finally {
      await serve.stop();
    }
  });
});

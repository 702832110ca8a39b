// `yona admin` works on the store the server uses and never invents one: run elsewhere with no store named, it
// refuses (naming the place, --data-dir and YONA_DATA_DIR) and creates nothing; --new-store creates one on
// request; with a `yona serve` running it finds that server's store from any folder and says which it used.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startServeProcess, type CliRun } from '../helpers/serve-process.ts';

const bin = join(import.meta.dirname, '../../bin/yona.js');
const scratch = mkdtempSync(join(tmpdir(), 'yona-store-location-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// `yona ARGS...` from `cwd`, with HOME there too (so no server of another test is found) and no store named.
function yonaIn(cwd: string, args: string[], extra: Record<string, string> = {}): Promise<CliRun> {
  const env = { ...process.env, HOME: cwd, YONA_DATA_DIR: '', DATABASE_URL: '', ...extra };
  const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr })));
}

describe('yona admin: one store, found, never invented', () => {
  it('refuses to create a store where none exists, naming the place and how to point at the right one', async () => {
    const cwd = mkdtempSync(join(scratch, 'elsewhere-'));
    const run = await yonaIn(cwd, ['admin', 'create-account', 'alice', '--password', 's3cret-pw']);
    assert.equal(run.status, 2, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, new RegExp(`no store at ${join(cwd, 'data', 'yona.db')}`));
    assert.match(run.stderr, /--data-dir DIR or YONA_DATA_DIR=DIR/);
    assert.match(run.stderr, /--new-store/);
    assert.equal(existsSync(join(cwd, 'data')), false, 'nothing is created');

    const named = await yonaIn(cwd, ['admin', 'ledger', 'alice'], { YONA_DATA_DIR: join(cwd, 'nowhere') });
    assert.equal(named.status, 2);
    assert.match(named.stderr, /no store at .*nowhere\/yona\.db \(YONA_DATA_DIR\)/);
    assert.equal(existsSync(join(cwd, 'nowhere')), false);
  });

  it('creates a new store only when asked, and says so', async () => {
    const cwd = mkdtempSync(join(scratch, 'new-'));
    const dir = join(cwd, 'fresh');
    const created = await yonaIn(cwd, [
      'admin',
      'create-account',
      'alice',
      '--password',
      's3cret-pw',
      '--new-store',
      '--data-dir',
      dir,
    ]);
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /created account alice/);
    assert.equal(created.stderr, `yona: store (new) ${join(dir, 'yona.db')} (--data-dir)\n`);
    const again = await yonaIn(cwd, ['admin', 'ledger', 'alice', `--data-dir=${dir}`]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /alice: 0 credits/);
    assert.equal(again.stderr, `yona: store ${join(dir, 'yona.db')} (--data-dir)\n`);
  });

  it('finds the running server’s store from another folder and names it in a missing-account error', async () => {
    const home = mkdtempSync(join(scratch, 'home-'));
    const dataDir = join(home, 'server-data');
    const serve = await startServeProcess({ YONA_DATA_DIR: dataDir, HOME: home });
    try {
      const cwd = mkdtempSync(join(scratch, 'cwd-'));
      const created = await yonaIn(cwd, ['admin', 'create-account', 'bob', '--password', 's3cret-pw'], { HOME: home });
      assert.equal(created.status, 0, created.stderr);
      assert.match(
        created.stderr,
        new RegExp(`store ${join(dataDir, 'yona.db')} \\(the store of the running yona serve, pid \\d+\\)`),
      );
      assert.equal(existsSync(join(cwd, 'data')), false);
      const missing = await yonaIn(cwd, ['admin', 'ledger', 'nobody'], { HOME: home });
      assert.equal(missing.status, 2);
      assert.match(missing.stderr, new RegExp(`no account named "nobody" in the store ${join(dataDir, 'yona.db')}`));
    } finally {
      assert.equal(await serve.stop(), 0);
    }
    const cwd = mkdtempSync(join(scratch, 'after-'));
    const stopped = await yonaIn(cwd, ['admin', 'ledger', 'bob'], { HOME: home });
    assert.equal(stopped.status, 2, 'a stopped server is no longer found');
  });
});

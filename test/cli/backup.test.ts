// `yona admin backup FILE` while a campaign dispatches and sends keep coming: the copy is checked, and restored
// into a fresh data dir it holds every send accepted before the backup began, with all its messages, and every
// account's balance equals its ledger. A restore into the data dir of a running server is refused; on
// PostgreSQL both commands explain pg_dump and pg_restore and change nothing.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { Agent, request } from 'undici';
import { lastLine, runCli, startServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';

const scratch = mkdtempSync(join(tmpdir(), 'yona-backup-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('backup and restore of the embedded store', () => {
  it('backs up during a running campaign; the restored copy holds every accepted send and balanced ledgers', async () => {
    const dataDir = mkdtempSync(join(scratch, 'live-'));
    let acceptedBefore: Array<{ id: number; recipients: number }> = [];
    const server = await startServeProcess({ YONA_DATA_DIR: dataDir }, { YONA_SIM_RECEIPT_DELAY_MS: '50' });
    try {
      assert.equal(
        (await server.cli('admin', 'create-account', 'shop', '--password', 's3cret-pw', '--credits', '200000')).status,
        0,
      );
      assert.equal((await server.cli('admin', 'verify-sender', 'shop', 'Shop')).status, 0);
      const token = lastLine(await server.cli('admin', 'create-token', 'shop'));
      const agent = new Agent({ connections: 16 });
      const send = async (phones: string[]) => {
        const res = await request(`http://127.0.0.1:${server.httpPort}/api`, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            sms: { user: { username: 'shop' }, source: 'Shop', message: 'Sale today', destinations: { phone: phones } },
          }),
        });
        const reply = (await res.body.json()) as { status: number; campaign_id: number };
        assert.equal(reply.status, 0, JSON.stringify(reply));
        return { id: reply.campaign_id, recipients: phones.length };
      };
      // A campaign of 5,000 to dispatch, then single sends while the backup runs.
      const big = await send(Array.from({ length: 5000 }, (_, i) => `05${String(20000000 + i).padStart(8, '0')}`));
      const accepted = [big];
      let sending = true;
      const loop = (async () => {
        for (let i = 0; sending; i++) accepted.push(await send([`0541${String(i).padStart(6, '0')}`]));
      })();
      while (accepted.length < 20) await new Promise((r) => setTimeout(r, 50));
      acceptedBefore = [...accepted];
      const file = join(scratch, 'yona-backup.db');
      const backup = await server.cli('admin', 'backup', file);
      sending = false;
      await loop;
      assert.equal(backup.status, 0, backup.stderr);
      assert.match(backup.stdout, /integrity ok/);
      assert.match(backup.stdout, /secret key/);
      assert.ok(existsSync(file));

      // Restoring into the running server's data dir is refused, and changes nothing.
      const refused = await server.cli('admin', 'restore', file);
      assert.equal(refused.status, 2);
      assert.match(refused.stderr, /a yona serve \(pid \d+\) runs on .*: stop it before restoring/);
      await agent.close();
    } finally {
      assert.equal(await server.stop(), 0);
    }

    const restoredDir = mkdtempSync(join(scratch, 'restored-'));
    const restored = await runCli({ ...process.env, HOME: restoredDir, DATABASE_URL: '', YONA_DATA_DIR: restoredDir }, [
      'admin',
      'restore',
      join(scratch, 'yona-backup.db'),
    ]);
    assert.equal(restored.status, 0, restored.stderr);
    assert.match(restored.stdout, /restored .* integrity ok/);

    const db = new SqliteDatabase(join(restoredDir, 'yona.db'), { readonly: true });
    try {
      const count = db.prepare('SELECT count(*) AS n FROM messages WHERE campaign_id = ?');
      // Every send accepted before the backup began is in the copy with all its messages.
      assert.ok(acceptedBefore.length >= 2, `sends accepted before the backup: ${acceptedBefore.length}`);
      for (const c of acceptedBefore)
        assert.equal((count.get(c.id) as { n: number }).n, c.recipients, `campaign ${c.id}`);
      const accounts = db.prepare('SELECT id, username, credits FROM accounts').all() as Array<{
        id: number;
        username: string;
        credits: number;
      }>;
      const ledger = db.prepare(
        "SELECT coalesce(sum(amount), 0) AS total FROM ledger_entries WHERE account_id = ? AND currency = 'credits'",
      );
      for (const a of accounts)
        assert.equal(Number(a.credits), Number((ledger.get(a.id) as { total: number }).total), `${a.username} ledger`);
    } finally {
      db.close();
    }
    // The restored store serves.
    const again = await startServeProcess({ YONA_DATA_DIR: restoredDir });
    const balance = await again.cli('admin', 'ledger', 'shop');
    assert.equal(balance.status, 0, balance.stderr);
    assert.equal(await again.stop(), 0);
  });

  it('refuses to overwrite an existing file, and explains pg_dump on PostgreSQL', async () => {
    const dataDir = mkdtempSync(join(scratch, 'exists-'));
    const env = { ...process.env, HOME: dataDir, DATABASE_URL: '', YONA_DATA_DIR: dataDir };
    assert.equal((await runCli(env, ['admin', '--new-store', 'add-credits', 'nobody', '1'])).status !== null, true);
    const file = join(dataDir, 'already.db');
    assert.equal((await runCli(env, ['admin', 'backup', file])).status, 0);
    const twice = await runCli(env, ['admin', 'backup', file]);
    assert.equal(twice.status, 1);
    assert.match(twice.stderr, /exists: name a new file/);

    const postgres = (await storeTargets()).find((t) => t.name === 'postgres');
    if (!postgres) return;
    const created = await postgres.create();
    try {
      const pgEnv = { ...process.env, HOME: dataDir, ...created.env };
      for (const command of ['backup', 'restore']) {
        const run = await runCli(pgEnv, ['admin', command, join(dataDir, 'pg.db')]);
        assert.equal(run.status, 2, run.stderr);
        assert.match(run.stderr, /PostgreSQL: back it up with its own tools .*pg_dump.*pg_restore/);
      }
      assert.equal(existsSync(join(dataDir, 'pg.db')), false);
    } finally {
      await created.cleanup();
    }
  });
});

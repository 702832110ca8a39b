// The quick start sends WhatsApp: `yona serve` with no carrier configured (embedded store, as `npm start`) runs
// the bundled Cloud API simulator as carrier `simulator-whatsapp`, serving any business number, its signed
// webhooks taken by the server's own listener. A user writes first (`yona sim mo --channel whatsapp`, opening
// the window), a text to them goes out, and `dlr` shows it read with channel whatsapp; `yona sim messages
// --channel whatsapp` lists what the user got. The simulator's shipped templates are synced into the server's
// template store with no step of the operator's: 019's get-phone-templates lists them for a number the account was
// given, and one with {{1}} is sent with its variable to a user who never wrote.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { eventually, windowAroundNow } from '../delivery/delivery-helpers.ts';
import { lastLine, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { queueWhatsappIn } from '../helpers/whatsapp.ts';

const BUSINESS = '972771230000';
const USER = '972521234567';
const OTHER_USER = '972521234568';

describe('quick start: WhatsApp through the bundled simulator (yona serve, embedded store)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'yona-wa-quick-'));
  let server: ServeProcess;
  let store: Store;
  let token: string;

  before(async () => {
    server = await startServeProcess({ YONA_DATA_DIR: dataDir });
  });
  after(async () => {
    await store?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends a text in the window opened by the user, and dlr shows it read on the whatsapp channel', async () => {
    assert.match(server.logs(), /bundled WhatsApp Cloud API simulator started/);
    assert.match(server.logs(), /\/webhooks\/whatsapp\/simulator-whatsapp/);
    const ok = async (...args: string[]) => {
      const run = await server.cli(...args);
      assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
      return run;
    };
    await ok('admin', 'create-account', 'quick', '--password', 'correct-horse', '--credits', '10');
    token = lastLine(await ok('admin', 'create-token', 'quick'));
    await ok('admin', 'whatsapp-number', 'add', 'quick', BUSINESS);
    const mo = await ok('sim', 'mo', '--channel', 'whatsapp', '--from', USER, '--to', BUSINESS, '--text', 'Hi');
    assert.match(mo.stdout, /^delivered to Yona/);

    store = await openStore({ databaseUrl: '', dataDir, migrate: false });
    const account = await store.db
      .selectFrom('accounts')
      .select('id')
      .where('username', '=', 'quick')
      .executeTakeFirstOrThrow();
    // The user's message opened the window: the server took the simulator's signed webhook.
    await eventually(
      async () =>
        (await store.db.selectFrom('whatsapp_windows').select('user_id').where('account_id', '=', account.id).execute())
          .length > 0,
      10_000,
      'the window opened by the user',
    );
    await queueWhatsappIn(store.db, {
      accountId: Number(account.id),
      source: BUSINESS,
      externalId: 'qs-1',
      phone: USER,
      text: 'Hello from the quick start',
    });

    const dlr = async () => {
      const res = await request(`http://127.0.0.1:${server.httpPort}/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          dlr: { user: { username: 'quick' }, transactions: { external_id: ['qs-1'] }, ...windowAroundNow() },
        }),
      });
      const reply = (await res.body.json()) as { status: number; transactions?: Array<Record<string, string>> };
      return reply.transactions?.[0];
    };
    const read = await eventually(
      async () => {
        const row = await dlr();
        return row?.status === '303' || Number(row?.status) === 303 ? row : undefined;
      },
      20_000,
      'the message read',
    );
    assert.equal(read.channel, 'whatsapp');

    const got = await ok('sim', 'messages', '--channel', 'whatsapp', '--to', USER, '--json');
    const [message] = JSON.parse(got.stdout) as Array<{ business: string; text: string }>;
    assert.equal(message.business, BUSINESS);
    assert.equal(message.text, 'Hello from the quick start');
  });

  it("lists the simulator's shipped templates for the account's number and sends the one with {{1}}", async () => {
    assert.ok(token, 'the account of the first test');
    const wa = async (path: string, body?: unknown) => {
      const res = await request(`http://127.0.0.1:${server.httpPort}/whatsapp-api/${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      assert.equal(res.statusCode, 200);
      return (await res.body.json()) as Record<string, any>;
    };
    const listed = await wa(`get-phone-templates/${BUSINESS}`);
    assert.equal(listed.success, true, JSON.stringify(listed));
    const byName = new Map((listed.templates as Array<Record<string, any>>).map((t) => [t.templateId, t]));
    // Two approved (status 0) as shipped, one with {{1}}; the shipped one still in review is listed as pending (1).
    assert.equal(byName.get('hello_world')?.status, 0);
    assert.equal(byName.get('order_update')?.status, 0);
    assert.equal(byName.get('order_update')?.body, 'Your order {{1}} is on its way.');
    assert.equal(byName.get('spring_sale')?.status, 1);
    const one = await wa(`get-phone-templates/${BUSINESS}/order_update`);
    assert.deepEqual(
      one.templates.map((t: Record<string, unknown>) => t.templateId),
      ['order_update'],
    );

    const sent = await wa('send-whatsapp-template', {
      source: BUSINESS,
      destination: OTHER_USER,
      templateId: 'order_update',
      dynamicFieldsObject: { '1': 'A-17' },
    });
    assert.deepEqual([sent.success, sent.ans.reason], [true, 0], JSON.stringify(sent));
    const got = await eventually(
      async () => {
        const run = await server.cli('sim', 'messages', '--channel', 'whatsapp', '--to', OTHER_USER, '--json');
        const [m] = JSON.parse(run.stdout || '[]') as Array<{ business: string; template?: Record<string, unknown> }>;
        return m;
      },
      20_000,
      'the template at the simulator',
    );
    assert.equal(got.business, BUSINESS);
    assert.deepEqual(got.template, { name: 'order_update', language: 'en', variables: ['A-17'] });
  });
});

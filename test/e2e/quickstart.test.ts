// The newcomer's path with real processes: `yona serve`, `yona admin create-account/create-token`, then
// balance over HTTPS and loopback HTTP in JSON and XML; SIGTERM stops the server cleanly; CLI errors are one
// line on stderr and exit non-zero.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';

const bin = join(import.meta.dirname, '../../bin/yona.js');

function freePortPair(): [number, number] {
  const base = 20000 + Math.floor(Math.random() * 12000); // below the ephemeral ports (32768 and up)
  return [base, base + 1];
}

describe('quick start (real processes, embedded store)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'yona-quickstart-'));
  const [httpsPort, httpPort] = freePortPair();
  const env = {
    ...process.env,
    YONA_DATA_DIR: dataDir,
    YONA_HTTPS_PORT: String(httpsPort),
    YONA_HTTP_PORT: String(httpPort),
    YONA_HTTPS_HOST: '127.0.0.1',
    DATABASE_URL: '',
  };
  let server: ChildProcess;
  let logs = '';
  const cli = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });

  before(async () => {
    server = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (d) => (logs += d));
    server.stderr!.on('data', (d) => (logs += d));
    for (let i = 0; i < 400 && !logs.includes('yona is serving'); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(logs, /yona is serving/);
    // The TLS port is announced as such (the server comes from our factory, so fastify must be told).
    assert.match(logs, new RegExp(`Server listening at https://127\\.0\\.0\\.1:${httpsPort}`));
    assert.doesNotMatch(logs, new RegExp(`http://[^"]*:${httpsPort}`));
    // The start-up line names the console's address, for the operator who just ran `npm start`.
    assert.match(logs, new RegExp(`"console":"https://localhost:${httpsPort}/console"`));
  });
  after(() => {
    server.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates an account and token with the CLI and reads the balance over HTTPS and HTTP, JSON and XML', async () => {
    const created = cli('admin', 'create-account', 'newcomer', '--password', 'correct-horse', '--credits', '42');
    assert.equal(created.status, 0, created.stderr);
    const minted = cli('admin', 'create-token', 'newcomer');
    assert.equal(minted.status, 0, minted.stderr);
    const token = minted.stdout.trim().split('\n').at(-1)!;
    assert.match(token, /^yona_/);

    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    const json = await request(`https://127.0.0.1:${httpsPort}/api`, {
      method: 'POST',
      dispatcher: insecure,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"balance":{"user":{"username":"newcomer"}}}',
    });
    assert.equal(((await json.body.json()) as { balance: string }).balance, '42');
    const xml = await request(`http://127.0.0.1:${httpPort}/api`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/xml' },
      body: '<balance><user><username>newcomer</username></user></balance>',
    });
    assert.match(await xml.body.text(), /<balance>42<\/balance>/);
    assert.ok(!logs.includes(token), 'the token must never appear in logs');
  });

  it('prints clear errors and exits non-zero for bad CLI input', () => {
    const unknown = cli('admin', 'create-token', 'nobody-here');
    assert.notEqual(unknown.status, 0);
    assert.match(unknown.stderr, /no account named "nobody-here"/);
    const badCidr = cli('admin', 'allow-ip', 'newcomer', 'not-a-cidr');
    assert.notEqual(badCidr.status, 0);
    assert.match(badCidr.stderr, /allow-ip/);
    const dup = cli('admin', 'create-account', 'newcomer', '--password', 'correct-horse');
    assert.notEqual(dup.status, 0);
    assert.match(dup.stderr, /already exists/);
    const noCommand = cli('frobnicate');
    assert.notEqual(noCommand.status, 0);
    assert.match(noCommand.stderr, /usage/);
  });

  it('answers bad flags and values with one line on stderr, no stack trace, and a non-zero exit', () => {
    for (const [args, expected] of [
      [['admin', 'create-account', 'flagged', '--password', 'correct-horse', '--bogus'], /unknown option --bogus/],
      [['admin', 'create-token', 'newcomer', '--expires-in'], /--expires-in needs a value/],
      [['admin', 'create-account', 'flagged', '--password'], /--password needs a value/],
      [['admin', 'create-account', 'flagged', '--password', 'correct-horse', '--credits', '-5'], /--credits/],
      [
        ['admin', 'create-account', 'flagged', '--password', 'correct-horse', '--credits=-5'],
        /--credits must be a whole number/,
      ],
      [['admin', 'add-credits', 'newcomer', '1000000000001'], /at most|from 0 to 1000000000000/],
      [['admin', 'add-credits', 'newcomer', '1e13'], /whole number/],
      [['admin', 'add-credits', 'newcomer', '5', '--bogus'], /unknown option --bogus/],
      [['admin', 'create-token', 'newcomer', '--expires-in', '0s'], /--expires-in must be more than 0/],
    ] as const) {
      const run = cli(...args);
      assert.notEqual(run.status, 0, args.join(' '));
      assert.match(run.stderr, expected, args.join(' '));
      assert.equal(run.stderr.trimEnd().split('\n').length, 1, `one line for ${args.join(' ')}: ${run.stderr}`);
      assert.doesNotMatch(run.stderr, /\n\s+at /);
    }
    const balance = cli('admin', 'add-credits', 'newcomer', '0');
    assert.equal(balance.status, 0, balance.stderr);
    assert.match(balance.stdout, /newcomer now has 42 credits/);
  });

  it('refuses a second yona serve on the same embedded store, naming the one running', () => {
    const [otherHttps, otherHttp] = freePortPair();
    const second = spawnSync(process.execPath, [bin, 'serve'], {
      env: { ...env, YONA_HTTPS_PORT: String(otherHttps), YONA_HTTP_PORT: String(otherHttp) },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.notEqual(second.status, 0);
    assert.match(second.stderr, new RegExp(`another yona serve \\(pid ${server.pid}\\) is running`));
    assert.equal(second.stderr.trimEnd().split('\n').length, 1, second.stderr);
  });

  it('shuts down gracefully on SIGTERM and leaves the store free for the next server', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.match(logs, /shutting down/);
    assert.ok(!existsSync(join(dataDir, 'serve.pid')), 'the lock is released');
  });
});

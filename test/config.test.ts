// The configuration: the table of docs/configuration.md and the schema in src/config.ts name the same settings with the same
// defaults, and a bad value is refused with one line naming the variable (yona serve exits with it, no stack).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, readSetting, SETTINGS } from '../src/config.ts';
import { ROLES } from '../src/domain/roles.ts';

const root = join(import.meta.dirname, '..');

/** The configuration table of docs/configuration.md: variable -> default, as written (a row may name several, split by " / "). */
function readmeTable(): Map<string, string> {
  const readme = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
  const start = readme.indexOf('| variable');
  const rows = readme
    .slice(start, readme.indexOf('\n\n', start))
    .split('\n')
    .filter((l) => l.startsWith('| `'));
  const table = new Map<string, string>();
  for (const row of rows) {
    const [names, defaults] = row.split(' | ').map((c) => c.replace(/^\| /, ''));
    const vars = names.split(' / ').map((n) => n.replace(/`/g, ''));
    const values = defaults.split(' / ').map((d) => d.replace(/`/g, ''));
    vars.forEach((v, i) => table.set(v, vars.length === values.length ? values[i] : defaults));
  }
  return table;
}

describe('configuration', () => {
  it('the documented table and the schema name the same settings, with the same defaults', () => {
    const table = readmeTable();
    const declared = Object.keys(SETTINGS);
    assert.ok(table.size >= 40, `the table has ${table.size} rows`);
    for (const name of declared)
      assert.ok(table.has(name), `${name} is declared in src/config.ts but has no row in docs/configuration.md`);
    for (const name of table.keys())
      assert.ok(declared.includes(name), `${name} is in docs/configuration.md but not declared in src/config.ts`);
    for (const [name, setting] of Object.entries(SETTINGS)) {
      assert.equal(table.get(name), setting.default, `default of ${name}`);
      assert.ok(setting.meaning.length > 0, `meaning of ${name}`);
    }
  });

  it('an empty environment gives the documented defaults', () => {
    const c = loadConfig({});
    assert.deepEqual(
      [
        c.httpsPort,
        c.httpPort,
        c.httpHost,
        c.bodyLimit,
        c.otp.digits,
        c.node.leaseMs,
        c.node.roles,
        c.pgPool,
        c.sqliteGroupCommit,
      ],
      [8443, 8080, '127.0.0.1', 16 * 1024 * 1024, 6, 10_000, [...ROLES], 10, true],
    );
    assert.deepEqual(
      [c.sending.intlPriceAgorot, c.push.pollMs, c.delivery.batchSize, c.delivery.removalKeywords],
      [25, 250, 1000, ['הסר', 'stop', 'remove']],
    );
    assert.equal(c.publicUrl, 'https://localhost:8443');
    assert.equal(readSetting('YONA_DISPATCH_LANES', { YONA_DISPATCH_LANES: '3' }), 3);
  });

  it('a bad value is refused with a message naming the variable and what is wrong', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ YONA_NODE_LEASE_MS: 'abc' }, /^YONA_NODE_LEASE_MS must be an integer >= 1000, got "abc"$/],
      [{ YONA_NODE_LEASE_MS: '500' }, /^YONA_NODE_LEASE_MS must be an integer >= 1000, got "500"$/],
      [{ YONA_ROLES: 'api,mailer' }, /^YONA_ROLES: unknown role "mailer" \(roles: api, dispatcher/],
      [{ YONA_OTP_DIGITS: '12' }, /^YONA_OTP_DIGITS must be 4 to 10, got "12"$/],
      [{ YONA_HTTPS_PORT: '-1' }, /^YONA_HTTPS_PORT must be a non-negative integer, got "-1"$/],
      [{ YONA_PUSH_RETENTION: 'soon' }, /^YONA_PUSH_RETENTION must look like 3d or 12h, got "soon"$/],
      [{ YONA_TRUST_PROXY: '10.0.0.0/8, nonsense' }, /^YONA_TRUST_PROXY has an invalid CIDR: "nonsense"$/],
      [{ YONA_DISPATCH_BATCH: '0' }, /^YONA_DISPATCH_BATCH must be an integer >= 1, got "0"$/],
      [{ YONA_TLS_CERT: 'cert.pem' }, /^YONA_TLS_CERT and YONA_TLS_KEY must be set together$/],
    ];
    for (const [env, message] of cases) {
      assert.throws(
        () => loadConfig(env),
        (err: Error) => err instanceof ConfigError && message.test(err.message),
        JSON.stringify(env),
      );
    }
  });

  it('yona serve exits non-zero with that one line, no stack trace', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'yona-config-'));
    try {
      for (const [name, value, message] of [
        ['YONA_NODE_LEASE_MS', 'abc', 'yona: YONA_NODE_LEASE_MS must be an integer >= 1000, got "abc"\n'],
        ['YONA_ROLES', 'api,nope', `yona: YONA_ROLES: unknown role "nope" (roles: ${ROLES.join(', ')})\n`],
      ]) {
        const r = spawnSync(process.execPath, [join(root, 'bin/yona.js'), 'serve'], {
          env: { ...process.env, YONA_DATA_DIR: dataDir, DATABASE_URL: '', [name]: value },
          encoding: 'utf8',
          timeout: 20_000,
        });
        assert.notEqual(r.status, 0);
        assert.equal(r.stderr, message);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

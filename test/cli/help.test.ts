// The CLI explains itself, run as a user runs it (`node bin/yona.js ...`): --help at the top, on admin and on
// every command prints usage, what it does and an example; a mistyped command or option names the nearest one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ADMIN_COMMANDS } from '../../src/cli/admin.ts';
import { ADMIN_HELP, COMMAND_HELP, nearest } from '../../src/cli/help.ts';

const bin = join(import.meta.dirname, '../../bin/yona.js');
const dataDir = mkdtempSync(join(tmpdir(), 'yona-help-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));
const yona = (...args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], {
    env: { ...process.env, YONA_DATA_DIR: dataDir, DATABASE_URL: '' },
    encoding: 'utf8',
  });

describe('yona --help', () => {
  it('lists every command with what it does', () => {
    const r = yona('--help');
    assert.equal(r.status, 0, r.stderr);
    for (const name of ['serve', 'admin', 'smsc-sim', 'sip-sim', 'wa-sim', 'sim'])
      assert.match(r.stdout, new RegExp(`^  ${name} +\\S`, 'm'), name);
    assert.match(r.stdout, /yona admin --help lists the operator commands/);
  });

  it('explains each command with usage and an example', () => {
    for (const name of ['serve', 'sim', 'smsc-sim', 'sip-sim', 'wa-sim']) {
      const r = yona(name, '--help');
      assert.equal(r.status, 0, `${name}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^usage: yona ${name}`), name);
      assert.match(r.stdout, /\nexample:\n {2}\S/);
    }
  });

  it('lists and explains every admin command, opening no store', () => {
    const list = yona('admin', '--help');
    assert.equal(list.status, 0, list.stderr);
    assert.deepEqual(
      Object.keys(ADMIN_HELP).sort(),
      Object.keys(ADMIN_COMMANDS).sort(),
      'every admin command has help',
    );
    for (const name of Object.keys(ADMIN_COMMANDS)) {
      assert.match(list.stdout, new RegExp(`^  ${name} +\\S`, 'm'), name);
      const one = yona('admin', name, '--help');
      assert.equal(one.status, 0, `${name}: ${one.stderr}`);
      assert.match(one.stdout, new RegExp(`^usage: yona admin ${name}`), name);
      assert.match(one.stdout, new RegExp(`\\nexample:\\n {2}.*yona admin ${name}`), name);
    }
  });

  it('lists every registered channel in the --channel of the route commands', () => {
    for (const name of ['add-route', 'remove-route', 'route-test']) {
      const one = yona('admin', name, '--help');
      assert.equal(one.status, 0, `${name}: ${one.stderr}`);
      assert.match(one.stdout, /\[--channel sms\|voice\|whatsapp\]/, name);
    }
  });

  it('names the nearest command or option for a mistake, exit 2', () => {
    const top = yona('serv');
    assert.equal(top.status, 2);
    assert.equal(
      top.stderr,
      'yona: unknown command "serv"; did you mean "serve"? (usage: yona COMMAND [ARGS]; yona --help lists the commands)\n',
    );
    const admin = yona('admin', 'create-acount', 'x');
    assert.equal(admin.status, 2);
    assert.match(admin.stderr, /^yona: unknown admin command "create-acount"; did you mean "create-account"\?/);
    const option = yona('admin', 'create-account', 'newbie', '--pasword', 'secret-pw');
    assert.equal(option.status, 2);
    assert.equal(option.stderr, 'yona: unknown option --pasword; did you mean "--password"?\n');
    const none = yona();
    assert.equal(none.status, 2);
    assert.match(none.stderr, /a command is needed/);
  });

  it('suggests only names that are near', () => {
    assert.equal(nearest('ledgr', Object.keys(ADMIN_COMMANDS)), 'ledger');
    assert.equal(nearest('frobnicate', Object.keys(ADMIN_COMMANDS)), undefined);
    assert.deepEqual(Object.keys(COMMAND_HELP), ['serve', 'admin', 'smsc-sim', 'sip-sim', 'wa-sim', 'sim']);
  });
});

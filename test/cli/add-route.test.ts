// `yona admin add-route` on every store, as its own process: an empty PREFIX (or one of spaces only) would make the
// default route without saying so; it is refused with exit code 2 and a message naming "default", and no route is
// written. "default" still makes the default route.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';

for (const target of await storeTargets()) {
  describe(`yona admin add-route refuses an empty prefix (${target.name})`, () => {
    let env: NodeJS.ProcessEnv;
    let cleanup: () => Promise<void>;
    const admin = (...args: string[]) => runCli(env, ['admin', ...args]);
    const routes = async () => {
      const run = await admin('carriers');
      assert.equal(run.status, 0, run.stderr);
      return run.stdout.split('\n').filter((l) => l.startsWith('route '));
    };

    before(async () => {
      const created = await target.create();
      cleanup = created.cleanup;
      env = { ...process.env, DATABASE_URL: '', ...created.env };
      const login = ['--host', '127.0.0.1', '--port', '2775', '--system-id', 'yona', '--password', 'pw'];
      const added = await admin('add-carrier', 'one', ...login, '--new-store');
      assert.equal(added.status, 0, added.stderr);
    });
    after(() => cleanup?.());

    for (const prefix of ['', '   ']) {
      it(`refuses PREFIX ${JSON.stringify(prefix)} with exit code 2 and writes nothing`, async () => {
        const run = await admin('add-route', prefix, 'one');
        assert.equal(run.status, 2, run.stdout + run.stderr);
        assert.match(run.stderr, /PREFIX is empty: .*"default" for the route every destination takes/);
        assert.equal(run.stdout, '');
        assert.deepEqual(await routes(), []);
      });
    }

    it('"default" makes the default route', async () => {
      const run = await admin('add-route', 'default', 'one');
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(await routes(), ['route default -> one']);
    });
  });
}

// A second node on the same host starts as it is: with no YONA_NODE_NAME, each `yona serve` is named after the
// host and an id kept in its data dir, so two processes on one PostgreSQL database with their own data dirs both
// start, with different names, and a node keeps its name when it restarts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { request } from 'undici';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';

async function nodeName(serve: ServeProcess): Promise<string> {
  const res = await request(`http://127.0.0.1:${serve.httpPort}/healthz`);
  return ((await res.body.json()) as { node: string }).node;
}

for (const target of (await storeTargets()).filter((t) => t.name === 'postgres')) {
  describe(`default node names (${target.name}, real processes)`, () => {
    const dirs = [mkdtempSync(join(tmpdir(), 'yona-node-a-')), mkdtempSync(join(tmpdir(), 'yona-node-b-'))];
    after(() => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    it('names each node after its host and its data dir, and keeps the name across a restart', async () => {
      const store = await target.create();
      try {
        const env = (dir: string) => ({ ...store.env, YONA_DATA_DIR: dir, YONA_NODE_NAME: '' });
        const first = await startServeProcess(env(dirs[0]));
        const second = await startServeProcess(env(dirs[1]));
        const names = [await nodeName(first), await nodeName(second)];
        for (const [i, name] of names.entries()) {
          const id = readFileSync(join(dirs[i], 'node.id'), 'utf8').trim();
          assert.match(id, /^[0-9a-f]{6}$/);
          assert.equal(name, `${hostname()}-${id}`);
        }
        assert.notEqual(names[0], names[1]);
        assert.equal(await second.stop(), 0);
        assert.equal(await first.stop(), 0);
        const again = await startServeProcess(env(dirs[0]));
        assert.equal(await nodeName(again), names[0], 'the same name after a restart');
        assert.equal(await again.stop(), 0);
      } finally {
        await store.cleanup();
      }
    });
  });
}

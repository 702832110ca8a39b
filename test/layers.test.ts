// The layers import one way, checked with dependency-cruiser (.dependency-cruiser.cjs): src/ has no violation,
// and a fixture whose domain module imports the store is refused, naming the rule.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';

const root = join(import.meta.dirname, '..');
const depcruise = (target: string) =>
  spawnSync(
    process.execPath,
    [
      join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      target,
      '--config',
      '.dependency-cruiser.cjs',
    ],
    { cwd: root, encoding: 'utf8' },
  );

it('finds no upward import in src/', () => {
  const r = depcruise('src');
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /no dependency violations found/);
});

it('refuses a domain module that imports the store', () => {
  const r = depcruise('test/fixtures/layers/src');
  assert.notEqual(r.status, 0);
  assert.match(
    r.stdout,
    /error domain-is-pure: test\/fixtures\/layers\/src\/domain\/upward\.ts → test\/fixtures\/layers\/src\/store\/thing\.ts/,
  );
});

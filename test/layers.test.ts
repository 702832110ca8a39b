// The layers import one way, checked with dependency-cruiser (.dependency-cruiser.cjs): src/ has no violation,
// every file of src/ is in a layer, and a fixture's upward import, import cycle, stray file and unlisted store
// reader are each refused, naming the rule.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
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

it('refuses an import cycle, a file in no layer and an HTTP file using the store unlisted', () => {
  const r = depcruise('test/fixtures/layers/src');
  assert.match(r.stdout, /error no-circular: test\/fixtures\/layers\/src\/store\/cycle-[ab]\.ts/);
  assert.match(r.stdout, /error every-file-in-a-layer: test\/fixtures\/layers\/src\/stray\.ts/);
  assert.match(r.stdout, /error http-runs-operations: test\/fixtures\/layers\/src\/http\/page\.ts/);
  assert.doesNotMatch(r.stdout, /http\/reads\.ts/);
});

it('places every file of src/ in a layer, even one that imports nothing', () => {
  const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs'));
  const rule = config.forbidden.find((r: { name: string }) => r.name === 'every-file-in-a-layer');
  const layers = (rule.from.pathNot as string[]).map((p) => new RegExp(p));
  const files = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
  assert.ok(files.length > 200, `${files.length} files`);
  const unplaced = files.filter((f) => !layers.some((l) => l.test(f)));
  assert.deepEqual(unplaced, []);
});

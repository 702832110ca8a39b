// The Node.js versions Yona supports (package.json `engines`, the README's quick start) are those its production
// dependencies run on: each supported line from its lowest version satisfies every dependency's own `engines`,
// but for the exceptions named below with the reason they hold. CI runs the suite on the machine's Node and the
// quick start with a smoke subset on Node 22 (.ci/other-nodes).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { it } from 'node:test';

const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};
const root = join(import.meta.dirname, '..');
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));
const engines: string = readJson('package.json').engines.node;

/**
 * Dependencies whose `engines` leave out a supported line they run on, by package and line. cookie 2 (through
 * fastify's light-my-request) says >=22 because it is an ES module loaded with require(); Node 20 does that
 * from 20.19 on, which is why 20 is supported from 20.19.
 */
const EXCEPTIONS: Record<string, string> = { 'node_modules/cookie': '20' };

it('supports Node 20 from 20.19 and Node 22 from 22.12, as the README says; not Node 24 yet', () => {
  for (const supported of ['20.19.0', '20.20.2', '22.12.0', '22.23.3'])
    assert.ok(semver.satisfies(supported, engines), `${supported} in ${engines}`);
  // 20.18 has no require() of an ES module by default; 22.11 neither. Node 24 aborts in better-sqlite3 12.
  for (const unsupported of ['18.20.8', '20.18.0', '22.11.0', '24.11.0'])
    assert.ok(!semver.satisfies(unsupported, engines), `${unsupported} not in ${engines}`);
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  assert.match(readme, /Needs Node\.js 22 \(22\.12 or later\) or 20\.19 or later in 20, and npm\./);
});

it('runs on each supported line from its lowest version, by every production dependency', () => {
  const lowest = engines.split('||').map((range) => semver.minVersion(range.trim())!.version);
  assert.deepEqual(lowest, ['20.19.0', '22.12.0']);
  const lock = readJson('package-lock.json');
  assert.equal(lock.packages[''].engines.node, engines, 'package-lock.json agrees');
  const refused: string[] = [];
  for (const [path, entry] of Object.entries<{ dev?: boolean; engines?: { node?: string } }>(lock.packages)) {
    const wanted = entry.engines?.node;
    if (path === '' || entry.dev || !wanted) continue;
    for (const version of lowest) {
      if (semver.satisfies(version, wanted)) continue;
      if (EXCEPTIONS[path] === version.split('.')[0]) continue;
      refused.push(`${path} wants node ${wanted}, not ${version}`);
    }
  }
  assert.deepEqual(refused, []);
});

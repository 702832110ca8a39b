// Yona is licensed under the Apache License 2.0, and every package it runs with in production (the
// non-dev packages of package-lock.json, as installed in node_modules) carries a permissive licence: no
// copyleft licence that would bind an operator running or modifying Yona, and no package without a licence.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';

const root = join(import.meta.dirname, '..');
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));

// SPDX identifiers that let anyone run, modify and ship Yona under Apache-2.0 without further obligations
// beyond keeping notices.
const permissive = new Set([
  'MIT',
  'ISC',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'Apache-2.0',
  '0BSD',
  'BlueOak-1.0.0',
  'Unlicense',
  'CC0-1.0',
  'Python-2.0',
]);

// Whether an SPDX expression ("MIT", "(MIT OR WTFPL)", "Apache-2.0 AND MIT") lets Yona be used as above:
// an OR needs one permissive side, an AND needs both; anything else (GPL, LGPL, AGPL, SSPL, EUPL,
// CC-BY-SA, a WITH exception, "SEE LICENSE IN ...", a missing field) is refused.
function permits(expression: string | undefined): boolean {
  if (!expression) return false;
  const tokens = expression.match(/\(|\)|[^\s()]+/g) ?? [];
  let at = 0;
  const primary = (): boolean => {
    const token = tokens[at++];
    if (token === '(') {
      const inner = or();
      if (tokens[at++] !== ')') throw new Error(`unbalanced: ${expression}`);
      return inner;
    }
    return token !== undefined && permissive.has(token);
  };
  const and = (): boolean => {
    let result = primary();
    while (tokens[at] === 'AND') {
      at++;
      result = primary() && result;
    }
    return result;
  };
  const or = (): boolean => {
    let result = and();
    while (tokens[at] === 'OR') {
      at++;
      result = and() || result;
    }
    return result;
  };
  try {
    const result = or();
    return at === tokens.length && result;
  } catch {
    return false;
  }
}

it('is licensed under the Apache License 2.0: the full text in LICENSE, the field in package.json, a NOTICE', () => {
  assert.equal(readJson('package.json').license, 'Apache-2.0');
  assert.equal(readJson('package-lock.json').packages[''].license, 'Apache-2.0');
  const licence = readFileSync(join(root, 'LICENSE'), 'utf8');
  // The text as published at https://www.apache.org/licenses/LICENSE-2.0.txt, unchanged.
  assert.equal(createHash('md5').update(licence).digest('hex'), '3b83ef96387f14655fc854ddc3c6bd57');
  assert.match(readFileSync(join(root, 'NOTICE'), 'utf8'), /^Yona\nCopyright \d{4} /);
});

it('refuses copyleft, unknown and missing licences, and accepts permissive ones alone or combined', () => {
  for (const refused of [
    'GPL-3.0-only',
    'GPL-2.0-or-later',
    'LGPL-3.0',
    'AGPL-3.0-only',
    'SSPL-1.0',
    'EUPL-1.2',
    'CC-BY-SA-4.0',
    'MPL-2.0 AND MIT',
    'GPL-2.0 WITH Classpath-exception-2.0',
    'SEE LICENSE IN LICENSE.md',
    'UNLICENSED',
    '',
    undefined,
    '(MIT',
  ]) {
    assert.equal(permits(refused), false, `${refused} accepted`);
  }
  for (const accepted of ['MIT', '(MIT OR WTFPL)', '(BSD-2-Clause OR MIT OR Apache-2.0)', 'Apache-2.0 AND MIT']) {
    assert.equal(permits(accepted), true, `${accepted} refused`);
  }
});

it('runs in production only with packages under permissive licences', () => {
  const lock = readJson('package-lock.json');
  const refused: string[] = [];
  let checked = 0;
  for (const [path, entry] of Object.entries<{ dev?: boolean; license?: string }>(lock.packages)) {
    if (path === '' || entry.dev) continue;
    // What is installed says what runs; an optional package for another platform is absent, and the lock's
    // record of it is what there is.
    const manifest = join(root, path, 'package.json');
    const installed = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')) : undefined;
    const license: string | undefined =
      installed === undefined
        ? entry.license
        : typeof installed.license === 'string'
          ? installed.license
          : installed.licenses?.map((l: { type: string }) => l.type).join(' OR ');
    checked++;
    if (!permits(license)) refused.push(`${path}: ${license ?? '(none)'}`);
  }
  assert.ok(checked > 50, `only ${checked} production packages found`);
  assert.deepEqual(refused, []);
});

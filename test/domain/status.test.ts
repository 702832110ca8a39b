// The request status catalogue: every code compatibility.md lists has an English and a Hebrew text, and a
// message built from the English text (alone or before `: detail`) has a Hebrew form.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { hebrewMessage, REQUEST_STATUS, RESERVED_REQUEST_STATUSES, statusMessage } from '../../src/domain/status.ts';

/** The request status codes the source raises: `ApiError(N` anywhere, and the numbers in `status: ...` replies
 *  of the request side (operations and http; the workers' `status` fields are delivery statuses). */
function raisedCodes(): Set<number> {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
    });
  const raised = new Set<number>();
  for (const file of files('src')) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/ApiError\(\s*(\d+)/g)) raised.add(Number(m[1]));
    if (!/^src\/(operations|http)\//.test(file)) continue;
    for (const m of text.matchAll(/\bstatus:\s*([^,}\n]+)/g))
      for (const n of m[1].matchAll(/\b\d+\b/g)) raised.add(Number(n[0]));
  }
  return raised;
}

// The codes of compatibility.md's "Request status codes" table (980 / 981 and 992..996 are rows of several codes).
const COMPATIBILITY_CODES = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 502, 503, 504, 510, 511, 515, 517, 714, 715, 933, 944, 946, 955, 966, 970,
  977, 980, 981, 986, 987, 988, 989, 990, 991, 992, 993, 994, 995, 996, 997, 998, 999,
];

describe('request status catalogue', () => {
  it('has English and Hebrew text for every code of compatibility.md', () => {
    for (const code of COMPATIBILITY_CODES) {
      const entry = REQUEST_STATUS[code];
      assert.ok(entry, `code ${code} is missing`);
      assert.match(entry.en, /^[A-Z][ -~]+$/, `English text of ${code}`);
      assert.match(entry.he, /[\u05d0-\u05ea]/, `Hebrew text of ${code}`);
    }
    assert.deepEqual(
      Object.keys(REQUEST_STATUS)
        .map(Number)
        .sort((a, b) => a - b),
      COMPATIBILITY_CODES,
      'no code beyond the table',
    );
  });

  it('keeps the English texts compatibility.md gives for the codes clients match on', () => {
    assert.equal(statusMessage(1), 'There was a problem parsing your XML/JSON');
    assert.equal(statusMessage(3), 'Username or password is incorrect and API token is invalid');
    assert.equal(statusMessage(997), 'Not a valid command sent');
    assert.equal(statusMessage(12345), statusMessage(998), 'an unknown code reads as 998');
  });

  it('puts a catalogue message in Hebrew, keeping a detail after the colon and any other message as it is', () => {
    assert.equal(hebrewMessage(10, 'Expired API token'), 'תוקף הטוקן פג');
    assert.equal(hebrewMessage(2, 'Missing required field: user.username'), 'חסר שדה חובה: user.username');
    assert.equal(hebrewMessage(0, 'Your balance is 5 credits'), 'Your balance is 5 credits');
    assert.equal(
      hebrewMessage(0, 'Successfully done'),
      'Successfully done',
      'only the whole catalogue text, or it then a colon',
    );
    assert.equal(
      hebrewMessage(511, 'At most 5 active API tokens: delete one first'),
      'At most 5 active API tokens: delete one first',
    );
    assert.equal(hebrewMessage(4242, 'Expired API token'), 'Expired API token');
  });

  it('raises every catalogue code somewhere, or documents it as reserved', () => {
    const raised = raisedCodes();
    const unexplained = COMPATIBILITY_CODES.filter((code) => !raised.has(code) && !(code in RESERVED_REQUEST_STATUSES));
    assert.deepEqual(unexplained, [], 'codes neither raised by the source nor listed in RESERVED_REQUEST_STATUSES');
    for (const code of Object.keys(RESERVED_REQUEST_STATUSES).map(Number))
      assert.ok(!raised.has(code), `${code} is raised, so it is not reserved`);
  });
});

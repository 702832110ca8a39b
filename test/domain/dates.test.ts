// Wire dates in an account's zone: the fields of the last second read are kept per zone, so instants of one
// second in two zones, and the next second in one zone, must each come out as their own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatEvent, formatShort, zonedParts } from '../../src/domain/dates.ts';

test('pushed report dates: the same second in two zones, then the next second', () => {
  const at = Date.UTC(2026, 10, 28, 3, 30, 59, 100); // 28/11/2026 03:30:59.100 UTC
  assert.equal(formatEvent(at, 'Asia/Jerusalem'), '28/11/26 05:30:59');
  assert.equal(formatEvent(at + 800, 'Asia/Jerusalem'), '28/11/26 05:30:59');
  assert.equal(formatEvent(at, 'UTC'), '28/11/26 03:30:59');
  assert.equal(formatEvent(at + 900, 'Asia/Jerusalem'), '28/11/26 05:31:00');
  assert.equal(formatShort(at + 900, 'America/New_York'), '27/11/26 22:31');
});

test("zoned fields handed out are the caller's own: changing them does not change the next answer", () => {
  const at = Date.UTC(2026, 6, 1, 12, 0, 0);
  const first = zonedParts(at, 'Asia/Jerusalem');
  first.hour = 0;
  assert.equal(zonedParts(at, 'Asia/Jerusalem').hour, 15);
});

test('a summer-time change inside one zone: the seconds either side read their own offsets', () => {
  // Israel moved its clocks forward at 02:00 local on 2026-03-27 (00:00 UTC).
  const change = Date.UTC(2026, 2, 27, 0, 0, 0);
  assert.equal(formatEvent(change - 1000, 'Asia/Jerusalem'), '27/03/26 01:59:59');
  assert.equal(formatEvent(change, 'Asia/Jerusalem'), '27/03/26 03:00:00');
});

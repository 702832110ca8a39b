// The console's one date format and its numbers: `when` writes what domain/dates.ts's formatLong writes, across
// daylight-saving changes in several zones; thousands separators and percentages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatLong } from '../../../src/domain/dates.ts';
import { num, percent, when } from '../../../src/http/console/format.ts';

describe('console formats', () => {
  it('writes dd/mm/yyyy hh:mm:ss in the zone, as formatLong does, around offset changes', () => {
    const zones = ['Asia/Jerusalem', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'UTC'];
    for (const zone of zones) {
      for (let t = Date.UTC(2026, 2, 1); t < Date.UTC(2026, 11, 1); t += 3_600_000 * 7 + 61_123) {
        assert.equal(when(t, zone), formatLong(t, zone), `${zone} ${new Date(t).toISOString()}`);
      }
    }
    assert.equal(when(null, 'UTC'), '');
  });

  it('separates thousands and rounds rates to one decimal', () => {
    assert.equal(num(1234567), '1,234,567');
    assert.equal(num('20000'), '20,000');
    assert.equal(percent(1, 3), '33.3%');
    assert.equal(percent(0, 0), '–');
  });
});

// docs/statuses.md is the status catalogue of src/domain/status.ts, as `npm run docs:statuses` writes it: a code
// added, removed or reworded in the catalogue and not in the page (or the other way) fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { DELIVERY_STATUS, REQUEST_STATUS } from '../../src/domain/status.ts';
import { renderStatusesDoc, STATUSES_DOC } from '../../scripts/statuses-doc.ts';

it('docs/statuses.md is generated from the current catalogue (npm run docs:statuses)', () => {
  assert.equal(readFileSync(STATUSES_DOC, 'utf8'), renderStatusesDoc());
});

it('lists every request status and every delivery status with its English text', () => {
  const page = readFileSync(STATUSES_DOC, 'utf8');
  for (const [code, entry] of Object.entries(REQUEST_STATUS))
    assert.ok(page.includes(`| ${code} | ${entry.en.replace(/\|/g, '\\|')} |`), `request status ${code}`);
  for (const [code, entry] of Object.entries(DELIVERY_STATUS))
    assert.match(
      page,
      new RegExp(`^\\| ${code} \\| \`\\w+\` \\| ${entry.en.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'),
    );
});

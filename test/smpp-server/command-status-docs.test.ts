// docs/smpp-server.md's table of submit refusals is the server's: every row of SUBMIT_REFUSALS (API status,
// command_status name and value) is in the document, and the document lists no other.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SMPP_STATUS, SUBMIT_REFUSALS } from '../../src/smpp-server/command-status.ts';

const doc = readFileSync(join(import.meta.dirname, '../../docs/smpp-server.md'), 'utf8');

describe('docs/smpp-server.md error codes', () => {
  it('lists exactly the refusals of the send path and their command_status', () => {
    const rows = [...doc.matchAll(/^\| (\d+) \| `0x([0-9A-F]{8})` (\w+) \| (.+) \|$/gm)].map((m) => ({
      api: Number(m[1]),
      value: Number.parseInt(m[2], 16),
      name: m[3],
    }));
    assert.deepEqual(
      rows,
      SUBMIT_REFUSALS.map((r) => ({ api: r.api, value: SMPP_STATUS[r.smpp], name: r.smpp })),
    );
  });
});

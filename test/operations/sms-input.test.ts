// The `sms` input read without zod for its common shape (commonSmsInput) gives exactly what the schema gives,
// and leaves every other document to the schema (which words the errors).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commonSmsInput, smsInput } from '../../src/operations/sms.ts';

const base = { user: { username: 'acme' }, source: 'Yona', destinations: { phone: '0501234567' }, message: 'Hi' };

const common: Array<Record<string, unknown>> = [
  base,
  { ...base, source: '  Yona  ', message: '  keep my spaces  ' },
  { ...base, destinations: { phone: ['0501234567', { _: '0521234567', $: { id: 'a1' } }], cl_id: ['7', ' '] } },
  { ...base, destinations: [{ phone: '0501234567' }, { cl_id: '3' }] },
  { ...base, destinations: undefined },
  { ...base, tag: '  #promo ', timing: ' 01/12/26 10:00 ', campaign_name: '', add_unsubscribe: '1', temp_bl: '3' },
  { ...base, add_dynamic: '1', includes_international: ' 1 ', extra_field: 5 },
];

const unusual: Array<Record<string, unknown>> = [
  { ...base, source: ['Yona'] },
  { ...base, source: '   ' },
  { ...base, source: 5 },
  { ...base, message: '' },
  { ...base, message: { b: 'bold' } },
  { ...base, message: ['Hi'] },
  { ...base, tag: 7 },
  { ...base, timing: null },
  { ...base, temp_bl: 3 },
  { ...base, links: { link: { _: 'https://example.com', $: { id: '1' } } } },
  { ...base, tts: { type: '2' } },
  { user: base.user, destinations: base.destinations, message: 'Hi' },
];

describe('sms input of the common shape', () => {
  it('reads the common shape exactly as the schema does', () => {
    for (const doc of common) {
      const fast = commonSmsInput(doc);
      assert.ok(fast !== undefined, `read without the schema: ${JSON.stringify(doc)}`);
      const parsed = smsInput.safeParse(doc, { reportInput: true });
      assert.ok(parsed.success);
      assert.deepStrictEqual(fast, parsed.data);
    }
  });

  it('leaves every other shape to the schema', () => {
    for (const doc of unusual) assert.equal(commonSmsInput(doc), undefined, JSON.stringify(doc));
  });
});

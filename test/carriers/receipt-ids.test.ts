// Carrier message ids in one form when an SMSC writes them in hex on one side and in decimal on the other:
// the normalisation, the receiptIds setting of a carriers file, and the simulator's --id-format ids.
import type { SmppCarrierConfig } from '../../src/carriers/smpp/connector.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { readCarriersFile } from '../../src/delivery/carrier-setup.ts';
import { SimulatorIds } from '../../src/carriers/simulator/ids.ts';
import { canonicalMessageId } from '../../src/carriers/smpp/ids.ts';

it('canonicalMessageId: both sides become decimal without leading zeros; as-is changes nothing', () => {
  assert.equal(canonicalMessageId('00ff', 'submit', 'as-is'), '00ff');
  assert.equal(canonicalMessageId('0042', 'receipt', undefined), '0042');
  assert.equal(canonicalMessageId('1A2B', 'submit', 'submit-hex'), '6699');
  assert.equal(canonicalMessageId('0006699', 'receipt', 'submit-hex'), '6699');
  assert.equal(canonicalMessageId('6699', 'submit', 'receipt-hex'), '6699');
  assert.equal(canonicalMessageId('1a2b', 'receipt', 'receipt-hex'), '6699');
  assert.equal(canonicalMessageId('001a2b', 'submit', 'both-hex'), canonicalMessageId('1A2B', 'receipt', 'both-hex'));
  assert.equal(
    canonicalMessageId('ffffffffffffffffff', 'submit', 'submit-hex'),
    '4722366482869645213695',
    'beyond 2^53',
  );
  // Not a number in the expected base: kept as given.
  assert.equal(canonicalMessageId('abc-123', 'submit', 'submit-hex'), 'abc-123');
  assert.equal(canonicalMessageId('1a2b', 'receipt', 'submit-hex'), '1a2b');
  assert.equal(canonicalMessageId('', 'submit', 'both-hex'), '');
});

it('the simulator gives hex on one side and decimal on the other, or one text id', () => {
  const text = new SimulatorIds().next();
  assert.equal(text.submit, text.receipt);
  const submitHex = new SimulatorIds('submit-hex').next();
  assert.equal(BigInt(`0x${submitHex.submit}`).toString(), submitHex.receipt);
  assert.equal(
    canonicalMessageId(submitHex.submit, 'submit', 'submit-hex'),
    canonicalMessageId(submitHex.receipt, 'receipt', 'submit-hex'),
  );
  const receiptHex = new SimulatorIds('receipt-hex').next();
  assert.equal(BigInt(`0x${receiptHex.receipt}`).toString(), receiptHex.submit);
});

it('a carriers file takes receiptIds (as-is by default) and refuses a bad value, naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'yona-receipt-ids-'));
  try {
    const file = join(dir, 'carriers.json');
    const carrier = { name: 'a', host: 'h', port: 2775, systemId: 's', password: 'p' };
    writeFileSync(file, JSON.stringify({ carriers: [carrier, { ...carrier, name: 'b', receiptIds: 'submit-hex' }] }));
    assert.deepEqual(
      (readCarriersFile(file).carriers as SmppCarrierConfig[]).map((c) => c.receiptIds),
      ['as-is', 'submit-hex'],
    );
    writeFileSync(file, JSON.stringify({ carriers: [{ ...carrier, receiptIds: 'hex' }] }));
    assert.throws(
      () => readCarriersFile(file),
      (err: Error) =>
        /carriers\.0\.receiptIds/.test(err.message) && /both-hex/.test(err.message) && !err.message.includes('\n'),
    );
    writeFileSync(file, JSON.stringify({ carriers: [{ ...carrier, receipt_ids: 'submit-hex' }] }));
    assert.throws(() => readCarriersFile(file), /receipt_ids.*camelCase.*receiptIds/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

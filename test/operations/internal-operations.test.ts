// The internal operations (what the console's forms and yona admin run through the runner) are no part of the API:
// an /api request naming one is an unknown operation (997), and neither the operation table nor the API document
// lists them. The public operations declare their own retry safety (`idempotent`).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { openApiDocument } from '../../src/http/openapi/document.ts';
import { executeRequest, type AppContext } from '../../src/operations/execute.ts';
import { findOperation, internalOperationNames, operationNames } from '../../src/operations/index.ts';

const app = {
  store: {},
  config: {},
  signals: { notify: () => {} },
  clock: () => Date.now(),
  onUnexpectedError: (err: unknown) => {
    throw err;
  },
} as unknown as AppContext;

it('answers 997 to an API request naming an internal operation', async () => {
  const names = internalOperationNames();
  assert.ok(names.includes('setConsolePassword') && names.includes('addAllowedAddress'), names.join());
  for (const root of names) {
    const reply = await executeRequest(app, {
      root,
      doc: { user: { username: 'a' } },
      token: 't',
      ip: '',
      dryRun: false,
    });
    assert.equal(reply.status, 997, root);
  }
});

it('lists no internal operation in the table or the API document', () => {
  const document = JSON.stringify(openApiDocument());
  for (const root of internalOperationNames()) {
    assert.equal(findOperation(root), undefined, root);
    assert.ok(!operationNames().includes(root), root);
    assert.ok(!document.includes(`"${root}`), `${root} in /openapi.json`);
  }
});

it('takes an Idempotency-Key on the operations that declare it, and only those', () => {
  const keyed = operationNames().filter((root) => findOperation(root)?.idempotent);
  assert.deepEqual(keyed.sort(), [
    'bulk',
    'send_otp',
    'send_otp_whatsapp',
    'send_whatsapp_message',
    'send_whatsapp_template',
    'sms',
    'updateAmountSub',
  ]);
});

// Logs never carry tokens or passwords in clear.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { createLogger, readableLines } from '../src/logger.ts';

it('redacts authorization headers, passwords and tokens wherever they appear', () => {
  let written = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      written += chunk;
      done();
    },
  });
  const log = createLogger('info', sink);
  log.info({ req: { headers: { authorization: 'Bearer yona_SECRET1' } } }, 'request');
  log.info(
    { password: 'hunter2-SECRET2', token: 'yona_SECRET3', account: { password: 'SECRET4', token: 'SECRET5' } },
    'fields',
  );
  assert.ok(written.includes('"msg":"request"') && written.includes('"msg":"fields"'));
  for (const secret of ['SECRET1', 'SECRET2', 'SECRET3', 'SECRET4', 'SECRET5']) {
    assert.ok(!written.includes(secret), `${secret} leaked: ${written}`);
  }
  assert.ok(written.includes('[redacted]'));
});

it('writes readable lines for a terminal, with the fields and still no secret', () => {
  let written = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      written += chunk;
      done();
    },
  });
  const log = createLogger('info', readableLines(sink));
  log.info({ https: 8443, password: 'SECRET6' }, 'yona is serving');
  assert.match(
    written,
    /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] INFO: yona is serving\n {4}https: 8443\n {4}password: "\[redacted\]"\n$/,
  );
  assert.ok(!written.includes('{"'), 'not JSON');
});

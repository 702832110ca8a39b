// Logs never carry tokens or passwords in clear; JSON lines carry ISO-8601 times and readable lines the
// operator's zone with its offset; repeated identical lines are folded into one count.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { createLogger, readableLines } from '../src/logger.ts';

// A sink collecting what a logger writes.
function sink(): { stream: Writable; text: () => string } {
  let written = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      written += chunk;
      done();
    },
  });
  return { stream, text: () => written };
}

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
  const log = createLogger('info', readableLines(sink, false, 'Asia/Jerusalem'));
  log.info({ https: 8443, password: 'SECRET6' }, 'yona is serving');
  assert.match(
    written,
    /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\+0[23]:00\] INFO: yona is serving\n {4}https: 8443\n {4}password: "\[redacted\]"\n$/,
  );
  assert.ok(!written.includes('{"'), 'not JSON');
});

it('writes JSON lines with ISO-8601 times', () => {
  const out = sink();
  createLogger('info', out.stream).info({ port: 1 }, 'hello');
  const line = JSON.parse(out.text());
  assert.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(line.msg, 'hello');
});

it('folds 10,000 identical failures into one line and one count, and keeps different lines apart', () => {
  const out = sink();
  let now = Date.parse('2026-11-26T06:00:00Z');
  const log = createLogger('info', out.stream, { clock: () => now, foldWindowMs: 60_000 });
  for (let i = 0; i < 10_000; i++) {
    log.info({ event: 'api.refused', client: '192.0.2.7', status: 3 }, 'api request refused');
    if (i % 1000 === 0) log.info({ event: 'api.refused', client: '192.0.2.8', status: 3 }, 'api request refused');
    now += 5; // 10,000 lines over 50 s
  }
  const lines = () =>
    out
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines().map((l) => l.client),
    ['192.0.2.7', '192.0.2.8'],
    'the first of each, then nothing within the window',
  );
  now += 20_000; // the window has passed: the next one sums up the repeats and is written anew
  log.info({ event: 'api.refused', client: '192.0.2.7', status: 3 }, 'api request refused');
  const [, , summary, next] = lines();
  assert.equal(summary.msg, 'api request refused ... repeated 9999 times in 70 s');
  assert.equal(summary.repeated, 9999);
  assert.equal(summary.client, '192.0.2.7');
  assert.equal(next.msg, 'api request refused');
  assert.equal(next.repeated, undefined);
});

it('writes a line whose fields cannot be JSON (a cycle, as a request object has) without folding or failing', () => {
  const out = sink();
  const log = createLogger('info', out.stream);
  const cyclic: Record<string, unknown> = { method: 'POST' };
  cyclic.self = cyclic;
  log.info({ req: cyclic }, 'incoming request');
  log.info({ req: cyclic }, 'incoming request');
  assert.equal(out.text().trim().split('\n').length, 2);
});

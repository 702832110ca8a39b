// The request's logger made on first use: what fastify logs for a request still carries that request's id
// and the logger's own settings (level, redaction), and a request that logs nothing logs nothing.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import Fastify, { LogController } from 'fastify';
import { lazyRequestLogger } from '../../src/http/request-logger.ts';
import { createLogger } from '../../src/logger.ts';

function appWithLog(level: string, logRequests: boolean) {
  const lines: Array<Record<string, unknown>> = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      done();
    },
  });
  const app = Fastify({
    loggerInstance: createLogger(level, out),
    logController: new LogController({ disableRequestLogging: !logRequests }),
    childLoggerFactory: lazyRequestLogger as never,
  });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/noisy', async (request) => {
    request.log.warn({ token: 'secret-token' }, 'route warning');
    request.log.debug('below the level');
    return { ok: true, enabled: request.log.isLevelEnabled('debug'), level: request.log.level };
  });
  return { app, lines };
}

it('fastify request lines carry the request id when request logging is on', async () => {
  const { app, lines } = appWithLog('info', true);
  await app.inject({ method: 'GET', url: '/quiet' });
  await app.inject({ method: 'GET', url: '/quiet' });
  await app.close();
  const incoming = lines.filter((l) => l.msg === 'incoming request');
  const completed = lines.filter((l) => l.msg === 'request completed');
  assert.equal(incoming.length, 2);
  assert.equal(completed.length, 2);
  assert.ok(incoming[0].reqId && incoming[1].reqId);
  assert.notEqual(incoming[0].reqId, incoming[1].reqId);
  assert.deepEqual(
    completed.map((l) => l.reqId),
    incoming.map((l) => l.reqId),
  );
  assert.equal(completed[0].service, 'yona');
});

it('a route logging through request.log gets its id, the level and the redaction of the process logger', async () => {
  const { app, lines } = appWithLog('info', false);
  const reply = await app.inject({ method: 'GET', url: '/noisy' });
  await app.close();
  assert.deepEqual(reply.json(), { ok: true, enabled: false, level: 'info' });
  assert.equal(lines.length, 1, JSON.stringify(lines));
  assert.equal(lines[0].msg, 'route warning');
  assert.equal(lines[0].token, '[redacted]');
  assert.match(String(lines[0].reqId), /^req-/);
});

it('nothing is logged for a request answered normally with request logging off', async () => {
  const { app, lines } = appWithLog('trace', false);
  await app.inject({ method: 'GET', url: '/quiet' });
  await app.close();
  assert.deepEqual(
    lines.filter((l) => l.reqId !== undefined),
    [],
  );
});

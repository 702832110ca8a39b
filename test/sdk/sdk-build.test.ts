// `npm run build` builds @yona/sdk into sdk/dist/: index.js (which loads as the package's main, openapi-fetch
// its only import) and index.d.ts; the built client calls a server and throws YonaError on a failed reply and
// on an answer that is not a reply.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { it } from 'node:test';

const ROOT = join(import.meta.dirname, '../..');

it('npm run build writes sdk/dist/, whose client works as built', async () => {
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--quiet'], { encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'sdk/package.json'), 'utf8'));
  assert.equal(pkg.name, '@yona/sdk');
  const declarations = readFileSync(join(ROOT, 'sdk', pkg.types), 'utf8');
  assert.match(declarations, /export declare class Yona/);
  assert.match(declarations, /verifyPushSignature/);
  const sdk = await import(pathToFileURL(join(ROOT, 'sdk', pkg.main)).href);

  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      bodies.push(`${req.headers.authorization} ${req.headers['idempotency-key']} ${body}`);
      if (body.includes('Proxy')) return void res.writeHead(502, { 'content-type': 'text/plain' }).end('Bad gateway');
      const refused = body.includes('Nobody');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(refused ? { status: 515, message: 'Unverified source' } : { status: 0, message: 'ok' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const yona = new sdk.Yona({ baseUrl, token: 'tok', username: 'acme' });
    assert.equal((await yona.sms({ source: 'Acme', message: 'hi' }, { idempotencyKey: 'k1' })).status, 0);
    assert.equal(bodies[0], 'Bearer tok k1 {"sms":{"user":{"username":"acme"},"source":"Acme","message":"hi"}}');
    const error = await yona.sms({ source: 'Nobody', message: 'hi' }).catch((e: unknown) => e);
    assert.ok(error instanceof sdk.YonaError);
    assert.deepEqual([error.status, error.text], [515, 'Unverified source']);
    const gateway = await yona.sms({ source: 'Proxy', message: 'hi' }).catch((e: unknown) => e);
    assert.ok(gateway instanceof sdk.YonaError, 'an answer that is not a reply is a YonaError too');
    assert.deepEqual([gateway.status, gateway.httpStatus, gateway.text], [502, 502, 'Bad gateway']);
  } finally {
    server.close();
  }
});

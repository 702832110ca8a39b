// Secrets sealed at rest: a sealed value carries its prefix and opens only under its key; a clear value an earlier
// version stored is told apart and read as it is; sealing a document touches only its secret text fields, once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { isSealedAtRest, openAtRest, sealAtRest, sealFields } from '../../src/domain/sealed.ts';

const key = randomBytes(32);

describe('secrets sealed at rest', () => {
  it('seals to a prefixed value that opens under its key only', () => {
    const sealed = sealAtRest(key, 'pw-123');
    assert.match(sealed, /^sealed:v1\./);
    assert.ok(!sealed.includes('pw-123'));
    assert.notEqual(sealAtRest(key, 'pw-123'), sealed, 'a fresh IV each time');
    assert.equal(openAtRest(key, sealed), 'pw-123');
    assert.throws(() => openAtRest(randomBytes(32), sealed));
    assert.equal(openAtRest(key, sealAtRest(key, '')), '', 'an empty password too');
  });

  it('reads a clear value as it is, even one that looks like the sealed form in part', () => {
    for (const clear of ['s3cret', 'sealed:', 'v1.a.b.c', 'sealed:v1.a b.c.d']) {
      assert.equal(isSealedAtRest(clear), false, clear);
      assert.equal(openAtRest(key, clear), clear);
    }
  });

  it('seals only the named text fields of a document, and leaves sealed ones as they are', () => {
    const once = sealFields(key, { host: 'h', port: 2775, password: 'pw' }, ['password', 'token']);
    assert.deepEqual(Object.keys(once), ['host', 'port', 'password']);
    assert.equal(once.host, 'h');
    assert.equal(once.port, 2775);
    assert.equal(openAtRest(key, once.password as string), 'pw');
    assert.deepEqual(sealFields(key, once, ['password']), once, 'a second pass changes nothing');
  });
});

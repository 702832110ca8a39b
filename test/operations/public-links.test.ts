// Links of this service texted through a live carrier must open on the recipient's phone: with YONA_PUBLIC_URL
// at its default (https://localhost:PORT) or another loopback or private address, a send with short links
// (`links`), removal links (`add_unsubscribe` 3) or a sender verification link is refused with 981 naming the
// setting once a carrier is configured; the bundled simulator (no carrier configured) still takes them, and a
// public YONA_PUBLIC_URL sends through the carrier.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { localPublicUrlReason, publicUrlLocalReason } from '../../src/domain/public-url.ts';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender, startSendingService, type Sender } from './send-helpers.ts';

const withLink = {
  destinations: { phone: ['0501234567'] },
  message: 'Sale: [shop]',
  links: { link: [{ $: { id: 'shop' }, _: 'https://shop.example.com/sale' }] },
};
const withRemovalLink = { destinations: { phone: ['0501234567'] }, message: 'Sale today', add_unsubscribe: '3' };
const live = [
  'add-carrier',
  'operator',
  '--host',
  '192.0.2.10',
  '--port',
  '2775',
  '--system-id',
  's',
  '--password',
  'p',
];

it('tells a public URL from one of this machine or a private network', () => {
  for (const local of [
    'https://localhost:8443',
    'https://sms.localhost',
    'https://127.0.0.1:8443',
    'https://[::1]:8443',
    'http://10.1.2.3',
    'https://192.168.1.20:8443',
    'https://172.16.0.1',
    'https://yona.local',
    'https://yona.internal',
    'https://yona:8443',
  ])
    assert.notEqual(localPublicUrlReason(local), null, local);
  for (const pub of ['https://sms.example.com', 'https://8.8.8.8', 'https://yona.example.co.il:8443'])
    assert.equal(localPublicUrlReason(pub), null, pub);
});

const targets = await storeTargets();
for (const target of targets) {
  describe(`links under a local YONA_PUBLIC_URL (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    before(async () => {
      t = await startSendingService(target, { env: {} }); // YONA_PUBLIC_URL at its default
      s = await newSender(t, 'linker');
    });
    after(() => t.close());

    it('sends them while only the bundled simulator takes texts, and refuses them (981) once a carrier is configured', async () => {
      assert.match(t.config.publicUrl, /^https:\/\/localhost:/);
      assert.equal((await s.sms(withLink)).status, 0);
      assert.equal((await s.sms(withRemovalLink)).status, 0);

      await t.admin(...live);
      for (const doc of [withLink, withRemovalLink]) {
        const reply = await s.sms(doc);
        assert.equal(reply.status, 981, JSON.stringify(reply));
        assert.match(reply.message, /YONA_PUBLIC_URL https:\/\/localhost:\d+ \(localhost is this machine\)/);
        assert.match(reply.message, /carrier "operator"/);
      }
      const verify = await s.call('verify_phone', { phone: ['0529876543'] });
      assert.equal(verify.status, 981, JSON.stringify(verify));
      assert.match(verify.message, /verification link would point at YONA_PUBLIC_URL/);
      // A text without a link of this service goes as before.
      assert.equal((await s.sms({ destinations: { phone: ['0501234567'] }, message: 'no link' })).status, 0);
    });
  });

  describe(`links under a public YONA_PUBLIC_URL (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    before(async () => {
      t = await startSendingService(target, { env: { YONA_PUBLIC_URL: 'https://sms.example.com' } });
      s = await newSender(t, 'linker');
      await t.admin(...live);
    });
    after(() => t.close());

    it('sends them through the configured carrier', async () => {
      assert.equal((await s.sms(withLink)).status, 0);
      assert.equal((await s.sms(withRemovalLink)).status, 0);
    });
  });
}

it('warns at start (config.public_url_local) only when the HTTPS listener is public and YONA_PUBLIC_URL is not', () => {
  assert.match(publicUrlLocalReason('0.0.0.0', 'https://localhost:8443') ?? '', /localhost is this machine/);
  assert.match(publicUrlLocalReason('::', 'https://192.168.1.5') ?? '', /private address/);
  assert.match(publicUrlLocalReason('203.0.113.7', 'https://127.0.0.1:8443') ?? '', /loopback/);
  for (const loopback of ['127.0.0.1', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'])
    assert.equal(publicUrlLocalReason(loopback, 'https://localhost:8443'), null, loopback);
  assert.equal(publicUrlLocalReason('0.0.0.0', 'https://sms.example.com'), null);
});

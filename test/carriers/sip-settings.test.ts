// Voice trunks in the carriers file: an entry with "protocol": "sip" is read by the SIP protocol, with its
// defaults, beside SMPP carriers; mistakes name the entry and the field.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { readCarriersFile } from '../../src/delivery/carrier-setup.ts';

const dir = mkdtempSync(join(tmpdir(), 'yona-sip-settings-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (content: unknown) => {
  const path = join(dir, `carriers-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
};

it('reads a SIP trunk beside an SMPP carrier, with its defaults', () => {
  const setup = readCarriersFile(
    file({
      carriers: [
        { name: 'sms', host: 'smsc.example', port: 2775, systemId: 's', password: 'p' },
        {
          protocol: 'sip',
          name: 'voice',
          host: 'trunk.example',
          callerId: '+97235550000',
          username: 'u',
          password: 'pw',
        },
      ],
      routes: { default: 'sms' },
    }),
  );
  assert.deepEqual(
    setup.carriers.map((c) => [c.name, c.protocol]),
    [
      ['sms', 'smpp'],
      ['voice', 'sip'],
    ],
  );
  const voice = setup.carriers[1];
  assert.deepEqual(
    [
      voice.port,
      voice.callerId,
      voice.localIp,
      voice.maxCalls,
      voice.callsPerSecond,
      voice.ringTimeoutMs,
      voice.optionsIntervalMs,
    ],
    [5060, '97235550000', '127.0.0.1', 10, 0, 30_000, 30_000],
  );
});

it('names the entry and field of a mistake, and an unknown protocol', () => {
  assert.throws(
    () => readCarriersFile(file({ carriers: [{ protocol: 'sip', name: 'voice', host: 'h', callerId: 'office' }] })),
    /carriers\.0\.callerId: callerId must be a phone number/,
  );
  assert.throws(
    () =>
      readCarriersFile(
        file({ carriers: [{ protocol: 'sip', name: 'voice', host: 'h', callerId: '035550000', max_calls: 3 }] }),
      ),
    /max_calls.*camelCase/,
  );
  assert.throws(
    () => readCarriersFile(file({ carriers: [{ protocol: 'fax', name: 'f' }] })),
    /carrier "f": unknown protocol "fax" \(known: smpp, sip, whatsapp-cloud\)/,
  );
});

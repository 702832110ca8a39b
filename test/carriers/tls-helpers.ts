// Test PKI for carrier TLS: a private CA and a server certificate it signed, written to a temp directory,
// and a logger that keeps what the connector logs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { SmppLogger } from '../../src/carriers/smpp/session.ts';

/** A private CA (caPath) and a server key/certificate signed by it for the given DNS names and 127.0.0.1. */
export interface TestPki {
  dir: string;
  caPath: string;
  key: string;
  cert: string;
  cleanup(): void;
}

const EC = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' } as const;

/** Creates the CA and a server certificate for `names` (plus IP 127.0.0.1 unless `withIp` is false). */
export async function privatePki(names: string[] = ['localhost'], withIp = true): Promise<TestPki> {
  const ca = await generate([{ name: 'commonName', value: 'Test Carrier Root CA' }], {
    ...EC,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const altNames = [
    ...names.map((value) => ({ type: 2 as const, value })),
    ...(withIp ? [{ type: 7 as const, ip: '127.0.0.1' }] : []),
  ];
  const server = await generate([{ name: 'commonName', value: names[0] }], {
    ...EC,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'yona-pki-'));
  const caPath = join(dir, 'carrier-ca.pem');
  writeFileSync(caPath, ca.cert);
  return {
    dir,
    caPath,
    key: server.private,
    cert: server.cert,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** One log call as the connector made it. */
export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  obj: Record<string, unknown>;
  msg?: string;
}

/** A logger keeping every entry (debug included) in `entries`. */
export function capturingLogger(): SmppLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (obj: object, msg?: string) =>
    void entries.push({ level, obj: obj as Record<string, unknown>, msg });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

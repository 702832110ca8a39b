// TLS for a standalone simulator: the operator's key and certificate, or a self-signed certificate for
// localhost / 127.0.0.1 / ::1 created once and kept, so carriers can trust it with tlsCa pointing at it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/** PEM key and certificate to serve, and the certificate's path (what a carrier's tlsCa should name). */
export interface SimulatorTls {
  key: string;
  cert: string;
  certPath: string;
  selfSigned: boolean;
}

/** The given key and certificate files, read. */
export function readSimulatorTls(certPath: string, keyPath: string): SimulatorTls {
  return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), certPath, selfSigned: false };
}

/** A self-signed certificate for the loopback names, kept in `dir` (reused on later starts). */
export async function selfSignedSimulatorTls(dir: string): Promise<SimulatorTls> {
  const certPath = join(dir, 'smsc-sim.crt');
  const keyPath = join(dir, 'smsc-sim.key');
  if (existsSync(certPath) && existsSync(keyPath)) return { ...readSimulatorTls(certPath, keyPath), selfSigned: true };
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 825 * 86400e3),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert);
  return { key: pems.private, cert: pems.cert, certPath, selfSigned: true };
}

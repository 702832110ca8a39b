// A self-signed certificate kept in a directory: the service's TLS listener and the bundled simulator's SMPP over
// TLS use it when the operator gives none.
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { DAY_MS } from '../domain/dates.ts';

/**
 * A self-signed certificate for localhost, 127.0.0.1 and ::1, kept as `dir/NAME.crt` and `.key` and reused
 * on later starts until it is within 30 days of expiring, then made anew.
 */
export async function selfSignedCertificate(
  dir: string,
  name: string,
): Promise<{ key: string; cert: string; certPath: string }> {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  if (existsSync(certPath) && existsSync(keyPath)) {
    const cert = readFileSync(certPath, 'utf8');
    if (Date.parse(new X509Certificate(cert).validTo) - Date.now() > 30 * DAY_MS)
      return { cert, key: readFileSync(keyPath, 'utf8'), certPath };
  }
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 825 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert);
  return { cert: pems.cert, key: pems.private, certPath };
}

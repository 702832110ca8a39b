// TLS for a standalone simulator: the operator's key and certificate, or a self-signed certificate for
// localhost / 127.0.0.1 / ::1 created once and kept, so carriers can trust it with tlsCa pointing at it.
import { readFileSync } from 'node:fs';
import { selfSignedCertificate } from '../../support/self-signed.ts';

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
  return { ...(await selfSignedCertificate(dir, 'smsc-sim')), selfSigned: true };
}

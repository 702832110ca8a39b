// TLS material: the operator's certificate, or a self-signed one generated into the data dir on first start.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { selfSignedCertificate } from '../support/self-signed.ts';

export interface TlsMaterial {
  key: string;
  cert: string;
  selfSigned: boolean;
}

/** Loads YONA_TLS_CERT/KEY, or creates (once) and reuses a self-signed certificate for localhost. */
export async function loadTls(config: Config): Promise<TlsMaterial> {
  if (config.tlsCert && config.tlsKey) {
    return { cert: readFileSync(config.tlsCert, 'utf8'), key: readFileSync(config.tlsKey, 'utf8'), selfSigned: false };
  }
  const { cert, key } = await selfSignedCertificate(join(config.dataDir, 'tls'), 'self-signed');
  return { cert, key, selfSigned: true };
}

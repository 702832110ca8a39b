// TLS to a carrier: the connect options from its settings (a private CA bundle, the name to verify), and a
// plain-words account of a failed handshake for the log. Certificate verification is always on.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';

/** The TLS settings of a carrier, as configured. */
export interface CarrierTlsSettings {
  tls: boolean;
  /** Path of a PEM bundle of the CA certificates to trust instead of the system CAs. */
  tlsCa?: string;
  /** Name to check the certificate against (and send as SNI) instead of the host. */
  tlsServername?: string;
  /** Extra options for tls.connect (tests); tlsCa and tlsServername win over them. */
  tlsOptions?: Omit<ConnectionOptions, 'socket'>;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Reads a PEM CA bundle; throws an Error naming the file and what is wrong with it. */
export function readCaBundle(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read CA bundle ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const certificates = pem.match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0)
    throw new Error(`CA bundle ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  for (const [i, certificate] of certificates.entries()) {
    try {
      new X509Certificate(certificate);
    } catch (err) {
      throw new Error(`CA bundle ${path}: certificate ${i + 1} is not valid: ${(err as Error).message}`);
    }
  }
  return pem;
}

/** Options for tls.connect from a carrier's settings (undefined when TLS is off); reads the CA bundle. */
export function tlsConnectOptions(settings: CarrierTlsSettings): Omit<ConnectionOptions, 'socket'> | undefined {
  if (!settings.tls) return undefined;
  const options: Omit<ConnectionOptions, 'socket'> = { ...settings.tlsOptions };
  if (settings.tlsCa) options.ca = readCaBundle(settings.tlsCa);
  if (settings.tlsServername) options.servername = settings.tlsServername;
  return options;
}

// OpenSSL verification codes that mean "the chain does not end at a CA we trust".
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** Why a TLS handshake with a carrier failed and what the operator can do, or undefined for other errors. */
export function describeTlsFailure(
  err: NodeJS.ErrnoException,
  settings: CarrierTlsSettings,
): { code: string; hint: string } | undefined {
  const code = err.code ?? '';
  if (UNTRUSTED.has(code)) {
    return {
      code,
      hint: settings.tlsCa
        ? `the carrier's certificate does not chain to a CA in ${settings.tlsCa}; check that bundle holds the carrier's CA`
        : "the carrier's certificate is not signed by a system CA; set tlsCa (--tls-ca) to the carrier's CA bundle (PEM)",
    };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return {
      code,
      hint: 'the certificate is for another name; set tlsServername (--tls-servername) to the name it was issued for',
    };
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return { code, hint: "the carrier's certificate is outside its validity dates (or this machine's clock is wrong)" };
  }
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
    return { code, hint: 'the TLS handshake failed; check that the carrier serves TLS on this port' };
  }
  return undefined;
}

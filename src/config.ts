// One validated configuration, read from the environment (flags override in cli/).
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { DEFAULT_TIME_ZONE, isValidTimeZone } from './domain/dates.ts';
import { parseDuration } from './domain/token.ts';
import { parseCidr } from './domain/ip.ts';
import { ConfigError } from './domain/errors.ts';
import { parseRoles, type Role } from './domain/roles.ts';

export interface Config {
  dataDir: string;
  databaseUrl?: string;
  httpsPort: number;
  httpsHost: string;
  httpPort: number;
  httpHost: string;
  tlsCert?: string;
  tlsKey?: string;
  /** CIDRs whose X-Forwarded-For is believed. */
  trustProxy: string[];
  bodyLimit: number;
  tokenTtlMs: number;
  defaultTimeZone: string;
  publicUrl: string;
  logLevel: string;
  /** Log every request (off by default: it costs throughput). */
  logRequests: boolean;
  /** YONA_SECRET_KEY: the sealing key (32 bytes, base64); unset, one is kept in the data dir (secret-key.ts). */
  secretKey?: Buffer;
  otp: OtpSettings;
  /** YONA_CALL_CREDITS_PER_MINUTE (2): credits a voice call costs per started minute of its estimated length. */
  callCreditsPerMinute: number;
  node: NodeSettings;
}

/** This node among several on one database. */
export interface NodeSettings {
  /** YONA_NODE_NAME (the host name): unique per node of one database. */
  name: string;
  /** YONA_ROLES or `yona serve --roles` (all): what this node runs. */
  roles: Role[];
  /** YONA_NODE_LEASE_MS (10000): a dead node's binds, shares and leadership move after this long. */
  leaseMs: number;
}

/** Limits of one-time codes; 0 turns a limit off. */
export interface OtpSettings {
  /** YONA_OTP_DIGITS (6): digits in a code, 4 to 10. */
  digits: number;
  /** YONA_OTP_PHONE_HOURLY (5): codes one account may send one phone in an hour. */
  perPhoneHourly: number;
  /** YONA_OTP_ACCOUNT_HOURLY (1000): codes one account may send in an hour. */
  perAccountHourly: number;
  /** YONA_OTP_RESEND_SECONDS (30): wait before another code for the same phone and app. */
  resendSeconds: number;
  /** YONA_OTP_PHONE_FAILURES_HOURLY (10): failed validations per phone in an hour, over all its codes. */
  phoneFailuresHourly: number;
}

export { ConfigError };

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

function secretKey(env: NodeJS.ProcessEnv): Buffer | undefined {
  const raw = env.YONA_SECRET_KEY;
  if (raw === undefined || raw === '') return undefined;
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError(`YONA_SECRET_KEY must be 32 bytes in base64 (openssl rand -base64 32), got ${key.length} bytes`);
  return key;
}

function otpSettings(env: NodeJS.ProcessEnv): OtpSettings {
  const digits = int(env, 'YONA_OTP_DIGITS', 6);
  if (digits < 4 || digits > 10) throw new ConfigError(`YONA_OTP_DIGITS must be 4 to 10, got "${env.YONA_OTP_DIGITS}"`);
  return {
    digits,
    perPhoneHourly: int(env, 'YONA_OTP_PHONE_HOURLY', 5),
    perAccountHourly: int(env, 'YONA_OTP_ACCOUNT_HOURLY', 1000),
    resendSeconds: int(env, 'YONA_OTP_RESEND_SECONDS', 30),
    phoneFailuresHourly: int(env, 'YONA_OTP_PHONE_FAILURES_HOURLY', 10),
  };
}

function nodeSettings(env: NodeJS.ProcessEnv): NodeSettings {
  const leaseMs = int(env, 'YONA_NODE_LEASE_MS', 10_000);
  if (leaseMs < 1000) throw new ConfigError(`YONA_NODE_LEASE_MS must be at least 1000, got "${env.YONA_NODE_LEASE_MS}"`);
  const name = (env.YONA_NODE_NAME ?? '').trim() || hostname();
  return { name, roles: parseRoles(env.YONA_ROLES, 'YONA_ROLES'), leaseMs };
}

/** Reads and checks the configuration; throws ConfigError with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const tokenTtl = env.YONA_TOKEN_TTL ?? '365d';
  const tokenTtlMs = parseDuration(tokenTtl);
  if (tokenTtlMs === null) throw new ConfigError(`YONA_TOKEN_TTL must look like 365d or 12h, got "${tokenTtl}"`);
  const trustProxy = (env.YONA_TRUST_PROXY ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const cidr of trustProxy) {
    if (!parseCidr(cidr)) throw new ConfigError(`YONA_TRUST_PROXY has an invalid CIDR: "${cidr}"`);
  }
  const defaultTimeZone = env.YONA_TIME_ZONE ?? DEFAULT_TIME_ZONE;
  if (!isValidTimeZone(defaultTimeZone)) throw new ConfigError(`YONA_TIME_ZONE is not a time zone: "${defaultTimeZone}"`);
  if ((env.YONA_TLS_CERT === undefined) !== (env.YONA_TLS_KEY === undefined)) {
    throw new ConfigError('YONA_TLS_CERT and YONA_TLS_KEY must be set together');
  }
  const httpsPort = int(env, 'YONA_HTTPS_PORT', 8443);
  return {
    dataDir: resolve(env.YONA_DATA_DIR ?? './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    httpsPort,
    httpsHost: env.YONA_HTTPS_HOST ?? '0.0.0.0',
    httpPort: int(env, 'YONA_HTTP_PORT', 8080),
    httpHost: env.YONA_HTTP_HOST ?? '127.0.0.1',
    tlsCert: env.YONA_TLS_CERT,
    tlsKey: env.YONA_TLS_KEY,
    trustProxy,
    bodyLimit: int(env, 'YONA_BODY_LIMIT', 16 * 1024 * 1024),
    tokenTtlMs,
    defaultTimeZone,
    publicUrl: (env.YONA_PUBLIC_URL ?? `https://localhost:${httpsPort}`).replace(/\/+$/, ''),
    logLevel: env.YONA_LOG_LEVEL ?? 'info',
    logRequests: env.YONA_LOG_REQUESTS === '1',
    secretKey: secretKey(env),
    otp: otpSettings(env),
    callCreditsPerMinute: int(env, 'YONA_CALL_CREDITS_PER_MINUTE', 2),
    node: nodeSettings(env),
  };
}

// One validated configuration, read from the environment (flags override in cli/). Every setting is declared
// once in SETTINGS below: its variable, its zod schema (the text of the variable to a typed value, with its
// default), the default as docs/configuration.md shows it, and what it means. That page's configuration table is
// checked against SETTINGS by test/config.test.ts. Nothing else in src/ reads process.env: the parsed
// Config is handed down through the service to the components.
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_TIME_ZONE, isValidTimeZone } from './domain/dates.ts';
import { parseDuration } from './domain/token.ts';
import { parseCidr } from './domain/ip.ts';
import { ConfigError } from './domain/errors.ts';
import type { PushSettings } from './domain/push-settings.ts';
import { parseRoles, type Role } from './domain/roles.ts';
import type { SendingSettings } from './domain/sending.ts';

export interface Config {
  dataDir: string;
  databaseUrl?: string;
  /** YONA_PG_POOL (10): connections in the PostgreSQL pool. */
  pgPool: number;
  /** YONA_SQLITE_GROUP_COMMIT (on): commit concurrent SQLite transactions together. */
  sqliteGroupCommit: boolean;
  /** YONA_RETENTION_DAYS (0: keep everything): finished campaigns with their messages, and inbound messages, older than this go. */
  retentionDays: number;
  /** YONA_ALERT_INTERVAL_MS (30,000): how often the leading node evaluates the operator's alerts; YONA_ALERT_MINUTE_MS (60,000): the length of a "minute" in alert thresholds. */
  alerts: { intervalMs: number; minuteMs: number };
  /** YONA_PG_GROUP_LANES (1): connections that commit concurrent API sends together on PostgreSQL; 0 commits each alone. */
  pgGroupLanes: number;
  httpsPort: number;
  httpsHost: string;
  httpPort: number;
  httpHost: string;
  tlsCert?: string;
  tlsKey?: string;
  /** The SMPP server's listeners (src/smpp-server/): plain and TLS ports (unset: off) and their address. */
  smpp: { port?: number; tlsPort?: number; host: string };
  /** CIDRs whose X-Forwarded-For is believed. */
  trustProxy: string[];
  bodyLimit: number;
  /** The body limit of an API request without a bearer token (unauthenticated, or by password). */
  bodyLimitWithoutToken: number;
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
  /** The send path: international price, sender verification. */
  sending: SendingSettings;
  /** The pusher, and which URLs push_url accepts. */
  push: PushSettings;
  /** The delivery workers: dispatcher, receipts, inbound. */
  delivery: DeliverySettings;
  /** YONA_CARRIERS_FILE: a JSON file of carriers and routes (besides those in the store). */
  carriersFile?: string;
}

/** This node among several on one database. */
/** The delivery workers' settings (dispatcher, receipts, inbound; YONA_DISPATCH_*, YONA_RECEIPT_WINDOW_MS, ...). */
export interface DeliverySettings {
  /** Messages claimed per dispatcher batch (1000). */
  batchSize: number;
  /** Messages waiting for a throttled carrier's permits beyond which the next carrier of a route comes first. */
  throttleBacklog: number;
  /** Batches in flight at once (2): while one finishes (its last answers, its campaigns), the next submits. */
  lanes: number;
  /** How long a claim holds its messages (120 s); an expired claim is taken again. */
  leaseMs: number;
  /** Idle poll interval of the dispatcher (200 ms); a 'dispatch' signal wakes it at once. */
  pollMs: number;
  /** Submit attempts before a transiently failing message is given up (20). */
  maxAttempts: number;
  /** First retry delay (1 s), doubled per attempt up to retryMaxMs (5 min). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** A submitted message with no final receipt within this window gets status 2 (48 h). */
  receiptWindowMs: number;
  /** A call with no outcome within this window (its process died mid-call) gets status 2 (15 min). */
  callWindowMs: number;
  /** How often the receipt-window sweeper runs (min(60 s, window / 4)). */
  sweepMs: number;
  /** Reply keywords that block the sender (lower-cased): הסר, stop, remove. */
  removalKeywords: string[];
  /** Receipt delay of the bundled simulator started by `yona serve` (200 ms). */
  simulatorReceiptDelayMs: number;
  /** YONA_SIMULATORS (on): whether `yona serve` may start the bundled simulators when no carrier is configured. */
  simulators: boolean;
}

export interface NodeSettings {
  /** YONA_NODE_NAME (the host name): unique per node of one database. */
  name: string;
  /** False when YONA_NODE_NAME is unset: the service then adds this data dir's node id (cluster/node-identity.ts). */
  named?: boolean;
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

/** The variables, as given (unset and empty mean the default). */
export type Env = Record<string, string | undefined>;

// The value of a variable: undefined when unset or empty.
const given = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v));

/** An integer of at least `min` (and at most `max`). */
function integer(fallback: number, min = 0, max?: number) {
  return given.transform((raw, ctx) => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (Number.isInteger(n) && n >= min && (max === undefined || n <= max)) return n;
    const range =
      max !== undefined ? `${min} to ${max}` : min === 0 ? 'a non-negative integer' : `an integer >= ${min}`;
    ctx.addIssue({ code: 'custom', message: `must be ${range}, got "${raw}"` });
    return z.NEVER;
  });
}

/** A TCP port, unset when not given (the listener is off). */
function optionalPort() {
  return given.transform((raw, ctx) => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (Number.isInteger(n) && n >= 0 && n <= 65_535) return n;
    ctx.addIssue({ code: 'custom', message: `must be a port 0 to 65535, got "${raw}"` });
    return z.NEVER;
  });
}

/** Free text. */
function text(fallback: string) {
  return given.transform((raw) => raw ?? fallback);
}

/** Free text with no default. */
const optionalText = given;

/** A duration like 365d or 12h, in milliseconds. */
function duration(fallback: string) {
  return given.transform((raw, ctx) => {
    const ms = parseDuration(raw ?? fallback);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: `must look like ${fallback} or 12h, got "${raw}"` });
      return z.NEVER;
    }
    return ms;
  });
}

/** Where a domain parser throws ConfigError (whose message names the variable). */
function parsed<T>(parse: (raw: string | undefined) => T) {
  return given.transform((raw, ctx) => {
    try {
      return parse(raw);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message });
      return z.NEVER;
    }
  });
}

/** One setting: its schema, its default as docs/configuration.md shows it, and what it means. */
interface Setting<T> {
  schema: z.ZodType<T, string | undefined>;
  default: string;
  meaning: string;
}

function setting<T>(schema: z.ZodType<T, string | undefined>, fallback: string, meaning: string): Setting<T> {
  return { schema, default: fallback, meaning };
}

/** Every setting of Yona, by its environment variable. */
export const SETTINGS = {
  // Store
  YONA_DATA_DIR: setting(
    text('./data').transform((dir) => resolve(dir)),
    './data',
    'embedded store, self-signed certificate, secret key',
  ),
  DATABASE_URL: setting(optionalText, 'unset', 'postgres://...: PostgreSQL instead of the embedded store'),
  YONA_PG_POOL: setting(integer(10, 1), '10', 'connections in the PostgreSQL pool of one process'),
  YONA_SQLITE_GROUP_COMMIT: setting(
    given.transform((raw) => raw !== '0'),
    'on',
    '0 commits each SQLite transaction alone',
  ),
  YONA_RETENTION_DAYS: setting(
    integer(0, 0, 36_500),
    '0',
    'days finished campaigns, their messages and inbound messages are kept (0: for ever)',
  ),
  YONA_ALERT_INTERVAL_MS: setting(
    integer(30_000, 100, 3_600_000),
    '30000',
    "how often the leading node evaluates the operator's alert thresholds, in milliseconds",
  ),
  YONA_ALERT_MINUTE_MS: setting(
    integer(60_000, 100, 60_000),
    '60000',
    'milliseconds in a minute of alert thresholds (shorter only for tests)',
  ),
  YONA_PG_GROUP_LANES: setting(
    integer(1, 0, 64),
    '1',
    'connections that commit concurrent API sends together on PostgreSQL (0: each alone)',
  ),
  // Listeners
  YONA_HTTPS_PORT: setting(integer(8443), '8443', 'port of the public TLS listener'),
  YONA_HTTPS_HOST: setting(text('0.0.0.0'), '0.0.0.0', 'address of the public TLS listener'),
  YONA_HTTP_PORT: setting(integer(8080), '8080', 'port of the plain HTTP listener'),
  YONA_HTTP_HOST: setting(text('127.0.0.1'), '127.0.0.1', 'address of the plain HTTP listener'),
  YONA_TLS_CERT: setting(optionalText, 'unset', 'PEM certificate of the public listener (with YONA_TLS_KEY)'),
  YONA_TLS_KEY: setting(optionalText, 'unset', 'PEM key of the public listener (with YONA_TLS_CERT)'),
  YONA_TRUST_PROXY: setting(
    given.transform((raw, ctx) => {
      const cidrs = (raw ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = cidrs.find((cidr) => !parseCidr(cidr));
      if (bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: `has an invalid CIDR: "${bad}"` });
        return z.NEVER;
      }
      return cidrs;
    }),
    'unset',
    'comma-separated CIDRs whose X-Forwarded-For is believed',
  ),
  YONA_BODY_LIMIT: setting(integer(16 * 1024 * 1024), '16777216', 'request body limit in bytes'),
  YONA_BODY_LIMIT_WITHOUT_TOKEN: setting(
    integer(1024 * 1024),
    '1048576',
    'body limit in bytes of an API request without a valid bearer token',
  ),
  YONA_PUBLIC_URL: setting(
    optionalText,
    'https://localhost:$YONA_HTTPS_PORT',
    'base of short, unsubscribe and verification links',
  ),
  // Accounts and tokens
  YONA_TOKEN_TTL: setting(duration('365d'), '365d', 'lifetime of new API tokens'),
  YONA_TIME_ZONE: setting(
    given.transform((raw, ctx) => {
      const zone = raw ?? DEFAULT_TIME_ZONE;
      if (isValidTimeZone(zone)) return zone;
      ctx.addIssue({ code: 'custom', message: `is not a time zone: "${zone}"` });
      return z.NEVER;
    }),
    DEFAULT_TIME_ZONE,
    'default time zone of new accounts',
  ),
  YONA_SECRET_KEY: setting(
    given.transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      const key = Buffer.from(raw, 'base64');
      if (key.length === 32) return key;
      ctx.addIssue({
        code: 'custom',
        message: `must be 32 bytes in base64 (openssl rand -base64 32), got ${key.length} bytes`,
      });
      return z.NEVER;
    }),
    'unset',
    'sealing key of one-time codes, carrier passwords and push signing secrets (32 bytes, base64); unset, secret.key in the data dir',
  ),
  // Logs
  YONA_LOG_LEVEL: setting(text('info'), 'info', 'pino log level'),
  YONA_LOG_REQUESTS: setting(
    given.transform((raw) => raw === '1'),
    'off',
    '1 logs every request',
  ),
  // One-time codes
  YONA_OTP_DIGITS: setting(integer(6, 4, 10), '6', 'digits in a one-time code (4-10)'),
  YONA_OTP_PHONE_HOURLY: setting(integer(5), '5', 'codes one account may send one phone in an hour (0: off)'),
  YONA_OTP_ACCOUNT_HOURLY: setting(integer(1000), '1000', 'codes one account may send in an hour (0: off)'),
  YONA_OTP_RESEND_SECONDS: setting(integer(30), '30', 'wait before another code for the same phone and app (0: off)'),
  YONA_OTP_PHONE_FAILURES_HOURLY: setting(integer(10), '10', 'wrong codes for one phone in an hour (0: off)'),
  // Sending
  YONA_INTL_PRICE_AGOROT: setting(integer(25), '25', 'price of one SMS part to a non-Israeli number, in agorot'),
  YONA_VERIFY_CALL_NUMBER: setting(
    text('03-0000000'),
    '03-0000000',
    'number a landline owner calls to have it verified as a sender',
  ),
  YONA_VERIFY_SOURCE: setting(text('Yona'), 'Yona', 'sender of the verification SMS'),
  YONA_CALL_CREDITS_PER_MINUTE: setting(integer(2), '2', 'credits a voice call costs per started minute'),
  // Delivery
  YONA_CARRIERS_FILE: setting(optionalText, 'unset', 'JSON file of carriers and routes'),
  YONA_DISPATCH_BATCH: setting(integer(1000, 1), '1000', 'messages claimed per dispatcher batch'),
  YONA_DISPATCH_LANES: setting(integer(2, 1), '2', 'dispatcher batches in flight at once'),
  YONA_DISPATCH_LEASE_MS: setting(
    integer(30_000, 100),
    '30000',
    "how long a dispatcher claim holds its messages unless renewed (every third of it): a dead node's claims are taken again after it",
  ),
  YONA_DISPATCH_POLL_MS: setting(integer(200, 1), '200', 'idle poll interval of the dispatcher'),
  YONA_DISPATCH_THROTTLE_BACKLOG: setting(
    integer(200, 1),
    '200',
    'messages waiting for a throttled carrier beyond which new ones go to the next carrier of their route',
  ),
  YONA_DISPATCH_MAX_ATTEMPTS: setting(
    integer(20, 1),
    '20',
    'submit attempts before a transiently failing message is given up',
  ),
  YONA_RECEIPT_WINDOW_MS: setting(
    integer(48 * 3600_000, 1),
    '172800000',
    'a submitted message with no final receipt this long gets status 2',
  ),
  YONA_CALL_WINDOW_MS: setting(integer(15 * 60_000, 1), '900000', 'a call with no outcome this long gets status 2'),
  YONA_REMOVAL_KEYWORDS: setting(
    text('הסר,STOP,remove').transform((raw) =>
      raw
        .split(',')
        .map((k) => k.trim().toLowerCase())
        .filter(Boolean),
    ),
    'הסר,STOP,remove',
    'reply keywords that block the sender (after add_unsubscribe 2)',
  ),
  YONA_SIM_RECEIPT_DELAY_MS: setting(integer(200), '200', 'receipt delay of the bundled simulator'),
  YONA_SIMULATORS: setting(
    given.transform((raw, ctx) => {
      if (raw === undefined || raw === 'on') return true;
      if (raw === 'off') return false;
      ctx.addIssue({ code: 'custom', message: `must be on or off, got "${raw}"` });
      return z.NEVER;
    }),
    'on',
    'off never starts a bundled simulator and refuses sends no carrier can take',
  ),
  // Push
  YONA_PUSH_ALLOW_PRIVATE: setting(
    given.transform((raw) => raw === '1' || raw === 'true'),
    'off',
    '1 accepts loopback and private push URLs',
  ),
  YONA_PUSH_RETRY_BASE_MS: setting(integer(1000, 1), '1000', 'first push retry delay, doubled per failure'),
  YONA_PUSH_RETRY_MAX_MS: setting(integer(10 * 60_000, 1), '600000', 'longest push retry delay'),
  YONA_PUSH_MAX_FAILURES: setting(integer(10, 1), '10', 'consecutive failed rounds that disable a push registration'),
  YONA_PUSH_CONNECT_TIMEOUT_MS: setting(integer(5000, 1), '5000', 'push connect timeout'),
  YONA_PUSH_TIMEOUT_MS: setting(integer(10_000, 1), '10000', 'whole push request timeout'),
  YONA_PUSH_CONCURRENCY: setting(integer(64, 1), '64', 'push requests in flight per registration'),
  YONA_PUSH_POLL_MS: setting(integer(250, 1), '250', 'push poll interval when no signal arrives'),
  YONA_PUSH_RETENTION: setting(duration('3d'), '3d', 'how long delivered push events and the delivery log are kept'),
  // Nodes
  YONA_SMPP_PORT: setting(optionalPort(), 'unset', 'port of the SMPP server for customers (plain SMPP v3.4)'),
  YONA_SMPP_TLS_PORT: setting(
    optionalPort(),
    'unset',
    "port of the SMPP server over TLS (the HTTPS listener's certificate)",
  ),
  YONA_SMPP_HOST: setting(text('0.0.0.0'), '0.0.0.0', 'address of the SMPP listeners'),
  YONA_NODE_NAME: setting(
    given.transform((raw) => (raw ?? '').trim()),
    "the host name and the data dir's node id",
    "this node's name among the nodes of one database",
  ),
  YONA_ROLES: setting(
    parsed((raw) => parseRoles(raw, 'YONA_ROLES')),
    'all',
    'what this node runs',
  ),
  YONA_NODE_LEASE_MS: setting(
    integer(10_000, 1000),
    '10000',
    "heartbeat lease: a dead node's work moves after this long",
  ),
} satisfies Record<string, Setting<unknown>>;

export type SettingName = keyof typeof SETTINGS;
type Values = { [K in SettingName]: z.output<(typeof SETTINGS)[K]['schema']> };

/** The zod schema of the whole environment (every variable optional). */
export const settingsSchema = z.object(
  Object.fromEntries(Object.entries(SETTINGS).map(([name, s]) => [name, s.schema])) as {
    [K in SettingName]: (typeof SETTINGS)[K]['schema'];
  },
);

function problem(issue: z.core.$ZodIssue): ConfigError {
  const name = String(issue.path[0]);
  return new ConfigError(issue.message.startsWith(name) ? issue.message : `${name} ${issue.message}`);
}

function values(env: Env): Values {
  const picked = Object.fromEntries(Object.keys(SETTINGS).map((name) => [name, env[name]]));
  const result = settingsSchema.safeParse(picked);
  if (!result.success) throw problem(result.error.issues[0]);
  return result.data as Values;
}

/** One setting, read and checked alone (for commands that need no whole configuration). */
export function readSetting<K extends SettingName>(name: K, env: Env = process.env): Values[K] {
  const result = SETTINGS[name].schema.safeParse(env[name]);
  if (!result.success) throw problem({ ...result.error.issues[0], path: [name] });
  return result.data as Values[K];
}

/** True when the variable is set (not empty) rather than left to its default. */
export function settingGiven(name: SettingName, env: Env = process.env): boolean {
  return (env[name] ?? '') !== '';
}

/** Reads and checks the configuration; throws ConfigError with a clear message naming the variable. */
export function loadConfig(env: Env = process.env): Config {
  const v = values(env);
  if ((v.YONA_TLS_CERT === undefined) !== (v.YONA_TLS_KEY === undefined)) {
    throw new ConfigError('YONA_TLS_CERT and YONA_TLS_KEY must be set together');
  }
  const receiptWindowMs = v.YONA_RECEIPT_WINDOW_MS;
  return {
    dataDir: v.YONA_DATA_DIR,
    databaseUrl: v.DATABASE_URL,
    pgPool: v.YONA_PG_POOL,
    sqliteGroupCommit: v.YONA_SQLITE_GROUP_COMMIT,
    pgGroupLanes: v.YONA_PG_GROUP_LANES,
    retentionDays: v.YONA_RETENTION_DAYS,
    alerts: { intervalMs: v.YONA_ALERT_INTERVAL_MS, minuteMs: v.YONA_ALERT_MINUTE_MS },
    httpsPort: v.YONA_HTTPS_PORT,
    httpsHost: v.YONA_HTTPS_HOST,
    httpPort: v.YONA_HTTP_PORT,
    httpHost: v.YONA_HTTP_HOST,
    tlsCert: v.YONA_TLS_CERT,
    tlsKey: v.YONA_TLS_KEY,
    smpp: { port: v.YONA_SMPP_PORT, tlsPort: v.YONA_SMPP_TLS_PORT, host: v.YONA_SMPP_HOST },
    trustProxy: v.YONA_TRUST_PROXY,
    bodyLimit: v.YONA_BODY_LIMIT,
    bodyLimitWithoutToken: v.YONA_BODY_LIMIT_WITHOUT_TOKEN,
    tokenTtlMs: v.YONA_TOKEN_TTL,
    defaultTimeZone: v.YONA_TIME_ZONE,
    publicUrl: (v.YONA_PUBLIC_URL ?? `https://localhost:${v.YONA_HTTPS_PORT}`).replace(/\/+$/, ''),
    logLevel: v.YONA_LOG_LEVEL,
    logRequests: v.YONA_LOG_REQUESTS,
    secretKey: v.YONA_SECRET_KEY,
    otp: {
      digits: v.YONA_OTP_DIGITS,
      perPhoneHourly: v.YONA_OTP_PHONE_HOURLY,
      perAccountHourly: v.YONA_OTP_ACCOUNT_HOURLY,
      resendSeconds: v.YONA_OTP_RESEND_SECONDS,
      phoneFailuresHourly: v.YONA_OTP_PHONE_FAILURES_HOURLY,
    },
    callCreditsPerMinute: v.YONA_CALL_CREDITS_PER_MINUTE,
    node: {
      name: v.YONA_NODE_NAME || hostname(),
      named: v.YONA_NODE_NAME !== '',
      roles: v.YONA_ROLES,
      leaseMs: v.YONA_NODE_LEASE_MS,
    },
    sending: {
      intlPriceAgorot: v.YONA_INTL_PRICE_AGOROT,
      verifyCallNumber: v.YONA_VERIFY_CALL_NUMBER,
      verifySource: v.YONA_VERIFY_SOURCE,
      verifyTtlMs: 48 * 3600_000,
    },
    push: {
      allowPrivate: v.YONA_PUSH_ALLOW_PRIVATE,
      retryBaseMs: v.YONA_PUSH_RETRY_BASE_MS,
      retryMaxMs: v.YONA_PUSH_RETRY_MAX_MS,
      maxFailures: v.YONA_PUSH_MAX_FAILURES,
      connectTimeoutMs: v.YONA_PUSH_CONNECT_TIMEOUT_MS,
      requestTimeoutMs: v.YONA_PUSH_TIMEOUT_MS,
      concurrency: v.YONA_PUSH_CONCURRENCY,
      pollMs: v.YONA_PUSH_POLL_MS,
      retentionMs: v.YONA_PUSH_RETENTION,
    },
    delivery: {
      batchSize: v.YONA_DISPATCH_BATCH,
      lanes: v.YONA_DISPATCH_LANES,
      leaseMs: v.YONA_DISPATCH_LEASE_MS,
      pollMs: v.YONA_DISPATCH_POLL_MS,
      maxAttempts: v.YONA_DISPATCH_MAX_ATTEMPTS,
      throttleBacklog: v.YONA_DISPATCH_THROTTLE_BACKLOG,
      retryBaseMs: 1000,
      retryMaxMs: 300_000,
      receiptWindowMs,
      callWindowMs: v.YONA_CALL_WINDOW_MS,
      sweepMs: Math.max(10, Math.min(60_000, Math.floor(receiptWindowMs / 4))),
      removalKeywords: v.YONA_REMOVAL_KEYWORDS,
      simulatorReceiptDelayMs: v.YONA_SIM_RECEIPT_DELAY_MS,
      simulators: v.YONA_SIMULATORS,
    },
    carriersFile: v.YONA_CARRIERS_FILE,
  };
}

/** The delivery settings `env` gives (the defaults for an empty one); throws ConfigError on a malformed value. */
export function deliverySettings(env: Env): DeliverySettings {
  return loadConfig(env).delivery;
}

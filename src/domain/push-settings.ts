// Push settings from the environment (YONA_PUSH_*), and the settings a running service uses: the pusher
// binds its own to the service's config so the push_url operation judges URLs by the same rules.
import { parseDuration } from './token.ts';

/** How the pusher delivers, and which URLs push_url accepts. */
export interface PushSettings {
  /** YONA_PUSH_ALLOW_PRIVATE=1: accept loopback/private URLs (tests, intranets). */
  allowPrivate: boolean;
  /** First retry delay (YONA_PUSH_RETRY_BASE_MS, 1000); doubles per failure, with jitter. */
  retryBaseMs: number;
  /** Longest retry delay (YONA_PUSH_RETRY_MAX_MS, 10 min). */
  retryMaxMs: number;
  /** Consecutive failed rounds that disable a registration (YONA_PUSH_MAX_FAILURES, 10). */
  maxFailures: number;
  /** TCP/TLS connect timeout (YONA_PUSH_CONNECT_TIMEOUT_MS, 5000). */
  connectTimeoutMs: number;
  /** Whole-request timeout (YONA_PUSH_TIMEOUT_MS, 10000). */
  requestTimeoutMs: number;
  /** Requests in flight per registration (YONA_PUSH_CONCURRENCY, 8). */
  concurrency: number;
  /** Poll interval when no signal arrives (YONA_PUSH_POLL_MS, 250). */
  pollMs: number;
  /** How long delivered events and the delivery log are kept (YONA_PUSH_RETENTION, 3d). */
  retentionMs: number;
}

/** A YONA_PUSH_* variable with a value we cannot use. */
export class PushSettingsError extends Error {}

function int(env: Record<string, string | undefined>, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new PushSettingsError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

/** Reads the YONA_PUSH_* variables; throws PushSettingsError with a clear message. */
export function parsePushSettings(env: Record<string, string | undefined> = process.env): PushSettings {
  const retention = env.YONA_PUSH_RETENTION ?? '3d';
  const retentionMs = parseDuration(retention);
  if (retentionMs === null) throw new PushSettingsError(`YONA_PUSH_RETENTION must look like 3d or 12h, got "${retention}"`);
  return {
    allowPrivate: env.YONA_PUSH_ALLOW_PRIVATE === '1' || env.YONA_PUSH_ALLOW_PRIVATE === 'true',
    retryBaseMs: int(env, 'YONA_PUSH_RETRY_BASE_MS', 1000, 1),
    retryMaxMs: int(env, 'YONA_PUSH_RETRY_MAX_MS', 10 * 60_000, 1),
    maxFailures: int(env, 'YONA_PUSH_MAX_FAILURES', 10, 1),
    connectTimeoutMs: int(env, 'YONA_PUSH_CONNECT_TIMEOUT_MS', 5000, 1),
    requestTimeoutMs: int(env, 'YONA_PUSH_TIMEOUT_MS', 10_000, 1),
    concurrency: int(env, 'YONA_PUSH_CONCURRENCY', 8, 1),
    pollMs: int(env, 'YONA_PUSH_POLL_MS', 250, 1),
    retentionMs,
  };
}

/** Delay before retry number `failures` (1-based): base * 2^(failures-1), capped, plus up to 50% jitter. */
export function retryDelay(settings: PushSettings, failures: number, random = Math.random): number {
  const exp = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.min(40, Math.max(0, failures - 1)));
  return Math.min(settings.retryMaxMs, Math.round(exp * (1 + random() / 2)));
}

// Keyed by the service's configuration object (any object: the domain knows nothing of its shape).
const bound = new WeakMap<object, PushSettings>();
let fromProcess: PushSettings | undefined;

/** Makes `settings` the ones used for this service (the pusher calls it on start). */
export function bindPushSettings(config: object, settings: PushSettings): void {
  bound.set(config, settings);
}

/** The settings of the service owning `config`: those bound by its pusher, else read from process.env. */
export function pushSettingsFor(config: object): PushSettings {
  return bound.get(config) ?? (fromProcess ??= parsePushSettings(process.env));
}

// Push settings (YONA_PUSH_*, read with the rest of the configuration) and the retry schedule. The pusher and
// the push_url operation read them from the same configuration, so both judge URLs by the same rules.

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
  /** Requests in flight per registration (YONA_PUSH_CONCURRENCY, 64): a URL takes at most this many over its response time. */
  concurrency: number;
  /** Poll interval when no signal arrives (YONA_PUSH_POLL_MS, 250). */
  pollMs: number;
  /** How long delivered events and the delivery log are kept (YONA_PUSH_RETENTION, 3d). */
  retentionMs: number;
}

/** Delay before retry number `failures` (1-based): base * 2^(failures-1), capped, plus up to 50% jitter. */
export function retryDelay(settings: PushSettings, failures: number, random = Math.random): number {
  const exp = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.min(40, Math.max(0, failures - 1)));
  return Math.min(settings.retryMaxMs, Math.round(exp * (1 + random() / 2)));
}

// The per-account ceiling on password and code guessing, beside the lockout per username and address: once an
// account has more than ACCOUNT_CEILING failures within ACCOUNT_WINDOW_MS, from any mix of addresses, each
// further attempt on it waits a delay after its latest failure (1 s, doubling with every failure, at most
// ACCOUNT_DELAY_MAX_MS). An attempt within the delay is refused before its password or code is looked at, and is
// not counted. The window ends ACCOUNT_WINDOW_MS after the last failure, so a stranger cannot hold the account
// for longer than that after stopping, and never makes its owner wait more than ACCOUNT_DELAY_MAX_MS per attempt.

export const ACCOUNT_CEILING = 20;
export const ACCOUNT_WINDOW_MS = 15 * 60_000;
export const ACCOUNT_DELAY_MAX_MS = 60_000;

/** The wait after an account's latest failure before its next attempt is looked at (0 up to the ceiling). */
export function accountDelayMs(failures: number): number {
  if (failures <= ACCOUNT_CEILING) return 0;
  return Math.min(ACCOUNT_DELAY_MAX_MS, 1000 * 2 ** Math.min(failures - ACCOUNT_CEILING - 1, 30));
}

export interface AccountFailures {
  /** Failures on the account within the window, any address. */
  failures: number;
  /** From how many addresses. */
  addresses: number;
  /** Whole seconds until its next attempt is looked at (0: now). */
  retrySeconds: number;
}

/** How long an account's next attempt waits, from its failures within the window (count, latest, addresses). */
export function accountPace(f: { count: number; last: number; addresses: number }, now: number): AccountFailures {
  const until = f.last + accountDelayMs(f.count);
  return { failures: f.count, addresses: f.addresses, retrySeconds: Math.max(0, Math.ceil((until - now) / 1000)) };
}

/**
 * Attempts on one account run one at a time on this node (a check, the password or code, the failure recorded),
 * so a burst of simultaneous guesses cannot all pass the same check. Others queue; those past the ceiling are
 * refused quickly by the check without a hash.
 */
export class AccountGate {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(name: string, attempt: () => Promise<T>): Promise<T> {
    const before = this.tails.get(name) ?? Promise.resolve();
    const result = before.then(attempt, attempt);
    const tail = result.catch(() => undefined);
    this.tails.set(name, tail);
    void tail.then(() => {
      if (this.tails.get(name) === tail) this.tails.delete(name);
    });
    return result;
  }
}

// Rules for account fields, shared by the operator CLI and reseller sub-account creation.

/** Why a username is unacceptable, or null. 3-32 characters: letters, digits, . _ - @. */
export function usernameProblem(username: string): string | null {
  if (username.length < 3 || username.length > 32) return 'username must be 3 to 32 characters';
  if (!/^[A-Za-z0-9._@-]+$/.test(username)) return 'username may hold only letters, digits and . _ - @';
  return null;
}

/** Why a password is unacceptable, or null. 6-128 characters. */
export function passwordProblem(password: string): string | null {
  if (password.length < 6 || password.length > 128) return 'password must be 6 to 128 characters';
  return null;
}

/** Why a sender (`source`) is malformed, or null: at most 11 characters, digits and English letters, no '+'. */
export function sourceProblem(source: string): string | null {
  if (source.length < 1 || source.length > 11) return 'source must be 1 to 11 characters';
  if (!/^[A-Za-z0-9]+$/.test(source)) return 'source may hold only digits and English letters (no +)';
  return null;
}

/** An account's standing: open and usable, suspended (by its reseller or the operator), or closed. */
export type AccountState = 'active' | 'suspended' | 'closed';

/** Why an account may not be used now, by any way in (API token or password, console sign-in and session, a
 *  future SMPP bind): closed, suspended by the operator, suspended by its reseller; null when it may. */
export type AccountRefusal = 'closed' | 'suspended-by-operator' | 'suspended-by-reseller';

/** The fields an account's refusal is read from (the columns every authentication reads). */
export interface AccountHold {
  suspended_at: number | null;
  suspended_by?: string | null;
  closed_at?: number | null;
}

/** The refusal an account's hold gives, or null when it is usable. */
export function accountRefusal(a: AccountHold): AccountRefusal | null {
  if (a.closed_at != null) return 'closed';
  if (a.suspended_at == null) return null;
  return a.suspended_by === 'operator' ? 'suspended-by-operator' : 'suspended-by-reseller';
}

/** The standing `yona admin accounts` shows. */
export function accountState(a: AccountHold): AccountState {
  const refusal = accountRefusal(a);
  return refusal === null ? 'active' : refusal === 'closed' ? 'closed' : 'suspended';
}

// Who may bind: system_id is the account's username, the password the one `yona admin smpp-password` set (argon2id,
// compared in constant time by the verifier), from an address of the account's IP allowlist, an account neither
// suspended nor closed, over TLS when the account asks for it, not locked out by repeated failures, and within its
// limit of binds over every node.
import { accountRefusal } from '../domain/accounts.ts';
import { addressAllowed } from '../domain/ip.ts';
import { verifyPassword } from '../domain/password.ts';
import { findAccountByUsername, listAllowedIps, type Account } from '../store/accounts.ts';
import type { Queryable } from '../store/engine/db.ts';
import { countLiveSmppBinds } from '../store/smpp-binds.ts';
import { findSmppAccount, recordFailedBind, recordGoodBind, type SmppAccount } from '../store/smpp-accounts.ts';
import { SMPP_STATUS } from './command-status.ts';

/** Failed binds in a row that lock an account's binds out, and for how long. */
export const BIND_LOCKOUT = { failures: 5, ms: 5 * 60_000 };

/** Why a bind was refused (the log's `reason`, the metric's label). */
export type BindRefusal =
  | 'unknown_system_id'
  | 'no_smpp_password'
  | 'wrong_password'
  | 'locked_out'
  | 'address_not_allowed'
  | 'suspended'
  | 'tls_required'
  | 'bind_limit';

export type BindOutcome =
  | { ok: true; account: Account; smpp: SmppAccount }
  | { ok: false; reason: BindRefusal; status: number; accountId?: number };

export interface BindAttempt {
  systemId: string;
  password: string;
  remoteAddress: string;
  tls: boolean;
  now: number;
  /** Binds refreshed since then are live (their node is alive). */
  liveSince: number;
}

const refused = (reason: BindRefusal, status: number, accountId?: number): BindOutcome => ({
  ok: false,
  reason,
  status,
  ...(accountId !== undefined ? { accountId } : {}),
});

/** Checks a bind; counts a wrong password towards the lockout, and a good bind clears the count. */
export async function authenticateBind(db: Queryable, a: BindAttempt): Promise<BindOutcome> {
  const account = a.systemId === '' ? undefined : await findAccountByUsername(db, a.systemId);
  if (!account) return refused('unknown_system_id', SMPP_STATUS.ESME_RINVSYSID);
  const id = Number(account.id);
  const smpp = await findSmppAccount(db, id);
  if (!smpp) return refused('no_smpp_password', SMPP_STATUS.ESME_RINVSYSID, id);
  if (smpp.lockedUntil !== null && smpp.lockedUntil > a.now)
    return refused('locked_out', SMPP_STATUS.ESME_RBINDFAIL, id);
  if (!(await verifyPassword(smpp.passwordHash, a.password).catch(() => false))) {
    await recordFailedBind(db, id, a.now, BIND_LOCKOUT.failures, BIND_LOCKOUT.ms);
    return refused('wrong_password', SMPP_STATUS.ESME_RINVPASWD, id);
  }
  if (accountRefusal(account) !== null) return refused('suspended', SMPP_STATUS.ESME_RBINDFAIL, id);
  if (account.ip_check && !addressAllowed(a.remoteAddress, await listAllowedIps(db, id)))
    return refused('address_not_allowed', SMPP_STATUS.ESME_RBINDFAIL, id);
  if (smpp.tlsOnly && !a.tls) return refused('tls_required', SMPP_STATUS.ESME_RBINDFAIL, id);
  if ((await countLiveSmppBinds(db, id, a.liveSince)) >= smpp.maxBinds)
    return refused('bind_limit', SMPP_STATUS.ESME_RBINDFAIL, id);
  if (smpp.failedBinds > 0) await recordGoodBind(db, id);
  return { ok: true, account, smpp };
}

// `yona admin whatsapp-number add|remove|list`: which WhatsApp business numbers an account may send from (and
// receive on), and through which carrier. A business number belongs to one account at most.
import type { Config } from '../config.ts';
import { carrierChannel } from '../carriers/index.ts';
import { loadCarrierSetup } from '../delivery/carrier-setup.ts';
import { sealingKey } from '../secret-key.ts';
import { findAccountByUsername } from '../store/accounts.ts';
import type { Store } from '../store/engine/db.ts';
import { grantWhatsappNumber, listWhatsappNumbers, revokeWhatsappNumber } from '../store/whatsapp.ts';
import { UsageError } from './usage-error.ts';

type Out = (line: string) => void;

const USAGE = [
  'usage: yona admin whatsapp-number add USERNAME 972XXXXXXXXX [--carrier NAME]',
  '       yona admin whatsapp-number remove USERNAME 972XXXXXXXXX',
  '       yona admin whatsapp-number list [USERNAME]',
].join('\n');

function fail(message: string): never {
  throw new UsageError(`${message}\n${USAGE}`);
}

function businessNumber(text: string | undefined): string {
  if (!text) fail('missing the business number');
  const digits = text.replace(/^\+/, '');
  if (!/^\d{8,15}$/.test(digits))
    fail(`the business number must be international digits without +, like 972771234567, got "${text}"`);
  return digits;
}

async function accountOf(store: Store, username: string | undefined) {
  if (!username) fail('missing USERNAME');
  return (await findAccountByUsername(store.db, username)) ?? fail(`no account named "${username}"`);
}

async function add(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const at = args.indexOf('--carrier');
  const carrier = at >= 0 ? (args[at + 1] ?? fail('--carrier needs a NAME')) : null;
  const rest = at >= 0 ? [...args.slice(0, at), ...args.slice(at + 2)] : args;
  const unknown = rest.find((a) => a.startsWith('--'));
  if (unknown) fail(`unknown option ${unknown}`);
  const account = await accountOf(store, rest[0]);
  const number = businessNumber(rest[1]);
  if (carrier !== null) {
    const setup = await loadCarrierSetup(store.db, config.carriersFile, () => sealingKey(config));
    const found = setup.carriers.find((c) => c.name === carrier);
    if (!found) fail(`no carrier named "${carrier}"`);
    if (carrierChannel(found.protocol) !== 'whatsapp') fail(`carrier "${carrier}" is not a WhatsApp carrier`);
  }
  const refused = await grantWhatsappNumber(
    store.db,
    { accountId: account.id, businessNumber: number, carrier },
    Date.now(),
  );
  if (refused) {
    const holder = await store.db
      .selectFrom('accounts')
      .select('username')
      .where('id', '=', refused.heldBy)
      .executeTakeFirst();
    fail(`${number} already belongs to ${holder?.username ?? `account ${refused.heldBy}`}; remove it there first`);
  }
  out(`${account.username} may send WhatsApp messages from ${number}${carrier ? ` through ${carrier}` : ''}`);
}

async function remove(store: Store, args: string[], out: Out): Promise<void> {
  const account = await accountOf(store, args[0]);
  const number = businessNumber(args[1]);
  if (!(await revokeWhatsappNumber(store.db, account.id, number))) fail(`${account.username} does not hold ${number}`);
  out(`${account.username} no longer sends from ${number}`);
}

async function list(store: Store, args: string[], out: Out): Promise<void> {
  const account = args[0] ? await accountOf(store, args[0]) : undefined;
  const numbers = await listWhatsappNumbers(store.db, account?.id);
  if (numbers.length === 0) {
    out(account ? `${account.username} has no WhatsApp business numbers` : 'no WhatsApp business numbers granted');
    return;
  }
  const names = new Map(
    (
      await store.db
        .selectFrom('accounts')
        .select(['id', 'username'])
        .where(
          'id',
          'in',
          numbers.map((n) => n.accountId),
        )
        .execute()
    ).map((a) => [Number(a.id), a.username]),
  );
  for (const n of numbers)
    out(`${n.businessNumber} ${names.get(n.accountId) ?? n.accountId} carrier=${n.carrier ?? '(route)'}`);
}

/** `yona admin whatsapp-number ...`. */
export async function whatsappNumberCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const [verb, ...rest] = args;
  if (verb === 'add') return add(store, config, rest, out);
  if (verb === 'remove') return remove(store, rest, out);
  if (verb === 'list') return list(store, rest, out);
  fail(verb ? `unknown action "${verb}"` : 'missing the action');
}

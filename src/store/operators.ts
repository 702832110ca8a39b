// Operators of the console (/admin): created by `yona admin create-operator`, read at sign-in.
import type { OperatorRole } from './schema/operators.ts';
import type { Queryable } from './engine/db.ts';

export type { OperatorRole } from './schema/operators.ts';

export interface Operator {
  id: number;
  name: string;
  role: OperatorRole;
  passwordHash: string;
  /** Sealed TOTP secret; null until enrolled. */
  totpSecret: string | null;
}

export async function findOperatorByName(db: Queryable, name: string): Promise<Operator | undefined> {
  const row = await db
    .selectFrom('operators')
    .select(['id', 'name', 'role', 'password_hash', 'totp_secret'])
    .where('name', '=', name)
    .executeTakeFirst();
  return row && toOperator(row);
}

export async function findOperatorById(db: Queryable, id: number): Promise<Operator | undefined> {
  const row = await db
    .selectFrom('operators')
    .select(['id', 'name', 'role', 'password_hash', 'totp_secret'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toOperator(row);
}

function toOperator(row: {
  id: number;
  name: string;
  role: OperatorRole;
  password_hash: string;
  totp_secret: string | null;
}): Operator {
  return {
    id: Number(row.id),
    name: row.name,
    role: row.role === 'admin' ? 'admin' : 'support',
    passwordHash: row.password_hash,
    totpSecret: row.totp_secret,
  };
}

/** A new operator (no TOTP yet: enrolled at the first sign-in); false when the name is taken. */
export async function insertOperator(
  db: Queryable,
  o: { name: string; passwordHash: string; role: OperatorRole; now: number },
): Promise<boolean> {
  if (await findOperatorByName(db, o.name)) return false;
  await db
    .insertInto('operators')
    .values({ name: o.name, password_hash: o.passwordHash, role: o.role, created_at: o.now, totp_secret: null })
    .execute();
  return true;
}

/** Every operator, by name (for the CLI's list and the console). */
export async function listOperators(
  db: Queryable,
): Promise<Array<{ name: string; role: OperatorRole; enrolled: boolean }>> {
  const rows = await db.selectFrom('operators').select(['name', 'role', 'totp_secret']).orderBy('name').execute();
  return rows.map((r) => ({ name: r.name, role: r.role, enrolled: r.totp_secret !== null }));
}

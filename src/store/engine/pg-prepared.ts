// Named prepared statements on PostgreSQL. Kysely sends every query unnamed, so the server parses and plans it
// each time; for the short parameterised statements the service repeats (the send path, the dispatcher's
// claims, receipts) that costs more server CPU than running them. The pool handed to Kysely gives each
// such statement a name, so each connection parses it once. Statements that select `*` stay unnamed (a
// migration that adds a column would break their cached plan), as do long ones (bulk inserts, big IN lists),
// and each connection names at most MAX_PER_CONNECTION statements.
import type pg from 'pg';

const MAX_SQL_LENGTH = 2000;
const MAX_PER_CONNECTION = 300;
const names = new Map<string, string>();
const prepared = new WeakMap<pg.PoolClient, Set<string>>();

// The statement's name when it should be prepared on this connection, else undefined.
function nameFor(client: pg.PoolClient, text: string, values: unknown[] | undefined): string | undefined {
  if (!values || values.length === 0 || text.length > MAX_SQL_LENGTH || text.includes('*')) return undefined;
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `y${names.size + 1}`));
  let done = prepared.get(client);
  if (!done) prepared.set(client, (done = new Set()));
  if (done.has(name)) return name;
  if (done.size >= MAX_PER_CONNECTION) return undefined;
  done.add(name);
  return name;
}

/** A pool whose clients send the service's repeated statements as named prepared statements. */
export function withNamedStatements(pool: pg.Pool): pg.Pool {
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop !== 'connect') return Reflect.get(target, prop, receiver);
      return async () => {
        const client = await connect();
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        return new Proxy(client, {
          get(c, p, r) {
            if (p !== 'query') return Reflect.get(c, p, r);
            return (text: unknown, values?: unknown[]) => {
              const name = typeof text === 'string' ? nameFor(client, text, values) : undefined;
              return name ? query({ name, text, values }) : query(text, values);
            };
          },
        });
      };
    },
  });
}

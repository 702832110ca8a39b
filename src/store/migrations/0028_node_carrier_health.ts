// nodes.carrier_health: each node's latest health snapshot of the carriers it runs (JSON, written with its
// heartbeat), so `yona admin carriers --status`, a separate process perhaps on another machine, reads every
// node's view from the store. Null until the node's carriers have started.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('nodes').addColumn('carrier_health', 'text').execute();
}

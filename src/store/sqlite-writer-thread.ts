// The embedded store's writer thread: runs the writes of API sends planned on the main thread (send-plan.ts) on a
// connection of its own, many sends to one transaction, so the statements, the commit and the WAL checkpoints
// take the second core instead of the main thread's. Each send runs in a savepoint: a guarded debit that finds
// too little, or a statement that fails, rolls back that send alone and the others commit. The reply to the main
// thread comes after the COMMIT, so a send is answered only once it is durable.
import { parentPort, workerData } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';
import { openSqliteConnection } from './sqlite-connection.ts';
import type { PlannedWrites } from './send-plan.ts';
import type { WriterReply, WriterRequest, WrittenSend } from './sqlite-writer.ts';

const db: SqliteDatabase.Database = openSqliteConnection((workerData as { path: string }).path);
const begin = db.prepare('begin immediate');
const commit = db.prepare('commit');
const savepoint = db.prepare('savepoint yona_send');
const release = db.prepare('release yona_send');
const rollbackSend = db.prepare('rollback to yona_send');

function errorOf(err: unknown): { message: string; code?: string } {
  const e = err as { message?: unknown; code?: unknown };
  return { message: String(e?.message ?? err), code: typeof e?.code === 'string' ? e.code : undefined };
}

// The statements by number (send-plan.ts), prepared as their texts arrive.
const statements: SqliteDatabase.Statement[] = [];

// One send in its savepoint: ok, short (which guarded debit found too little), or its error.
function writeSend(writes: PlannedWrites): WrittenSend {
  savepoint.run();
  let guard = 0;
  try {
    for (let i = 0; i < writes.length; ) {
      const stmt = statements[writes[i] as number];
      const guarded = writes[i + 1] === 1;
      const count = writes[i + 2] as number;
      const { changes } = stmt.run(writes.slice(i + 3, i + 3 + count));
      i += 3 + count;
      if (!guarded) continue;
      if (changes === 0) {
        rollbackSend.run();
        release.run();
        return { short: guard };
      }
      guard++;
    }
    release.run();
    return { ok: true };
  } catch (err) {
    // An error that ended the whole transaction (a full disk, say) fails the batch (writeBatch).
    if (!db.inTransaction) throw err;
    rollbackSend.run();
    release.run();
    return { error: errorOf(err) };
  }
}

function writeBatch(sends: PlannedWrites[], texts: string[]): WriterReply {
  for (const text of texts) statements.push(db.prepare(text));
  try {
    begin.run();
  } catch (err) {
    return { failed: errorOf(err) };
  }
  try {
    const results = sends.map(writeSend);
    commit.run();
    return { results };
  } catch (err) {
    if (db.inTransaction) db.exec('rollback');
    return { failed: errorOf(err) };
  }
}

// A block of `count` campaign ids: AUTOINCREMENT's counter moves past it, so no other insert (of this process
// or another) takes one of them.
function reserveCampaignIds(count: number): WriterReply {
  try {
    begin.run();
    db.prepare(
      `insert into sqlite_sequence (name, seq) select 'campaigns', 0
       where not exists (select 1 from sqlite_sequence where name = 'campaigns')`,
    ).run();
    const { seq } = db
      .prepare(
        `update sqlite_sequence set seq = max(seq, coalesce((select max(id) from campaigns), 0)) + ?
         where name = 'campaigns' returning seq`,
      )
      .get(count) as { seq: number };
    commit.run();
    return { reserved: { first: seq - count + 1, last: seq } };
  } catch (err) {
    if (db.inTransaction) db.exec('rollback');
    return { failed: errorOf(err) };
  }
}

parentPort!.on('message', (request: WriterRequest) => {
  if (request.kind === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  const reply = request.kind === 'batch' ? writeBatch(request.sends, request.texts) : reserveCampaignIds(request.count);
  parentPort!.postMessage(reply);
});

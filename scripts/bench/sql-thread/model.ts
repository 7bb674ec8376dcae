// A model of what one durable send asks of SQLite (the send API's statements, on a schema of the
// same shape: the reads that check route and domain, the suppression check, five inserts into
// tables with the messages table's list indexes), for sql-thread.ts.
import { Database } from "bun:sqlite";

/** A statement: how its result is read, its SQL, its parameters. */
export type Statement = ["get" | "all" | "run" | "exec", string, (string | number)[]];

const SCHEMA = `
CREATE TABLE IF NOT EXISTS routes (id TEXT PRIMARY KEY, project_id TEXT, route_type TEXT, is_default INT, track_opens INT, track_clicks INT);
CREATE TABLE IF NOT EXISTS domains (id TEXT PRIMARY KEY, team_id TEXT, domain TEXT, status TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS domains_name ON domains (team_id, domain);
CREATE TABLE IF NOT EXISTS project_domains (project_id TEXT, domain_id TEXT, PRIMARY KEY (project_id, domain_id));
CREATE TABLE IF NOT EXISTS suppressions (id TEXT PRIMARY KEY, team_id TEXT, scope_key TEXT, email TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS suppressions_scope_email ON suppressions (team_id, scope_key, email);
CREATE TABLE IF NOT EXISTS messages (id TEXT PRIMARY KEY, team_id TEXT, project_id TEXT, route_id TEXT, domain_id TEXT, type TEXT, status TEXT, subject TEXT, from_email TEXT, tag TEXT, created_at INT);
CREATE INDEX IF NOT EXISTS messages_search ON messages (team_id, created_at, id, subject, from_email);
CREATE INDEX IF NOT EXISTS messages_type ON messages (team_id, type, created_at, id);
CREATE INDEX IF NOT EXISTS messages_status ON messages (team_id, status, created_at, id);
CREATE INDEX IF NOT EXISTS messages_route ON messages (route_id, created_at, id);
CREATE INDEX IF NOT EXISTS messages_domain ON messages (domain_id, created_at, id);
CREATE INDEX IF NOT EXISTS messages_tag ON messages (team_id, tag, created_at, id);
CREATE INDEX IF NOT EXISTS messages_route_stats ON messages (route_id, type, status, created_at);
CREATE TABLE IF NOT EXISTS message_contents (message_id TEXT PRIMARY KEY, html TEXT, text TEXT, headers TEXT);
CREATE TABLE IF NOT EXISTS recipients (id TEXT PRIMARY KEY, message_id TEXT, email TEXT, status TEXT);
CREATE INDEX IF NOT EXISTS recipients_message ON recipients (message_id);
CREATE TABLE IF NOT EXISTS message_events (id TEXT PRIMARY KEY, message_id TEXT, kind TEXT, data TEXT, created_at INT);
CREATE INDEX IF NOT EXISTS message_events_message ON message_events (message_id, created_at);
CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY, queue TEXT, payload TEXT, run_at INT);
CREATE INDEX IF NOT EXISTS jobs_claim ON jobs (queue, run_at);
INSERT OR IGNORE INTO routes VALUES ('r1', 'p1', 'transactional', 1, 0, 0);
INSERT OR IGNORE INTO domains VALUES ('d1', 't1', 'sender.test', 'active');
INSERT OR IGNORE INTO project_domains VALUES ('p1', 'd1');`;

/** A connection with the server's pragmas (WAL; NORMAL here, since the commit's fsync is not what is compared) and its statements kept prepared. */
export function openConnection(file: string): [Database, (s: Statement) => unknown] {
  const db = new Database(file, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -8192; PRAGMA busy_timeout = 5000");
  db.exec(SCHEMA);
  const prepared = new Map<string, ReturnType<Database["prepare"]>>();
  const run = ([how, sql, params]: Statement): unknown => {
    if (how === "exec") return db.exec(sql), null;
    let st = prepared.get(sql);
    if (!st) prepared.set(sql, (st = db.prepare(sql)));
    return how === "get" ? st.get(...params) : how === "all" ? st.all(...params) : st.run(...params).changes;
  };
  return [db, run];
}

const html = "<p>Hello user, this is a benchmark message of about two kilobytes.</p>" + "<p>Lorem ipsum dolor sit amet. </p>".repeat(40);

/** Send i's statements: the checks it reads first, then the suppression check and its inserts. */
export function sendStatements(i: number): { checks: Statement[]; writes: Statement[] } {
  const id = crypto.randomUUID();
  const now = Date.now();
  const to = `user${i}@dest.test`;
  return {
    checks: [
      ["get", "SELECT id, route_type, track_opens, track_clicks FROM routes WHERE project_id = ? AND route_type = 'transactional' AND is_default = 1 LIMIT 1", ["p1"]],
      ["get", "SELECT id, status FROM domains WHERE team_id = ? AND domain = ?", ["t1", "sender.test"]],
      ["get", "SELECT 1 AS x FROM project_domains WHERE project_id = ? AND domain_id = ?", ["p1", "d1"]],
    ],
    writes: [
      ["all", "SELECT email FROM suppressions WHERE team_id = ? AND scope_key IN (?, ?, ?) AND email IN (?)", ["t1", "team", "project:p1", "route:r1", to]],
      ["run", "INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [id, "t1", "p1", "r1", "d1", "transactional", "pending", `Benchmark message ${i}`, "bench@sender.test", "bench", now]],
      ["run", "INSERT INTO message_contents VALUES (?, ?, ?, ?)", [id, html, `Hello user ${i}`, "{}"]],
      ["run", "INSERT INTO recipients VALUES (?, ?, ?, ?)", [crypto.randomUUID(), id, to, "pending"]],
      ["run", "INSERT INTO message_events VALUES (?, ?, ?, ?, ?)", [crypto.randomUUID(), id, "message.created", JSON.stringify({ message_id: id, status: "pending", to: [to], subject: `Benchmark message ${i}`, tag: "bench" }), now]],
      ["run", "INSERT INTO jobs (queue, payload, run_at) VALUES (?, ?, ?)", ["outbound", JSON.stringify({ messageId: id }), now]],
    ],
  };
}

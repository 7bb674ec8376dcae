// The SMTP agent process (src/mail/smtp-agent.ts): transactions run in a child process that
// records the acceptances its parent can no longer record (on SQLite and on PostgreSQL), and the
// server copes when the agent dies or cannot be started.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { migratePostgres } from "../../src/db/migrate-pg.ts";
import { PostgresExecutor, postgresClient } from "../../src/db/postgres.ts";
import { newId } from "../../src/ids.ts";
import { createLogger } from "../../src/log.ts";
import { SmtpAgent } from "../../src/mail/smtp-agent.ts";
import type { SendOutcome } from "../../src/mail/smtp-pool.ts";
import { smtpAgentsOf } from "../e2e/fixtures/outbound-server.ts";
import { createTestApp, sqliteOf, tempDir, waitFor } from "../helpers.ts";
import { insertMessage, insertRecipient } from "../modules/messages/fixtures.ts";
import { testPostgres } from "../support/postgres.ts";
import { startSink, type Sink } from "./harness.ts";
import { requireTool } from "../support/tools.ts";

const silent = createLogger("silent");
const raw = Buffer.from("From: a@sender.test\r\nTo: r@dest.test\r\nSubject: agent\r\n\r\nHello.\r\n");
const envelope = { from: "bounce@sender.test", to: "r@dest.test" };
let sink: Sink;
const dir = tempDir("posthorn-agent-");

beforeAll(async () => {
  sink = await startSink({ hideSTARTTLS: true });
});
afterAll(async () => {
  await sink.close();
  rmSync(dir, { recursive: true, force: true });
});


test("transactions run in a child process; a killed agent fails its transaction as a connection failure and the next one starts a new agent", async () => {
  const agent = new SmtpAgent({ heloName: "agent.test", logLevel: "silent", database: null }, silent);
  const target = { host: "127.0.0.1", port: sink.port, servername: null };
  const first = await agent.send(target, envelope, raw);
  expect(first).toMatchObject({ kind: "reply", reply: { code: 250 } });
  // bun runs every test file in this process: other files' agents may be children too.
  const pid = agent.pid!;
  expect(smtpAgentsOf(process.pid)).toContain(pid);

  // The sink holds its answer to "." until the agent is killed (or 3 s, if the test fails first).
  let answer!: () => void;
  sink.dataHold = Promise.race([new Promise<void>((resolve) => (answer = resolve)), Bun.sleep(3_000)]);
  const pending = agent.send(target, envelope, raw);
  await waitFor(() => sink.answering > 0);
  process.kill(pid, "SIGKILL");
  const lost: SendOutcome = await pending;
  expect(lost).toMatchObject({ kind: "connection", code: "EAGENT" });
  answer();
  sink.dataHold = null;

  const again = await agent.send(target, envelope, raw);
  expect(again).toMatchObject({ kind: "reply", reply: { code: 250 } });
  expect(agent.pid).not.toBe(pid);
  expect(smtpAgentsOf(process.pid)).not.toContain(pid);
  agent.close();
  await waitFor(() => sink.answering === 0, 3_000); // the killed agent's message, answered into a closed connection
});

test("an agent that cannot be started: transactions run in this process", async () => {
  const agent = new SmtpAgent({ heloName: "agent.test", logLevel: "silent", database: null }, silent, ["/nonexistent/posthorn", "smtp-agent"]);
  const before = sink.received.length;
  const outcome = await agent.send({ host: "127.0.0.1", port: sink.port, servername: null }, envelope, raw);
  expect(outcome).toMatchObject({ kind: "reply", reply: { code: 250 } });
  expect(sink.received.length).toBe(before + 1);
  agent.close();
});

/**
 * Kills the process holding the agent while the sink holds its answer to "." and checks that
 * the orphaned agent read the 250, wrote the receipt to `database` itself and exited.
 */
async function orphanWritesReceipt(database: string, recipientId: string, receipt: () => Promise<{ reply: string; host: string | null } | null>) {
  // The sink answers once the kill, the exit and the check below are done (the orphaned agent
  // waits 5 s for it), or after 4 s if the test fails before.
  let answer!: () => void;
  sink.dataHold = Promise.race([new Promise<void>((resolve) => (answer = resolve)), Bun.sleep(4_000)]);
  const before = sink.received.length;
  const parent = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "agent-parent.ts"), database, String(sink.port), recipientId], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = parent.stdout.getReader();
  const line = new TextDecoder().decode((await reader.read()).value);
  const agentPid = Number(/sending (\d+)/.exec(line)![1]);
  await waitFor(() => sink.answering > 0);
  parent.kill("SIGKILL");
  await parent.exited;
  expect(await receipt()).toBeNull(); // nobody has read the 250 yet
  answer();
  sink.dataHold = null;

  await waitFor(() => !existsSync(`/proc/${agentPid}`), 8_000);
  expect(sink.received.length).toBe(before + 1);
  const written = (await receipt())!;
  expect(written.host).toBe("mx.dest.test");
  expect(JSON.parse(written.reply)).toMatchObject({ code: 250, enhanced_code: "2.0.0" });
}

test("when its server dies mid-transaction, the agent reads the 250 and writes the receipt itself, then exits", async () => {
  const dbPath = join(dir, "posthorn.db");
  const t = createTestApp({ dbPath, engine: "sqlite" }); // a file the agent opens; PostgreSQL is the next test
  const messageId = insertMessage(t.deps, { teamId: t.team.teamId, to: [{ email: "r@dest.test", name: "" }] });
  const recipientId = insertRecipient(t.deps, messageId, "r@dest.test", "processed");
  await orphanWritesReceipt(dbPath, recipientId, async () =>
    t.sql.get<{ reply: string; host: string }>("SELECT reply, host FROM delivery_receipts WHERE recipient_id = ?", [recipientId]),
  );
  sqliteOf(t.deps).close();
});

test.skipIf(!requireTool("postgresql"))("on PostgreSQL, the orphaned agent writes the receipt to the shared database", async () => {
  const url = await (await testPostgres()).createDatabase();
  const client = postgresClient(url, { max: 1 });
  try {
    await migratePostgres(client);
    const db = new PostgresExecutor(client);
    const [team, message, recipientId] = [newId(), newId(), newId()];
    const now = Date.now();
    await db.run("INSERT INTO teams (id, name, token_hash, token_generated_at, created_at, updated_at) VALUES (?, 'T', ?, ?, ?, ?)", [team, newId(), now, now, now]);
    await db.run(
      `INSERT INTO messages (id, team_id, type, status, status_changed_at, from_email, "to", cc, bcc, reply_to, metadata, created_at, updated_at)
       VALUES (?, ?, 'outbound', 'processed', ?, 'a@sender.test', '[]', '[]', '[]', '[]', '{}', ?, ?)`,
      [message, team, now, now, now],
    );
    await db.run("INSERT INTO recipients (id, message_id, email, kind, status, status_changed_at, created_at) VALUES (?, ?, 'r@dest.test', 'to', 'processed', ?, ?)", [
      recipientId,
      message,
      now,
      now,
    ]);
    await orphanWritesReceipt(url, recipientId, () => db.get("SELECT reply, host FROM delivery_receipts WHERE recipient_id = ?", [recipientId]));
  } finally {
    await client.close();
  }
});

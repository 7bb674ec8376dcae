// The SMTP agent process (src/mail/smtp-agent.ts): transactions run in a child process that
// records the acceptances its parent can no longer record, and the server copes when the agent
// dies or cannot be started.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../../src/log.ts";
import { SmtpAgent } from "../../src/mail/smtp-agent.ts";
import type { SendOutcome } from "../../src/mail/smtp-pool.ts";
import { smtpAgentsOf } from "../e2e/fixtures/outbound-server.ts";
import { createTestApp, tempDir, waitFor } from "../helpers.ts";
import { insertMessage, insertRecipient } from "../modules/messages/fixtures.ts";
import { startSink, type Sink } from "./harness.ts";

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
  const agent = new SmtpAgent({ heloName: "agent.test", logLevel: "silent", databasePath: null }, silent);
  const target = { host: "127.0.0.1", port: sink.port, servername: null };
  const first = await agent.send(target, envelope, raw);
  expect(first).toMatchObject({ kind: "reply", reply: { code: 250 } });
  // bun runs every test file in this process: other files' agents may be children too.
  const pid = agent.pid!;
  expect(smtpAgentsOf(process.pid)).toContain(pid);

  sink.dataDelayMs = 1_000;
  const pending = agent.send(target, envelope, raw);
  await waitFor(() => sink.answering > 0);
  process.kill(pid, "SIGKILL");
  const lost: SendOutcome = await pending;
  expect(lost).toMatchObject({ kind: "connection", code: "EAGENT" });
  sink.dataDelayMs = 0;

  const again = await agent.send(target, envelope, raw);
  expect(again).toMatchObject({ kind: "reply", reply: { code: 250 } });
  expect(agent.pid).not.toBe(pid);
  expect(smtpAgentsOf(process.pid)).not.toContain(pid);
  agent.close();
  await waitFor(() => sink.answering === 0, 3_000); // the killed agent's message, answered into a closed connection
});

test("an agent that cannot be started: transactions run in this process", async () => {
  const agent = new SmtpAgent({ heloName: "agent.test", logLevel: "silent", databasePath: null }, silent, ["/nonexistent/posthorn", "smtp-agent"]);
  const before = sink.received.length;
  const outcome = await agent.send({ host: "127.0.0.1", port: sink.port, servername: null }, envelope, raw);
  expect(outcome).toMatchObject({ kind: "reply", reply: { code: 250 } });
  expect(sink.received.length).toBe(before + 1);
  agent.close();
});

test("when its server dies mid-transaction, the agent reads the 250 and writes the receipt itself, then exits", async () => {
  const dbPath = join(dir, "posthorn.db");
  const t = createTestApp({ dbPath });
  const messageId = insertMessage(t.deps, { teamId: t.team.teamId, to: [{ email: "r@dest.test", name: "" }] });
  const recipientId = insertRecipient(t.deps, messageId, "r@dest.test", "processed");
  const receipt = () => t.deps.sqlite.query<{ reply: string; host: string }, [string]>("SELECT reply, host FROM delivery_receipts WHERE recipient_id = ?").get(recipientId);

  // The 250 comes 500 ms after the final ".": the server is killed while waiting for it.
  sink.dataDelayMs = 500;
  const before = sink.received.length;
  const parent = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "agent-parent.ts"), dbPath, String(sink.port), recipientId], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = parent.stdout.getReader();
  const line = new TextDecoder().decode((await reader.read()).value);
  const agentPid = Number(/sending (\d+)/.exec(line)![1]);
  await waitFor(() => sink.answering > 0);
  parent.kill("SIGKILL");
  await parent.exited;
  expect(receipt()).toBeNull(); // nobody has read the 250 yet

  await waitFor(() => !existsSync(`/proc/${agentPid}`), 6_000);
  sink.dataDelayMs = 0;
  expect(sink.received.length).toBe(before + 1);
  const written = receipt()!;
  expect(written.host).toBe("mx.dest.test");
  expect(JSON.parse(written.reply)).toMatchObject({ code: 250, enhanced_code: "2.0.0" });
  t.deps.sqlite.close();
});

/**
 * Throttles under concurrency: a burst of guesses sent at once must not get more answers that
 * tell something than the limit allows. Each test sends its guesses in parallel, the right
 * credential near the end, and checks that it is refused like the guesses beyond the limit.
 */
import { describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { loadConfig } from "../../src/config.ts";
import { startSubmissionListener } from "../../src/smtp/submission.ts";
import { createTestApp } from "../helpers.ts";
import { insertDeliveredOutbound, RawSmtpClient, startInbound } from "../smtp/support.ts";

/** The default POSTHORN_AUTH_FAILURE_LIMIT (the test app turns the limit off unless a test sets it). */
const AUTH_FAILURES_PER_IP = loadConfig({}).authFailureLimit;

const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((acc, s) => ((acc[s] = (acc[s] ?? 0) + 1), acc), {});

describe("API tokens: a burst of guesses from one IP", () => {
  test(`60 team tokens at once, the right one (in use, so remembered) at number 45: ${AUTH_FAILURES_PER_IP} wrong ones are 401s, every other answer (the right token's too) is a 429`, async () => {
    const t = createTestApp({ env: { POSTHORN_AUTH_FAILURE_LIMIT: "" } });
    const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const url = `http://127.0.0.1:${server.server!.port}/v1/team`;
      // The token's owner is using it: its row is in the node's memory, so its check ends at
      // once, while each guess waits for the database.
      expect((await fetch(url, { headers: { authorization: `Bearer ${t.team.teamToken}` } })).status).toBe(200);
      const statuses = await Promise.all(
        Array.from({ length: 60 }, (_, i) => {
          const token = i === 44 ? t.team.teamToken : `ph_team_guess${String(i).padStart(43, "x")}`;
          return fetch(url, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status);
        }),
      );
      const counts = tally(statuses);
      console.log(`60 parallel team tokens: ${JSON.stringify(counts)}, the right one ${statuses[44]}`);
      expect(statuses[44]).toBe(429);
      expect(counts[200] ?? 0).toBe(0);
      expect(counts[401]).toBe(AUTH_FAILURES_PER_IP);
      expect(counts[429]).toBe(60 - AUTH_FAILURES_PER_IP);
    } finally {
      await server.stop();
    }
  }, 30_000);
});

describe("API tokens: a client's own burst", () => {
  test("64 requests at once with the right token, its row not yet remembered (each looks it up): all are served", async () => {
    const t = createTestApp({ env: { POSTHORN_AUTH_FAILURE_LIMIT: "" } });
    const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const url = `http://127.0.0.1:${server.server!.port}/v1/team`;
      const statuses = await Promise.all(Array.from({ length: 64 }, () => fetch(url, { headers: { authorization: `Bearer ${t.team.teamToken}` } }).then((res) => res.status)));
      expect(tally(statuses)).toEqual({ 200: 64 });
    } finally {
      await server.stop();
    }
  }, 30_000);
});

/** An SMTP connection that answers each command with its reply's last line (null once closed). */
async function smtpSession(port: number) {
  const socket = connect({ host: "127.0.0.1", port });
  socket.setEncoding("utf8");
  let buffer = "";
  let closed = false;
  let wake: (() => void) | null = null;
  socket.on("data", (chunk: string) => ((buffer += chunk), wake?.()));
  socket.on("close", () => ((closed = true), wake?.()));
  socket.on("error", () => {});
  const reply = async (): Promise<string | null> => {
    for (;;) {
      const m = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n/.exec(buffer);
      if (m) {
        const end = m.index + m[0].length;
        const line = buffer.slice(0, end).trim().split("\r\n").at(-1)!;
        buffer = buffer.slice(end);
        return line;
      }
      if (closed) return null;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
  };
  return {
    reply,
    command: (line: string) => (socket.write(line + "\r\n"), reply()),
    close: () => socket.destroy(),
  };
}

describe("SMTP AUTH on submission: a burst of guesses from one IP", () => {
  // 40 connections: fewer than one client may hold at once (50 by default).
  test(`40 connections AUTH at once, the right token at number 30: ${AUTH_FAILURES_PER_IP} wrong ones get 535, every other answer (the right token's too) is 421`, async () => {
    const t = createTestApp({ env: { POSTHORN_AUTH_FAILURE_LIMIT: "" } });
    await t.sql.run("UPDATE projects SET smtp_enabled = 1 WHERE id = ?", [t.team.projectId]);
    const listener = await startSubmissionListener(t.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 100 });
    // The right token in use (its row remembered, so its check ends at once) from another connection.
    const owner = await smtpSession(listener.port);
    await owner.reply();
    await owner.command("EHLO owner.test");
    expect(await owner.command(`AUTH PLAIN ${Buffer.from(`\0${t.team.projectId}\0${t.team.projectToken}`).toString("base64")}`)).toMatch(/^235 /);
    owner.close();
    const sessions = await Promise.all(Array.from({ length: 40 }, () => smtpSession(listener.port)));
    try {
      // Every connection greeted and past EHLO first, so that the AUTH commands go out together.
      for (const s of await Promise.all(sessions.map(async (s) => [await s.reply(), await s.command("EHLO attacker.test")]))) {
        expect(s[0]).toMatch(/^220 /);
        expect(s[1]).toMatch(/^250 /);
      }
      const plain = (pass: string) => Buffer.from(`\0${t.team.projectId}\0${pass}`).toString("base64");
      const replies = await Promise.all(
        sessions.map((s, i) => s.command(`AUTH PLAIN ${plain(i === 29 ? t.team.projectToken : `ph_guess${String(i).padStart(43, "x")}`)}`)),
      );
      const codes = replies.map((r) => Number(r?.slice(0, 3) ?? 0));
      const counts = tally(codes);
      console.log(`40 parallel SMTP AUTH: ${JSON.stringify(counts)}, the right one ${replies[29]}`);
      expect(codes[29]).toBe(421);
      expect(counts[235] ?? 0).toBe(0);
      expect(counts[535]).toBe(AUTH_FAILURES_PER_IP);
      expect(counts[421]).toBe(40 - AUTH_FAILURES_PER_IP);
    } finally {
      for (const s of sessions) s.close();
      await listener.stop();
    }
  }, 30_000);
});

describe("RCPT on the MX: a burst of guesses from one IP", () => {
  test("40 connections (fewer than one client may hold) send RCPT at once, the right VERP address at number 30: 20 wrong ones get 550, every other answer (the right one's too) is 421", async () => {
    const h = await startInbound();
    const limit = h.deps.config.smtpRcptFailureLimit;
    try {
      const o = await insertDeliveredOutbound(h.deps, { teamId: h.app.team.teamId, projectId: h.app.team.projectId });
      const [local, domain] = o.verp.split("@") as [string, string];
      const [b, id] = local.split(".");
      const clients = await Promise.all(
        Array.from({ length: 40 }, async () => {
          const { client } = await RawSmtpClient.connect(h.port);
          await client.send("EHLO bouncer.test");
          await client.send("MAIL FROM:<>");
          return client;
        }),
      );
      const replies = await Promise.all(
        clients.map((c, i) => c.send(`RCPT TO:<${i === 29 ? o.verp : `${b}.${id}.${(i + 1).toString(16).padStart(20, "0")}@${domain}`}>`)),
      );
      for (const c of clients) c.close();
      const counts = tally(replies.map((r) => r.code));
      console.log(`40 parallel RCPTs: ${JSON.stringify(counts)}, the right one ${replies[29]!.text}`);
      expect(replies[29]!.code).toBe(421);
      expect(counts[250] ?? 0).toBe(0);
      expect(counts[550]).toBe(limit);
      expect(counts[421]).toBe(40 - limit);
    } finally {
      await h.stop();
    }
  }, 30_000);
});

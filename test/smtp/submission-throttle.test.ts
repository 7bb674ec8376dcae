import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import nodemailer from "nodemailer";
import { loadConfig } from "../../src/config.ts";
import type { RunningListener } from "../../src/smtp/listener.ts";
import { startSubmissionListener } from "../../src/smtp/submission.ts";
import { createTestApp, insertTestDomain, type TestApp } from "../helpers.ts";

/** The default POSTHORN_AUTH_FAILURE_LIMIT (the test app turns the limit off unless a test sets it). */
const AUTH_FAILURES_PER_IP = loadConfig({}).authFailureLimit;

/** One SMTP client connection from `localAddress`, read reply by reply (multi-line replies joined). */
class SmtpClient {
  private buffer = "";
  private waiting: ((reply: string | null) => void) | null = null;
  private closed = false;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.buffer += chunk;
      this.deliver();
    });
    const end = () => {
      this.closed = true;
      this.deliver();
    };
    socket.on("close", end);
    socket.on("error", end);
  }

  static open(port: number, localAddress: string): Promise<SmtpClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port, localAddress }, () => resolve(new SmtpClient(socket)));
      socket.once("error", reject);
    });
  }

  /** The next complete reply, or null when the server closed the connection first. */
  reply(): Promise<string | null> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.deliver();
    });
  }

  async command(line: string): Promise<string | null> {
    this.socket.write(line + "\r\n");
    return this.reply();
  }

  close(): void {
    this.socket.destroy();
  }

  private deliver(): void {
    if (!this.waiting) return;
    const m = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n/.exec(this.buffer);
    if (m) {
      const end = m.index + m[0].length;
      const reply = this.buffer.slice(0, end).trim();
      this.buffer = this.buffer.slice(end);
      const w = this.waiting;
      this.waiting = null;
      w(reply.split("\r\n").at(-1)!);
    } else if (this.closed) {
      const w = this.waiting;
      this.waiting = null;
      w(null);
    }
  }
}

const plain = (user: string, pass: string) => Buffer.from(`\0${user}\0${pass}`).toString("base64");

describe("SMTP AUTH failures are throttled per client IP", () => {
  let app: TestApp;
  let listener: RunningListener;

  beforeAll(async () => {
    // 64 connections at once from one address: the per-client connection cap (50 by default) is not what this tests.
    app = createTestApp({ env: { POSTHORN_AUTH_FAILURE_LIMIT: "", POSTHORN_SMTP_MAX_CONNECTIONS_PER_CLIENT: "0" } });
    insertTestDomain(app.deps, { teamId: app.team.teamId, projectId: app.team.projectId, domain: "brand.test" });
    await app.sql.run("UPDATE projects SET smtp_enabled = 1 WHERE id = ?", [app.team.projectId]);
    // Greeting at once: with smtp-server's 100 ms pause, the ~10,000 connections refused at connect
    // below waited 10,000 / 64 × 0.1 s ≈ 16 s between them.
    listener = await startSubmissionListener(app.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 100, greetDelayMs: 0 });
  });
  afterAll(() => listener.stop());

  test(`10,000 wrong AUTH attempts over 64 connections at a time: ${AUTH_FAILURES_PER_IP} get 535, every other one 421 4.7.0; the right token is refused from that IP and works from another; the listener keeps answering`, async () => {
    const ATTEMPTS = 10_000;
    const deadline = Date.now() + 60_000;
    const replies = new Map<string, number>();
    let attempts = 0;
    let connections = 0;
    const count = (reply: string) => {
      attempts++;
      const kind = reply.replace(/ in \d+ seconds$/, " in N seconds");
      replies.set(kind, (replies.get(kind) ?? 0) + 1);
    };

    async function worker(w: number): Promise<void> {
      while (attempts < ATTEMPTS && Date.now() < deadline) {
        const client = await SmtpClient.open(listener.port, "127.0.0.1");
        connections++;
        try {
          const greeting = (await client.reply()) ?? "closed";
          if (!greeting.startsWith("220")) {
            // Refused at connect: the attempt this connection was made for.
            count(greeting);
            continue;
          }
          expect(await client.command(`EHLO attacker-${w}.test`)).toMatch(/^250 /);
          // Many AUTH per connection, until the server answers 421 and closes it.
          while (attempts < ATTEMPTS && Date.now() < deadline) {
            const reply = (await client.command(`AUTH PLAIN ${plain(app.team.projectId, `ph_guess_${w}_${attempts}`)}`)) ?? "closed";
            count(reply);
            if (!reply.startsWith("535")) break;
          }
        } finally {
          client.close();
        }
      }
    }
    await Promise.all(Array.from({ length: 64 }, (_, w) => worker(w)));

    expect(attempts).toBeGreaterThanOrEqual(ATTEMPTS);
    expect(Object.fromEntries(replies)).toEqual({
      "535 5.7.8 Authentication credentials invalid": AUTH_FAILURES_PER_IP,
      "421 4.7.0 Too many failed authentications from your address, try again in N seconds": attempts - AUTH_FAILURES_PER_IP,
    });
    // Several AUTH went over one connection before the throttle; after it, each new connection is refused at once.
    expect(connections).toBeLessThan(attempts);
    // Counted in the database (the other nodes refuse this IP too): those that reached AUTH.
    expect(Number((await app.sql.get<{ failures: number }>("SELECT failures FROM auth_failures WHERE key = ?", ["ip:127.0.0.1"]))!.failures)).toBeGreaterThanOrEqual(AUTH_FAILURES_PER_IP);

    // The right token from the throttled IP: refused too (a guess cannot tell right from wrong).
    const again = await SmtpClient.open(listener.port, "127.0.0.1");
    expect(await again.reply()).toMatch(/^421 4\.7\.0 /);
    again.close();

    // From another address the listener answers as ever, and the right token sends.
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: listener.port,
      localAddress: "127.0.0.2",
      secure: false,
      ignoreTLS: true,
      auth: { user: app.team.projectId, pass: app.team.projectToken },
      logger: false,
    });
    try {
      const info = await transport.sendMail({ from: "hello@brand.test", to: "ann@example.net", subject: "still here", text: "still here" });
      expect(info.response).toMatch(/^250 2\.6\.0 Queued as /);
    } finally {
      transport.close();
    }
  }, 90_000);
});

/**
 * Real parts for inbound tests: the MX listener on 127.0.0.1:0, the loopback DNS server (every
 * SPF/DKIM/DMARC lookup goes there), a job runner with the inbound queue, a raw SMTP client for
 * protocol-level cases, and builders for the messages the tests send.
 */
import { connect, type Socket } from "node:net";
import { dkimSign, type DKIMSignOptions } from "mailauth";
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import type Mail from "nodemailer/lib/mailer";
import { dkimRecordContent, generateDkimKeyPair } from "../../src/dns/dkim-key.ts";
import { newId } from "../../src/ids.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { bounceDomainOf, verpAddress } from "../../src/mail/verp.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { createAuthResolver } from "../../src/smtp/auth-resolver.ts";
import { registerInboundJobs, stopInboundAnalysis, type InboundJobOptions } from "../../src/smtp/inbound-job.ts";
import { startInboundListener, type InboundListenerOptions } from "../../src/smtp/inbound.ts";
import type { RunningListener } from "../../src/smtp/listener.ts";
import { createTestApp, insertTestDomainWith, sqlOf, type Deps, type TestApp } from "../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { subscribeEveryRoute } from "../support/event-subscriber.ts";

export interface SenderDomain {
  domain: string;
  selector: string;
  privateKeyPem: string;
}

export interface InboundHarness {
  app: TestApp;
  deps: Deps;
  dns: TestDnsServer;
  listener: RunningListener;
  runner: JobRunner;
  port: number;
  inboundRouteId: string;
  inboundAddress: string;
  /** A sender domain with SPF (127.0.0.1 allowed), a DKIM key and DMARC p=reject published. */
  sender: SenderDomain;
  stop(): Promise<void>;
}

export async function startInbound(
  opts: { env?: Record<string, string>; listener?: InboundListenerOptions; jobs?: InboundJobOptions; beforeStart?: (h: { deps: Deps; runner: JobRunner; dns: TestDnsServer }) => void } = {},
): Promise<InboundHarness> {
  const dns = await startDnsServer();
  const app = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server, ...opts.env } });
  const deps = app.deps;
  const runner = new JobRunner(deps);
  registerInboundJobs(runner, deps, { resolver: createAuthResolver(deps.dns, { ttlMs: 0 }), ...opts.jobs });
  opts.beforeStart?.({ deps, runner, dns });
  runner.start();
  const listener = await startInboundListener(deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 200, ...opts.listener });

  await subscribeEveryRoute(deps);
  const route = (await app.sql.get<{ id: string; inbound_address: string }>("SELECT id, inbound_address FROM routes WHERE project_id = ? AND route_type = 'inbound'", [
    app.team.projectId,
  ]))!;

  const key = generateDkimKeyPair();
  const sender: SenderDomain = { domain: "sender.test", selector: "s1", privateKeyPem: key.privateKeyPem };
  dns.set("sender.test", "TXT", ["v=spf1 ip4:127.0.0.0/8 -all"]);
  dns.set("s1._domainkey.sender.test", "TXT", [dkimRecordContent(key.publicKeyBase64)]);
  dns.set("_dmarc.sender.test", "TXT", ["v=DMARC1; p=reject"]);

  return {
    app,
    deps,
    dns,
    listener,
    runner,
    port: listener.port,
    inboundRouteId: route.id,
    inboundAddress: route.inbound_address,
    sender,
    async stop() {
      await listener.stop();
      await runner.stop(2000);
      stopInboundAnalysis(deps);
      await dns.close();
    },
  };
}

/** RFC 5322 bytes of a message built by nodemailer's composer. */
export function compose(mail: Mail.Options): Promise<Buffer> {
  return new MailComposer(mail).compile().build();
}

/** Prepends a DKIM-Signature made with the sender domain's key. */
export async function dkimSigned(raw: Buffer, d: SenderDomain): Promise<Buffer> {
  // The runtime reads signatureData; the bundled typings only describe the single-key form.
  const opts = { signatureData: [{ signingDomain: d.domain, selector: d.selector, privateKey: d.privateKeyPem }] } as unknown as DKIMSignOptions;
  const res = await dkimSign(raw, opts);
  if (!res.signatures.trim()) throw new Error(`DKIM signing failed: ${JSON.stringify(res.errors)}`);
  return Buffer.concat([Buffer.from(res.signatures), raw]);
}

/** Sends raw bytes with nodemailer's SMTP client; resolves with the server's final reply. */
export async function sendRaw(port: number, envelope: { from: string; to: string[] }, raw: Buffer | string) {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, logger: false });
  try {
    return await transport.sendMail({ envelope, raw });
  } finally {
    transport.close();
  }
}

export type Reply = { code: number; lines: string[]; text: string };

/** A protocol-level SMTP client over a plain socket: send a line, read the reply. */
export class RawSmtpClient {
  private buffer = "";
  private replies: Reply[] = [];
  private waiters: ((r: Reply) => void)[] = [];
  private partial: string[] = [];
  closed = false;
  readonly closedPromise: Promise<void>;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => this.onData(chunk));
    this.closedPromise = new Promise((resolve) => {
      socket.on("close", () => {
        this.closed = true;
        for (const w of this.waiters.splice(0)) w({ code: 0, lines: [], text: "(connection closed)" });
        resolve();
      });
    });
    socket.on("error", () => {});
  }

  /** `localAddress`: the client's own address, e.g. 127.0.0.2 to be another client IP over loopback. */
  static async connect(port: number, host = "127.0.0.1", localAddress?: string): Promise<{ client: RawSmtpClient; greeting: Reply }> {
    const socket = connect({ port, host, localAddress });
    const client = new RawSmtpClient(socket);
    const greeting = await client.read();
    return { client, greeting };
  }

  private onData(chunk: string) {
    this.buffer += chunk;
    let i: number;
    while ((i = this.buffer.indexOf("\r\n")) >= 0) {
      const line = this.buffer.slice(0, i);
      this.buffer = this.buffer.slice(i + 2);
      this.partial.push(line.slice(4));
      if (line[3] !== "-") {
        const reply = { code: Number(line.slice(0, 3)), lines: this.partial, text: line };
        this.partial = [];
        const w = this.waiters.shift();
        if (w) w(reply);
        else this.replies.push(reply);
      }
    }
  }

  /** The next reply (or code 0 once the server closed the connection). */
  read(timeoutMs = 5000): Promise<Reply> {
    const r = this.replies.shift();
    if (r) return Promise.resolve(r);
    if (this.closed) return Promise.resolve({ code: 0, lines: [], text: "(connection closed)" });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no SMTP reply in time")), timeoutMs);
      this.waiters.push((reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  send(line: string): Promise<Reply> {
    this.socket.write(`${line}\r\n`);
    return this.read();
  }

  /** EHLO, MAIL FROM, the RCPTs, DATA and the message; returns every reply. */
  async transaction(from: string, to: string[], raw: string | Buffer): Promise<{ rcpt: Reply[]; data: Reply | null; final: Reply | null }> {
    await this.send("EHLO client.test");
    await this.send(`MAIL FROM:<${from}>`);
    const rcpt: Reply[] = [];
    for (const t of to) rcpt.push(await this.send(`RCPT TO:<${t}>`));
    if (!rcpt.some((r) => r.code === 250)) return { rcpt, data: null, final: null };
    const data = await this.send("DATA");
    if (data.code !== 354) return { rcpt, data, final: null };
    return { rcpt, data, final: await this.message(raw) };
  }

  /** After a 354: the message, dot-stuffed and ended by "."; the server's final reply. */
  message(raw: string | Buffer): Promise<Reply> {
    const body = Buffer.isBuffer(raw) ? raw.toString("latin1") : raw;
    const stuffed = body.replace(/\r?\n/g, "\r\n").replace(/^\./gm, "..");
    this.write(Buffer.from(`${stuffed}${stuffed.endsWith("\r\n") ? "" : "\r\n"}.\r\n`, "latin1"));
    return this.read();
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Bodies of the events of `kind`, parsed. */
export async function eventBodies(deps: Deps, kind: string): Promise<{ id: string; event: string; timestamp: string; data: any }[]> {
  const rows = await sqlOf(deps).all<{ body: string }>("SELECT body FROM events WHERE kind = ? ORDER BY created_at, id", [kind]);
  return rows.map((r) => JSON.parse(r.body));
}

export interface OutboundFixture {
  messageId: string;
  recipientId: string;
  email: string;
  verp: string;
  routeId: string;
  domain: string;
}

/**
 * An outbound message that was delivered, made directly in the database (as the sending code
 * would leave it): one recipient, sent from `domain`, with its VERP return path.
 */
export async function insertDeliveredOutbound(
  deps: Deps,
  opts: { teamId: string; projectId: string; domain?: string; email?: string; status?: string; recipientId?: string },
): Promise<OutboundFixture> {
  const domain = opts.domain ?? "brand.test";
  const sql = sqlOf(deps);
  let domainRow = await sql.get<{ id: string }>("SELECT id FROM domains WHERE team_id = ? AND domain = ?", [opts.teamId, domain]);
  if (!domainRow) domainRow = { id: (await insertTestDomainWith(sql, { teamId: opts.teamId, projectId: opts.projectId, domain })).domainId };
  const routeId = (await sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'", [opts.projectId]))!.id;
  const messageId = newId();
  const recipientId = opts.recipientId ?? newId();
  const email = opts.email ?? `someone-${recipientId.slice(-6)}@example.net`;
  const now = Date.now();
  const status = opts.status ?? "delivered";
  await sql.run(
    `INSERT INTO messages (id, team_id, project_id, route_id, domain_id, type, status, status_changed_at, tag, from_email, from_name, subject, "to", cc, bcc, reply_to, metadata, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'outbound', ?, ?, 'welcome', ?, 'Brand', 'Welcome', ?, '[]', '[]', '[]', '{"user":"42"}', ?, ?)`,
    [messageId, opts.teamId, opts.projectId, routeId, domainRow.id, status, now, `hello@${domain}`, JSON.stringify([{ email, name: "" }]), now, now],
  );
  await sql.run("INSERT INTO recipients (id, message_id, email, kind, status, status_changed_at, attempts, created_at) VALUES (?, ?, ?, 'to', ?, ?, 1, ?)", [
    recipientId,
    messageId,
    email,
    status,
    now,
    now,
  ]);
  const verp = verpAddress(await serverSecretOf(deps.store), recipientId, bounceDomainOf({ domain, returnPathHost: "ph-bounces" }));
  return { messageId, recipientId, email, verp, routeId, domain };
}

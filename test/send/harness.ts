/**
 * Real parts for sending tests: an SMTP server on loopback playing the recipient's MX (port 0),
 * the loopback DNS server answering MX/A/TXT, and an app whose outbound job runner delivers to
 * them with short retry delays.
 */
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from "smtp-server";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { closeOutbound, registerOutboundJobs, type OutboundOptions } from "../../src/mail/outbound-job.ts";
import type { SmtpSender } from "../../src/mail/smtp-pool.ts";
import { createTestApp, insertTestDomain, waitFor, type TestApp } from "../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: Buffer;
  secure: boolean;
  /** When the sink answered 250 for it (epoch ms). */
  at: number;
}

export type RcptDecision = { code: number; message: string } | null;

export interface Sink {
  port: number;
  received: ReceivedMail[];
  /** Decide RCPT replies: return null to accept, or a code and text to refuse. */
  onRcpt: ((address: string, session: SMTPServerSession) => RcptDecision) | null;
  /** Decide MAIL FROM replies: null accepts. */
  onMailFrom: ((address: string) => RcptDecision) | null;
  /** Decide the reply after DATA: null accepts. */
  onData: ((mail: ReceivedMail) => RcptDecision) | null;
  /** Artificial delay before answering DATA (to keep deliveries in flight), plus up to `dataDelayJitterMs` at random. */
  dataDelayMs: number;
  dataDelayJitterMs: number;
  /** Set: each "." is answered only once this has settled (a test holds a transaction in flight as long as it needs). */
  dataHold: Promise<void> | null;
  connections: number;
  /** Messages read to their final "." and not yet answered. */
  answering: number;
  close(): Promise<void>;
}

const smtpError = (d: { code: number; message: string }) => Object.assign(new Error(d.message), { responseCode: d.code });

/**
 * An SMTP server on 127.0.0.1:0 (or `host`:`port`) that records what it receives. STARTTLS is
 * offered with smtp-server's self-signed certificate, or with `tls` (a test CA's, for verified TLS).
 */
export async function startSink(
  opts: {
    host?: string;
    port?: number;
    auth?: { user: string; pass: string };
    /** Not advertised in EHLO, yet still answered. */
    hideSTARTTLS?: boolean;
    /** Neither advertised nor answered (500 to STARTTLS): a server without TLS. */
    noSTARTTLS?: boolean;
    tls?: { key: string; cert: string };
  } = {},
): Promise<Sink> {
  const sink: Sink = {
    port: 0,
    received: [],
    onRcpt: null,
    onMailFrom: null,
    onData: null,
    dataDelayMs: 0,
    dataDelayJitterMs: 0,
    dataHold: null,
    connections: 0,
    answering: 0,
    close: async () => {},
  };
  const server = new SMTPServer({
    authOptional: !opts.auth,
    hideSTARTTLS: opts.hideSTARTTLS ?? false,
    ...(opts.tls ? { key: opts.tls.key, cert: opts.tls.cert } : {}),
    ...(opts.noSTARTTLS ? { disabledCommands: ["STARTTLS"] } : {}),
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass) return cb(null, { user: auth.username });
      cb(Object.assign(new Error("Invalid credentials"), { responseCode: 535 }));
    },
    disableReverseLookup: true,
    logger: false,
    size: 30 * 1024 * 1024,
    onConnect(_session, cb) {
      sink.connections++;
      cb();
    },
    onMailFrom(address: SMTPServerAddress, _session, cb) {
      const d = sink.onMailFrom?.(address.address) ?? null;
      cb(d ? smtpError(d) : undefined);
    },
    onRcptTo(address: SMTPServerAddress, session, cb) {
      const d = sink.onRcpt?.(address.address, session) ?? null;
      cb(d ? smtpError(d) : undefined);
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          secure: session.secure,
          at: 0,
        };
        sink.answering++;
        const answer = () => {
          sink.answering--;
          const d = sink.onData?.(mail) ?? null;
          if (d) return cb(smtpError(d));
          mail.at = Date.now();
          sink.received.push(mail);
          cb(null, "2.0.0 Ok: queued");
        };
        const delay = sink.dataDelayMs + Math.random() * sink.dataDelayJitterMs;
        const hold = sink.dataHold;
        const answerNow = hold ? () => void hold.then(answer, answer) : answer;
        if (delay > 0) setTimeout(answerNow, delay);
        else answerNow();
      });
    },
  });
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve));
  sink.port = (server.server.address() as { port: number }).port;
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return sink;
}

export interface OutboundHarness extends TestApp {
  dns: TestDnsServer;
  sink: Sink;
  runner: JobRunner;
  pools: SmtpSender;
  domain: { domainId: string; selector: string; privateKeyPem: string; publicKeyBase64: string };
  /** Sends through the API with the project token. */
  send(body: unknown, headers?: Record<string, string>): ReturnType<TestApp["request"]>;
  /** Points `domain`'s MX at the sink (127.0.0.1). */
  routeToSink(domain: string): void;
  messageStatus(id: string): string;
  recipients(id: string): { id: string; email: string; status: string; attempts: number; last_response: string | null }[];
  history(id: string): { kind: string; status: string | null; data: any }[];
  waitForStatus(id: string, statuses: string[], timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

export const SENDER_DOMAIN = "sender.test";

/**
 * An app delivering directly (POSTHORN_DELIVERY=direct) through the loopback DNS to the sink.
 * The sending domain sender.test is active, attached to the project, and its DKIM key published.
 */
export async function startOutbound(
  opts: { env?: Record<string, string>; outbound?: OutboundOptions; sink?: Sink; dns?: TestDnsServer } = {},
): Promise<OutboundHarness> {
  const dns = opts.dns ?? (await startDnsServer());
  const sink = opts.sink ?? (await startSink());
  const t = createTestApp({
    env: {
      POSTHORN_DELIVERY: "direct",
      POSTHORN_MX_PORT: String(sink.port),
      POSTHORN_DNS_SERVERS: dns.server,
      POSTHORN_HOSTNAME: "mta.posthorn.test",
      ...opts.env,
    },
  });
  const domain = insertTestDomain(t.deps, { teamId: t.team.teamId, projectId: t.team.projectId, domain: SENDER_DOMAIN, status: "active" });
  dns.set(`${domain.selector}._domainkey.${SENDER_DOMAIN}`, "TXT", [dkimRecordContent(domain.publicKeyBase64)]);
  dns.set("mx.sink.test", "A", ["127.0.0.1"]);

  const runner = new JobRunner(t.deps);
  const pools = registerOutboundJobs(runner, t.deps, {
    retryScheduleMs: [50, 100, 150],
    mxCacheMs: 0,
    // Shaping on, as in production, with pauses short enough for a test's retries.
    shaping: { firstPauseMs: 100, maxPauseMs: 400, rampEveryMs: 50, quietMs: 1000 },
    ...opts.outbound,
  });
  runner.start();

  const h: OutboundHarness = {
    ...t,
    dns,
    sink,
    runner,
    pools,
    domain,
    send: (body, headers) => t.request("POST", "/v1/send", { projectToken: t.team.projectToken, body, headers }),
    routeToSink: (d) => dns.set(d, "MX", [{ exchange: "mx.sink.test", priority: 10 }]),
    messageStatus: (id) => t.sqlNow.get<{ status: string }>("SELECT status FROM messages WHERE id = ?", [id])?.status ?? "missing",
    recipients: (id) =>
      t.sqlNow.all<{ id: string; email: string; status: string; attempts: number; last_response: string | null }>(
        "SELECT id, email, status, attempts, last_response FROM recipients WHERE message_id = ? ORDER BY email",
        [id],
      ),
    // Event ids are time-ordered (UUIDv7): within one millisecond, the order they were added.
    history: (id) =>
      t.sqlNow
        .all<{ kind: string; status: string | null; data: string }>("SELECT kind, status, data FROM message_events WHERE message_id = ? ORDER BY created_at, id", [id])
        .map((r) => ({ ...r, data: JSON.parse(r.data) })),
    waitForStatus: (id, statuses, timeoutMs = 5000) =>
      waitFor(() => {
        const s = h.messageStatus(id);
        return statuses.includes(s) ? s : null;
      }, timeoutMs),
    close: async () => {
      await closeOutbound(t.deps); // lets deliveries under way finish, closes SMTP pools and the compose worker
      await runner.stop(2000);
      if (!opts.sink) await sink.close();
      if (!opts.dns) await dns.close();
      await t.deps.store.close();
    },
  };
  return h;
}

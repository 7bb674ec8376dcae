/**
 * Bounces as a real MTA writes them: Posthorn delivers to a private Postfix (the recipients'
 * MX, on loopback), which accepts, then meets `452 4.2.2 Mailbox full` or `550 5.1.1 User unknown`
 * at the mailbox server behind it, and sends its own DSN to Posthorn's VERP return path. Only the
 * permanent failure may suppress the address (README, "Bounces, complaints, auto-replies").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, createServer, type Server } from "node:net";
import { startInboundListener } from "../../src/smtp/inbound.ts";
import type { RunningListener } from "../../src/smtp/listener.ts";
import { waitFor } from "../helpers.ts";
import { SENDER_DOMAIN, startOutbound, startSink, type OutboundHarness, type Sink } from "../send/harness.ts";
import { startPostfix, type TestPostfix } from "../support/postfix.ts";
import { requireTool } from "../support/tools.ts";

const DEST = "dest.test";
const FULL = `full@${DEST}`;
const UNKNOWN = `unknown@${DEST}`;

/**
 * A TCP relay in front of Posthorn's SMTP listener that keeps what clients send: Postfix's DSNs
 * as they came over the wire, the evidence that Postfix wrote them.
 */
async function startTap(): Promise<{ port: number; target: number; messages(): string[]; close(): Promise<void> }> {
  const transcripts: string[] = [];
  const tap = {
    port: 0,
    target: 0,
    // Each DATA section of every transcript, without its final dot and dot-stuffing, in LF lines.
    messages: () =>
      transcripts.flatMap((t) =>
        [...t.matchAll(/(?:^|\r\n)DATA\r\n([\s\S]*?\r\n)\.\r\n/g)].map((m) => m[1]!.replace(/\r\n/g, "\n").replace(/^\.\./gm, ".")),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((client) => {
    const i = transcripts.push("") - 1;
    const upstream = connect({ host: "127.0.0.1", port: tap.target });
    client.on("data", (chunk) => {
      transcripts[i] += chunk.toString("latin1");
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on("end", () => upstream.end());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  tap.port = (server.address() as { port: number }).port;
  return tap;
}

describe.skipIf(!requireTool("postfix"))("DSNs from a real Postfix", () => {
  let mailbox: Sink;
  let tap: Awaited<ReturnType<typeof startTap>>;
  let postfix: TestPostfix;
  let h: OutboundHarness;
  let listener: RunningListener;

  beforeAll(async () => {
    // The mailbox server behind Postfix: one full mailbox, one that does not exist.
    mailbox = await startSink();
    mailbox.onRcpt = (address) =>
      address === FULL ? { code: 452, message: "4.2.2 Mailbox full" } : address === UNKNOWN ? { code: 550, message: "5.1.1 User unknown" } : null;
    tap = await startTap();
    postfix = await startPostfix({ hostname: `mx.${DEST}`, routes: { [DEST]: mailbox.port, [`ph-bounces.${SENDER_DOMAIN}`]: tap.port } });
    h = await startOutbound({ sink: mailbox, env: { POSTHORN_MX_PORT: String(postfix.port) } });
    h.dns.set(DEST, "MX", [{ exchange: `mx.${DEST}`, priority: 10 }]);
    h.dns.set(`mx.${DEST}`, "A", ["127.0.0.1"]);
    listener = await startInboundListener(h.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 200 });
    tap.target = listener.port;
    // Hooks time out after 5 s whatever bunfig says; `postfix check` and initdb take 2–3 s each on a busy machine.
  }, 30_000);

  afterAll(async () => {
    await postfix?.stop();
    await listener?.stop();
    await tap?.close();
    await h?.close();
    await mailbox?.close();
  }, 10_000);

  const api = async (path: string) => (await h.request("GET", path)).json;
  const send = async (to: string) => {
    const res = await h.send({ from: `app@${SENDER_DOMAIN}`, to: [to], subject: "Hello", text: "Hello there" });
    expect(res.status).toBe(202);
    return res.json.message_id as string;
  };
  const history = async (id: string) => (await api(`/v1/messages/${id}/events`)).data as any[];
  const suppressions = async (email: string) =>
    (await api(`/v1/suppressions?filter[email]=${encodeURIComponent(email)}`)).data.map((s: any) => ({ email: s.email, scope: s.scope, reason: s.reason }));
  /** The DSN that came over the wire about `recipient`. */
  const dsnAbout = (recipient: string) => tap.messages().find((m) => m.includes(`\nFinal-Recipient: rfc822; ${recipient}\n`));

  test("452 4.2.2 (mailbox full) ends the recipient failed and suppresses nothing; 550 5.1.1 hard-bounces and suppresses", async () => {
    const full = await send(FULL);
    const unknown = await send(UNKNOWN);
    const status = async (id: string) => (await api(`/v1/messages/${id}`)).status as string;
    try {
      await waitFor(async () => (await status(full)) === "failed" && (await status(unknown)) === "hard_bounced", 20_000, 100);
    } catch {
      throw new Error(`not bounced in 20 s (${await status(full)}, ${await status(unknown)}); Postfix's log:\n${postfix.log()}`);
    }

    // Postfix took both (its 250 made them delivered), could deliver neither, and wrote its DSNs.
    const [fullHistory, unknownHistory] = [await history(full), await history(unknown)];
    for (const events of [fullHistory, unknownHistory]) expect(events.at(-2)).toMatchObject({ kind: "message.delivered", data: { mx: postfix.hostname } });
    expect(mailbox.received).toEqual([]);
    const expiry = dsnAbout(FULL)!;
    expect(expiry).toContain(`From: Mail Delivery System <MAILER-DAEMON@${postfix.hostname}>\n`);
    expect(expiry).toContain(`\nReporting-MTA: dns; ${postfix.hostname}\nX-Postfix-Queue-ID: `);
    expect(expiry).toContain("\nAction: failed\nStatus: 4.2.2\nRemote-MTA: dns; 127.0.0.1\nDiagnostic-Code: smtp; 452 4.2.2 Mailbox full\n");
    expect(dsnAbout(UNKNOWN)).toContain("\nAction: failed\nStatus: 5.1.1\nRemote-MTA: dns; 127.0.0.1\nDiagnostic-Code: smtp; 550 5.1.1 User unknown\n");

    // (a) Mailbox full: failed, as after our own queue's expiry; the address stays usable.
    const failed = fullHistory.at(-1);
    expect(failed).toMatchObject({
      kind: "message.failed",
      status: "failed",
      recipient: FULL,
      data: {
        response: { code: 452, enhanced_code: "4.2.2", message: "452 4.2.2 Mailbox full" },
        report: { type: "dsn", reporting_mta: postfix.hostname, final_recipient: FULL, action: "failed", status: "4.2.2" },
      },
    });
    // The report applied is the one Postfix sent.
    expect(expiry).toContain(`\nMessage-Id: <${failed.data.report.id}>\n`);
    expect(await suppressions(FULL)).toEqual([]);

    // (b) User unknown: hard_bounced and suppressed for the team.
    expect(unknownHistory.at(-1)).toMatchObject({
      kind: "message.hard_bounced",
      status: "hard_bounced",
      recipient: UNKNOWN,
      data: {
        response: { code: 550, enhanced_code: "5.1.1", message: "550 5.1.1 User unknown" },
        report: { type: "dsn", reporting_mta: postfix.hostname, final_recipient: UNKNOWN, action: "failed", status: "5.1.1" },
      },
    });
    expect(await suppressions(UNKNOWN)).toEqual([{ email: UNKNOWN, scope: "team", reason: "hard_bounce" }]);
  });
});

/**
 * Issue 41, finding 8: control characters in header-bound fields. A subject, a display name, a
 * custom header value or an attachment filename holding VT, FF or any other C0/C1 control but
 * TAB was accepted (202) and written into the header (a custom header's value byte for byte).
 * Each is now a 422 naming the field, over real HTTP, and nothing reaches the recipient's MX;
 * over SMTP submission the same message is refused with 554 5.6.0. TAB stays allowed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSubmissionListener } from "../../src/smtp/submission.ts";
import type { RunningListener } from "../../src/smtp/listener.ts";
import { RawSmtpClient } from "../smtp/support.ts";
import { startOutbound, type OutboundHarness } from "./harness.ts";

let h: OutboundHarness;
let listener: ReturnType<typeof Bun.serve>;
let base: string;

beforeAll(async () => {
  h = await startOutbound();
  h.routeToSink("dest.test");
  // Before any request: a node keeps a checked token's row for a second.
  await h.sql.run("UPDATE projects SET smtp_enabled = 1 WHERE id = ?", [h.team.projectId]);
  listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => h.app.handle(req) });
  base = `http://127.0.0.1:${listener.port}`;
});
afterAll(async () => {
  listener.stop(true);
  await h.close();
});

const post = async (body: unknown) => {
  const res = await fetch(`${base}/v1/send`, { method: "POST", headers: { "content-type": "application/json", "x-service-token": h.team.projectToken }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
};
const valid = (extra: Record<string, unknown> = {}) => ({ from: "hello@sender.test", to: ["ann@dest.test"], subject: "Hi", text: "Hello!", ...extra });

describe("control characters in header-bound fields (issue 41, finding 8)", () => {
  const controls = ["\x0b", "\x0c", "\x01", "\x1b", "\x7f", "\x85", "\x9b"];
  const cases = (c: string): [string, Record<string, unknown>, string][] => [
    ["subject", { subject: `Hi${c}there` }, "subject"],
    ["custom header value", { headers: { "X-Note": `a${c}b` } }, "headers.X-Note"],
    ["from display name", { from: `"Bad${c}Name" <hello@sender.test>` }, "from"],
    ["to display name", { to: [`"Ann${c}" <ann@dest.test>`] }, "to.0"],
    ["cc display name", { cc: [`"Cy${c}" <cy@dest.test>`] }, "cc.0"],
    ["reply_to display name", { reply_to: [`"Help${c}" <help@sender.test>`] }, "reply_to.0"],
    ["attachment filename", { attachments: [{ filename: `a${c}b.txt`, content: "aGVsbG8=" }] }, "attachments.0.filename"],
  ];

  test("each field with each control is a 422 naming it; nothing is accepted, nothing reaches the MX", async () => {
    const before = (await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages"))!.n;
    const sunk = h.sink.received.length;
    const accepted: string[] = [];
    for (const c of controls) {
      for (const [name, patch, field] of cases(c)) {
        const res = await post(valid(patch));
        if (res.status !== 422) accepted.push(`${name} ${JSON.stringify(c)}: ${res.status}`);
        else {
          expect(Object.keys(res.json.errors)).toEqual([field]);
          expect(res.json.message).toMatch(/control characters/);
        }
      }
    }
    // Before the fix: 46 of these 49 were accepted (202); only a C0 control in a filename was refused.
    expect(accepted).toEqual([]);
    expect((await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages"))!.n).toBe(before);
    await Bun.sleep(200);
    expect(h.sink.received.length).toBe(sunk);
  });

  test("a tag or header name with a control is refused too; a TAB in a subject or header value is accepted and sent", async () => {
    expect((await post(valid({ tag: "a\x0bb" }))).json.errors).toHaveProperty("tag");
    expect(Object.keys((await post(valid({ headers: { "X-A\x0bB": "v" } }))).json.errors)).toEqual(["headers.X-A\x0bB"]);
    const ok = await post(valid({ subject: "Tab\tsubject", headers: { "X-Note": "a\tb" } }));
    expect(ok.status).toBe(202);
    await h.waitForStatus(ok.json.message_id, ["delivered"]);
    const mail = h.sink.received.find((m) => m.raw.includes(ok.json.message_id))!;
    expect(mail.raw.toString("latin1")).toContain("X-Note: a\tb\r\n");
  });
});

describe("SMTP submission takes headers from outside: the same rule", () => {
  let submission: RunningListener;
  beforeAll(async () => {
    submission = await startSubmissionListener(h.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 100 });
  });
  afterAll(() => submission.stop());

  /** AUTH PLAIN with the project token (loopback needs no TLS), then one transaction; the final reply's text. */
  const submit = async (raw: string) => {
    const { client } = await RawSmtpClient.connect(submission.port);
    try {
      await client.send("EHLO client.test");
      const auth = await client.send(`AUTH PLAIN ${Buffer.from(`\0${h.team.projectId}\0${h.team.projectToken}`).toString("base64")}`);
      expect(auth.code).toBe(235);
      const t = await client.transaction("hello@sender.test", ["ann@dest.test"], raw);
      return t.final?.text ?? "";
    } finally {
      client.close();
    }
  };

  test("a VT in the Subject or a FF in a custom header is refused with 554 5.6.0 naming the field", async () => {
    const head = "From: hello@sender.test\r\nTo: ann@dest.test\r\n";
    expect(await submit(`${head}Subject: Hi\x0bthere\r\n\r\nhello\r\n`)).toMatch(/^554 5\.6\.0 .*subject.*control/i);
    expect(await submit(`${head}Subject: Hi\r\nX-Custom: v\x0cw\r\n\r\nhello\r\n`)).toMatch(/^554 5\.6\.0 .*X-Custom.*control/i);
    expect(await submit(`${head}Subject: Hi\r\nX-Custom: v\tw\r\n\r\nhello\r\n`)).toMatch(/^250 /);
  });
});

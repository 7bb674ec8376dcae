import { expect, test } from "bun:test";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { simpleParser } from "mailparser";
import { dkimRecordContent, generateDkimKeyPair } from "../../src/dns/dkim-key.ts";
import type { ComposeInput } from "../../src/mail/compose-message.ts";
import { Composer } from "../../src/mail/compose-pool.ts";
import { createLogger } from "../../src/log.ts";

const key = generateDkimKeyPair();
const dkim = { domain: "sender.test", selector: "ph1", privateKeyPem: key.privateKeyPem };
const input = (i: number): ComposeInput => ({
  messageId: `m${i}@sender.test`,
  date: new Date("2026-01-02T03:04:05Z"),
  from: { email: "a@sender.test", name: "Ä Sender" },
  to: [{ email: "b@dest.test", name: "" }],
  cc: [],
  replyTo: [],
  subject: `Subject ${i}`,
  html: "<p>hello</p>",
  text: "hello",
  headers: { "X-Id": String(i) },
  attachments: [{ filename: "a.bin", contentType: "application/octet-stream", contentId: null, content: Buffer.from([0, 1, 2, 255]) }],
  received: { by: "mx.posthorn.test", id: `id-${i}` },
});
const resolver = async (name: string) => {
  if (name === "ph1._domainkey.sender.test") return [[dkimRecordContent(key.publicKeyBase64)]];
  throw Object.assign(new Error("nx"), { code: "ENOTFOUND" });
};

test("messages composed on the worker thread are complete and DKIM-valid", async () => {
  const composer = new Composer(1, createLogger("silent"));
  try {
    const raws = await Promise.all(Array.from({ length: 20 }, async (_, i) => (await composer.compose(input(i), dkim)).raw));
    for (const [i, raw] of raws.entries()) {
      const parsed = await simpleParser(raw);
      expect(parsed.subject).toBe(`Subject ${i}`);
      expect(parsed.headers.get("x-id")).toBe(String(i));
      expect([...parsed.attachments[0]!.content]).toEqual([0, 1, 2, 255]);
      // The trace field this server adds opens the composed header block, as an MTA's does; the
      // signature then goes above it, as a signing milter's above Postfix's Received.
      const head = raw.toString().slice(0, raw.indexOf("\r\n\r\n"));
      expect(head.match(/^[\w-]+(?=:)/gm)!.slice(0, 2)).toEqual(["DKIM-Signature", "Received"]);
      expect(head).toContain(`\r\nReceived: by mx.posthorn.test (Posthorn) id id-${i};\r\n\tFri, 02 Jan 2026 03:04:05 +0000\r\n`);
    }
    const verified = await dkimVerify(raws[7]!, { resolver });
    expect(verified.results[0]!.status.result).toBe("pass");
  } finally {
    composer.close();
  }
});

test("a worker that cannot start is replaced by composing on the calling thread", async () => {
  const lines: string[] = [];
  const composer = new Composer(1, createLogger("warn", (l) => lines.push(l)), new URL("./no-such-worker.ts", import.meta.url).href);
  try {
    const raws = (await Promise.all([composer.compose(input(1), dkim), composer.compose(input(2), dkim)])).map((c) => c.raw);
    expect((await simpleParser(raws[1]!)).subject).toBe("Subject 2");
    expect((await dkimVerify(raws[0]!, { resolver })).results[0]!.status.result).toBe("pass");
    expect(lines.some((l) => l.includes("composing on the main thread"))).toBe(true);
    // Later messages do not try the worker again.
    expect((await simpleParser((await composer.compose(input(3), dkim)).raw)).subject).toBe("Subject 3");
  } finally {
    composer.close();
  }
});

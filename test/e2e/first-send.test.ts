/**
 * The README's "Send your first message" recipes, run word for word: every ```sh block of each
 * recipe, in order, in one bash session, as a new user would paste them. The first block starts the
 * server (`npm start`, a fresh data directory); the `export …` line it prints under the token box is
 * pasted into the session, as the README says. The test adds only what a real machine has and a
 * test must not use: ports of its own, a DNS server on loopback holding the records the user
 * publishes, and the recipients' mail server on loopback.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../helpers.ts";
import { startSink, type Sink } from "../send/harness.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { machineEnv, root, Shell, startServer, stopGroup } from "./fixtures/shell.ts";

/** The ```sh blocks under "### <title>" of the README's first-send section. */
function recipe(title: string): string[] {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.split(/^## /m).find((s) => s.startsWith("Send your first message"));
  const sub = section?.split(/^### /m).find((s) => s.startsWith(title));
  if (!sub) throw new Error(`README: no "### ${title}" under "## Send your first message"`);
  return [...sub.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe("README: Send your first message", () => {
  const cleanup: Array<() => unknown> = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });

  test("on this machine, in two minutes: the export line, domains add, a send, then delivered", async () => {
    const blocks = recipe("On this machine");
    expect(blocks.length).toBe(3);
    expect(blocks[0]).toContain("npm start");
    const dns = await startDnsServer();
    cleanup.push(() => dns.close());
    const env = await machineEnv(dns);
    const server = await startServer(blocks[0]!, env);
    cleanup.push(() => stopGroup(server.proc));
    // The box stands out from the JSON log lines; the default 0.0.0.0 listener is warned about.
    expect(server.output()).toContain("These tokens are shown ONCE");
    // The warning is logged just after the box: a separate write, which may reach the pipe later.
    await waitFor(() => /"level":"warn","msg":"the API listens on all interfaces/.test(server.output()), 10_000).catch(() => {
      throw new Error(`no warning about the 0.0.0.0 listener in:\n${server.output()}`);
    });

    const shell = new Shell({ PATH: env.PATH!, HOME: env.HOME! });
    cleanup.push(() => shell.close());
    expect((await shell.run(server.exportLine)).status).toBe(0);
    const add = await shell.run(blocks[1]!);
    expect(add).toMatchObject({ status: 0 });
    expect(add.out).toContain("Registered example.com");
    expect(add.out).toContain("attached to Default project");
    expect(add.out).toMatch(/^_dmarc\.example\.com\.\t3600\tIN\tTXT\t"v=DMARC1; /m);
    // A moment later, as the README says: the same block, run again until it shows the message delivered.
    const shown = await waitFor(async () => {
      const r = await shell.run(blocks[2]!);
      return r.status === 0 && JSON.parse(r.out).status === "delivered" ? JSON.parse(r.out) : null;
    }, 15_000, 200);
    expect(shown).toEqual({ subject: "Hello", status: "delivered" });
  }, 60_000);

  test("for real: register, publish the listed records, verify, attach, send over SMTP to the recipient's MX, delivered", async () => {
    const blocks = recipe("For real");
    expect(blocks.length).toBe(5);
    expect(blocks[0]!.trim()).toBe("npm start");
    const dns = await startDnsServer();
    cleanup.push(() => dns.close());
    const mx: Sink = await startSink();
    cleanup.push(() => mx.close());
    // The recipient's domain and its mail server; the sending server's own name.
    dns.set("example.org", "MX", [{ exchange: "mx.example.org", priority: 10 }]);
    dns.set("mx.example.org", "A", ["127.0.0.1"]);
    dns.set("mail.posthorn.test", "A", ["127.0.0.1"]);
    const env = await machineEnv(dns, { POSTHORN_MX_PORT: String(mx.port) });
    const server = await startServer(blocks[0]!, env);
    cleanup.push(() => stopGroup(server.proc));

    const shell = new Shell({ PATH: env.PATH!, HOME: env.HOME! });
    cleanup.push(() => shell.close());
    await shell.run(server.exportLine);
    const listed = await shell.run(blocks[1]!);
    expect(listed).toMatchObject({ status: 0 });
    const records = listed.out.trim().split("\n").map((l) => l.split("\t") as [string, string, string]);
    expect(records.map(([type, fqdn]) => `${type} ${fqdn}`)).toEqual([
      expect.stringMatching(/^TXT ph\d+[0-9a-f]+\._domainkey\.example\.com$/),
      expect.stringMatching(/^TXT phe\d+[0-9a-f]+\._domainkey\.example\.com$/),
      "TXT ph-bounces.example.com",
      "MX ph-bounces.example.com",
      "TXT _dmarc.example.com",
      "TXT _smtp._tls.example.com",
    ]);
    // What the user does at the DNS provider, from exactly what was listed.
    for (const [type, fqdn, content] of records) {
      if (type === "MX") dns.set(fqdn, "MX", [{ exchange: content, priority: 10 }]);
      else dns.set(fqdn, "TXT", [content]);
    }
    const verify = await shell.run(blocks[2]!);
    expect(JSON.parse(verify.out)).toEqual({ verified: true, message: expect.any(String) });

    const send = await shell.run(blocks[3]!);
    expect(send).toMatchObject({ status: 0 });
    expect(send.out.trim().split("\n")[0]).toBe('"Domain projects updated successfully."');
    let last = "";
    const events = await waitFor(async () => {
      last = (await shell.run(blocks[4]!)).out;
      return last.includes("message.delivered") ? last.trim().split("\n") : null;
    }, 15_000, 200).catch(() => {
      throw new Error(`not delivered; the events block printed:\n${last}\nsend printed:\n${send.out}\nserver:\n${server.output()}`);
    });
    expect(events.at(-1)).toBe("message.delivered");
    // It really went out: DKIM-signed for example.com, with our trace header, to the recipient's MX,
    // with the VERP return path the README describes.
    const mail = mx.received.find((m) => m.to.includes("you@example.org"))!;
    expect(mail.raw.toString()).toMatch(/^DKIM-Signature: .*d=example\.com;/m);
    expect(mail.raw.toString()).toMatch(/^Received: by mail\.posthorn\.test \(Posthorn\) id [0-9a-f-]{36};\r\n\t\w{3}, \d\d \w{3} \d{4} [\d:]{8} \+0000\r\n/m);
    expect(mail.from).toMatch(/^b\.[0-9a-f]{32}\.[0-9a-f]{20}@ph-bounces\.example\.com$/);
  }, 60_000);
});

import { expect, test } from "bun:test";
import { dkimBody } from "mailauth/lib/dkim/body";
import addressparser from "nodemailer/lib/addressparser";
import { parseAddress, parseEmail } from "../../src/mail/address.ts";
import { relaxedBodyHash } from "../../src/mail/dkim.ts";
import { parseReply, requestedRetryMs, verdictOf } from "../../src/mail/reply.ts";

test("SMTP replies: code, enhanced code and text, multi-line", () => {
  expect(parseReply("250 2.0.0 Ok: queued as 4A1B2")).toEqual({ code: 250, enhanced_code: "2.0.0", message: "Ok: queued as 4A1B2" });
  expect(parseReply("550-5.1.1 The email account that you tried to reach does not exist.\n550 5.1.1 Please try double-checking.")).toEqual({
    code: 550,
    enhanced_code: "5.1.1",
    message: "The email account that you tried to reach does not exist. Please try double-checking.",
  });
  expect(parseReply("421 Service not available")).toEqual({ code: 421, enhanced_code: null, message: "Service not available" });
  // A remote's reply is kept bounded, and storable: a NUL (PostgreSQL's text refuses it) becomes U+FFFD, an emoji is not split.
  expect(parseReply("550 5.1.1 no\u0000such user").message).toBe("no\uFFFDsuch user");
  const long = parseReply(`550 ${"x".repeat(1999)}😀${"y".repeat(5000)}`).message;
  expect(long).toBe("x".repeat(1999));
  expect(verdictOf({ code: 250, enhanced_code: null, message: "" })).toBe("delivered");
  expect(verdictOf({ code: 452, enhanced_code: null, message: "" })).toBe("soft");
  expect(verdictOf({ code: 554, enhanced_code: null, message: "" })).toBe("hard");
  expect(verdictOf({ code: null, enhanced_code: null, message: "ECONNREFUSED" })).toBe("soft");
});

test("a remote's 'try again in N' is understood, capped at a day", () => {
  expect(requestedRetryMs("4.7.1 Greylisted, try again in 5 minutes")).toBe(300_000);
  expect(requestedRetryMs("Please retry after 90 seconds")).toBe(90_000);
  expect(requestedRetryMs("try again later in 2 hours")).toBe(7_200_000);
  expect(requestedRetryMs("Try again in 9999 hours")).toBe(86_400_000);
  expect(requestedRetryMs("Mailbox full")).toBeNull();
});

test("addresses: display names in angle-bracket form only; IDN domains to punycode", () => {
  expect(parseAddress("Jane Doe <jane@Example.COM>")).toEqual({ name: "Jane Doe", email: "jane@example.com", domain: "example.com" });
  expect(parseAddress("jane@bücher.de")?.email).toBe("jane@xn--bcher-kva.de");
  for (const bad of ["jane doe@example.com", "a@b", "a@-x.com", "x@[127.0.0.1]", "a@b.com, c@d.com", "a\r\n@b.com", "", 5, null, "ü@x.com"]) {
    expect(parseAddress(bad)).toBeNull();
  }
});

test("addresses: a plain name in angle-bracket form reads as addressparser reads it", () => {
  // What parseAddress did for every "<" form before it took plain names itself.
  const throughAddressparser = (input: string) => {
    const parsed = addressparser(input.trim());
    if (parsed.length !== 1 || "group" in parsed[0]!) return null;
    const addr = parseEmail(parsed[0]!.address ?? "");
    const name = (parsed[0]!.name ?? "").trim();
    return addr && name.length <= 200 ? { ...addr, name } : null;
  };
  const pieces = ["A", "z", "Zoë", "日本", "7", " ", "  ", ".", "'", "_", "-", "\t", '"', "(", ")", ",", ":", ";", "@", "<", ">", "\\", "[", "]", "=?", "é"];
  const addresses = ["a@b.test", "A.B@Example.COM", "x@bücher.de", "a@b", "a b@c.test", "a@@b.test", "a@b.test>", "<a@b.test", '"q"@b.test', "a(c)@b.test", ""];
  let seed = 17;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  let compared = 0;
  let plain = 0;
  for (let i = 0; i < 5000; i++) {
    const from = random(2) === 0 ? 11 : pieces.length; // half of the names from the plain pieces alone
    const name = Array.from({ length: random(6) }, () => pieces[random(from)]).join("");
    const input = `${name}<${addresses[random(random(2) === 0 ? 4 : addresses.length)]}>${random(4) === 0 ? pieces[random(pieces.length)] : ""}`;
    if (/[\r\n\0]/.test(input) || input.trim().length > 512) continue;
    expect({ input, parsed: parseAddress(input) }).toEqual({ input, parsed: throughAddressparser(input) });
    compared++;
    if (parseAddress(input)) plain++;
  }
  expect(compared).toBe(5000);
  expect(plain).toBeGreaterThan(500); // enough inputs that parse, not only refusals
  expect(parseAddress("Zoë Ünal  <Z@U.de>")).toEqual({ name: "Zoë Ünal", email: "Z@u.de", domain: "u.de" });
  expect(parseAddress(`${"n".repeat(201)} <a@b.test>`)).toBeNull();
});

test("relaxed body hash matches mailauth's streaming implementation", () => {
  const bodies = ["", "\r\n", "a  b \t\r\n\r\n\r\n", "no newline at end  ", "x\n\ny\n", "tab\there\r\n.\r\n", "ü é ".repeat(50) + "\r\n"];
  for (const b of bodies) {
    const h = dkimBody("relaxed", "sha256", false);
    h.update(Buffer.from(b));
    expect(relaxedBodyHash(Buffer.from(b))).toBe(h.digest("base64"));
  }
});

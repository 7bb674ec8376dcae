// The inbound benches' message and its sender's DNS: a text + HTML message of about `bytes` from
// alice@sender.test, DKIM-signed (RSA-2048) by sender.test, whose SPF, DKIM key and DMARC
// (p=reject) records `senderRecords` gives, so that every check does real work.
import { dkimSign } from "mailauth";
import MailComposer from "nodemailer/lib/mail-composer";
import { dkimRecordContent, type generateDkimKeyPair } from "../../src/dns/dkim-key.ts";

type DkimKey = ReturnType<typeof generateDkimKeyPair>;

export const senderRecords = (key: DkimKey): [name: string, type: "TXT", values: string[]][] => [
  ["sender.test", "TXT", ["v=spf1 ip4:127.0.0.0/8 -all"]],
  ["s1._domainkey.sender.test", "TXT", [dkimRecordContent(key.publicKeyBase64)]],
  ["_dmarc.sender.test", "TXT", ["v=DMARC1; p=reject"]],
];

/** The message as received (CRLF line ends, not dot-stuffed). */
export async function benchMessage(bytes: number, to: string, key: DkimKey): Promise<Buffer> {
  const paragraph = "The quick brown fox jumps over the lazy dog while the mail server keeps counting messages. ";
  const text = paragraph.repeat(Math.ceil((bytes * 0.45) / paragraph.length));
  const html = `<html><body>${`<p>${paragraph}<a href="https://sender.test/offer">offer</a></p>`.repeat(Math.ceil((bytes * 0.45) / (paragraph.length + 50)))}</body></html>`;
  const raw = await new MailComposer({
    from: "Alice <alice@sender.test>",
    to,
    subject: "Benchmark message",
    text: text.slice(0, Math.floor(bytes * 0.4)),
    html: html.slice(0, Math.floor(bytes * 0.4)).replace(/<[^>]*$/, ""),
  })
    .compile()
    .build();
  const signed = await dkimSign(raw, { signatureData: [{ signingDomain: "sender.test", selector: "s1", privateKey: key.privateKeyPem }] } as never);
  return Buffer.from(Buffer.concat([Buffer.from(signed.signatures), raw]).toString("latin1").replace(/\r?\n/g, "\r\n"), "latin1");
}

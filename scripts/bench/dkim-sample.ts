// The message the DKIM benches sign: a typical ~4 KB HTML + text transactional mail, composed as
// the server composes it. Shared by dkim.ts and the anchors bench's signature cost.
import { composeMessage } from "../../src/mail/compose-message.ts";

export function composeSampleMessage(): Buffer {
  const paragraph = "<p>Your order #12345 has shipped. Track it at <a href=\"https://shop.example/t/12345\">the carrier's page</a>.</p>\n";
  return composeMessage({
    messageId: "bench@sender.test",
    date: new Date(),
    from: { email: "shop@sender.test", name: "Shop" },
    to: [{ email: "ann@dest.test", name: "Ann" }],
    cc: [],
    replyTo: [],
    subject: "Your order has shipped",
    html: paragraph.repeat(20),
    text: paragraph.replace(/<[^>]+>/g, "").repeat(20),
    headers: {},
    attachments: [],
    received: { by: "mta.posthorn.test", id: "bench" },
  });
}

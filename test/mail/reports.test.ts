import { describe, expect, test } from "bun:test";
import { isComplaint, parseFeedbackReport } from "../../src/mail/arf.ts";
import { detectAutoReply } from "../../src/mail/auto-reply.ts";
import { classifyDsnRecipient, classifyTextBounce, parseDeliveryStatus, parseFieldBlocks, type DsnRecipient } from "../../src/mail/dsn.ts";

describe("delivery status parsing (RFC 3464)", () => {
  test("blocks are split on blank lines, names lower-cased, folded lines joined", () => {
    const blocks = parseFieldBlocks("Reporting-MTA: dns; mx.example\r\n\r\nFinal-Recipient: rfc822; A@Example.net\r\nDiagnostic-Code: smtp; 550 5.1.1\r\n  user unknown\r\n\r\n\r\n");
    expect(blocks).toHaveLength(2);
    expect(blocks[1]!.get("diagnostic-code")).toBe("smtp; 550 5.1.1 user unknown");
  });

  test("per-message and per-recipient fields, type prefixes removed", () => {
    const r = parseDeliveryStatus(
      "Reporting-MTA: dns; mx.example\n\nFinal-Recipient: rfc822; <Bob@Example.net>\nAction: Failed\nStatus: 5.7.1 (policy)\nRemote-MTA: dns; [192.0.2.1]\nDiagnostic-Code: smtp; 554 5.7.1 rejected\n",
    )!;
    expect(r).toEqual({
      reportingMta: "mx.example",
      recipients: [{ finalRecipient: "bob@example.net", originalRecipient: null, action: "failed", status: "5.7.1", diagnosticCode: "554 5.7.1 rejected", remoteMta: "[192.0.2.1]" }],
    });
    expect(parseDeliveryStatus("Reporting-MTA: dns; mx.example\n")).toBeNull();
  });

  const rcpt = (over: Partial<DsnRecipient>): DsnRecipient => ({ finalRecipient: "a@b.c", originalRecipient: null, action: null, status: null, diagnosticCode: null, remoteMta: null, ...over });

  test("failed with 5.x.x is hard, failed with 4.x.x expired, delayed or 4.x.x alone soft, success reports no bounce", () => {
    expect(classifyDsnRecipient(rcpt({ action: "failed", status: "5.1.1" }))?.type).toBe("hard");
    expect(classifyDsnRecipient(rcpt({ action: "failed", status: "4.4.7" }))?.type).toBe("expired");
    expect(classifyDsnRecipient(rcpt({ action: "failed", status: "4.2.2" }))?.type).toBe("expired");
    expect(classifyDsnRecipient(rcpt({ action: "failed", diagnosticCode: "452 4.2.2 Mailbox full" }))?.type).toBe("expired");
    expect(classifyDsnRecipient(rcpt({ action: "failed" }))?.type).toBe("hard");
    expect(classifyDsnRecipient(rcpt({ action: "delayed", status: "4.4.1" }))?.type).toBe("soft");
    expect(classifyDsnRecipient(rcpt({ status: "5.2.2" }))?.type).toBe("hard");
    expect(classifyDsnRecipient(rcpt({ status: "4.2.2" }))?.type).toBe("soft");
    expect(classifyDsnRecipient(rcpt({ action: "delivered", status: "2.0.0" }))).toBeNull();
    expect(classifyDsnRecipient(rcpt({ action: "relayed", status: "2.0.0" }))).toBeNull();
    expect(classifyDsnRecipient(rcpt({ action: "failed", status: "5.1.1" }), "mx.example")).toEqual({
      type: "hard",
      code: null,
      enhancedCode: "5.1.1",
      message: "failed with status 5.1.1 (reported by mx.example)",
    });
  });

  test("plain-text bounces need a daemon sender, a bounce subject and a code", () => {
    const base = { envelopeFrom: "", from: "mailer-daemon@x.example", subject: "Delivery Status Notification (Failure)", text: "" };
    expect(classifyTextBounce({ ...base, text: "550-5.1.1 The email account does not exist" })).toMatchObject({ type: "hard", code: 550, enhancedCode: "5.1.1" });
    expect(classifyTextBounce({ ...base, text: "Remote said: 452 mailbox full" })).toMatchObject({ type: "soft", code: 452, enhancedCode: null });
    expect(classifyTextBounce({ ...base, text: "no code here" })).toBeNull();
    // A person writing about a failed delivery is not a bounce.
    expect(classifyTextBounce({ envelopeFrom: "jane@x.example", from: "jane@x.example", subject: "Delivery failed?", text: "error 550 5.1.1" })).toBeNull();
  });
});

describe("feedback reports (RFC 5965)", () => {
  test("fields are read; not-spam reports are not complaints", () => {
    const r = parseFeedbackReport("Feedback-Type: abuse\r\nUser-Agent: FBL/1\r\nVersion: 1\r\nOriginal-Mail-From: <b.x@ph-bounces.brand.test>\r\nSource-IP: 192.0.2.1\r\n")!;
    expect(r).toMatchObject({ feedbackType: "abuse", userAgent: "FBL/1", originalMailFrom: "b.x@ph-bounces.brand.test", sourceIp: "192.0.2.1" });
    expect(isComplaint(r)).toBe(true);
    expect(isComplaint(parseFeedbackReport("Feedback-Type: not-spam\r\n")!)).toBe(false);
  });
});

describe("automatic replies (RFC 3834 and common responders)", () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  test("headers and subjects that mark an automatic reply", () => {
    expect(detectAutoReply(headers({ "auto-submitted": "auto-replied (vacation)" }), "Re: hi")?.reason).toBe("auto-submitted: auto-replied");
    expect(detectAutoReply(headers({ "auto-submitted": "auto-generated" }), "x")?.reason).toBe("auto-submitted: auto-generated");
    expect(detectAutoReply(headers({ "x-autoreply": "yes" }), "x")?.reason).toBe("x-autoreply");
    expect(detectAutoReply(headers({ precedence: "auto_reply" }), "x")?.reason).toBe("precedence: auto_reply");
    for (const subject of ["Out of Office: Welcome", "Automatic reply: Welcome", "AW: Abwesenheit bis Montag", "Réponse automatique : Bienvenue", "Vacation"]) {
      expect(detectAutoReply(headers({}), subject)?.reason).toBe("subject");
    }
  });
  test("ordinary mail is not an automatic reply", () => {
    expect(detectAutoReply(headers({ "auto-submitted": "no", precedence: "bulk" }), "Re: our vacation plans")).toBeNull();
    expect(detectAutoReply(headers({}), "Thanks for the welcome")).toBeNull();
  });
});

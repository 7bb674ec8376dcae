import { describe, expect, test } from "bun:test";
import { auditChanges, auditTargets, OMITTED, REDACTED } from "../../src/auth/audit.ts";

describe("audit log redaction", () => {
  test("secret fields keep their name, never their value; plain fields keep theirs; long text is omitted", () => {
    const pem = "-----BEGIN PRIVATE KEY-----\nMIIEv...\n-----END PRIVATE KEY-----";
    const changes = auditChanges({
      name: "Ops",
      password: "hunter2 password",
      new_password: "another one",
      token: "ph_team_abc",
      secret: "whsec_123",
      dkim_private_key: pem,
      totp_secret: "JBSWY3DPEHPK3PXP",
      code: "123456",
      recovery_code: "abcd-efgh",
      enabled: true,
      events: ["message.created"],
      settings: { api_key: "k-1", region: "eu" },
      note: pem,
      html: "x".repeat(5000),
    });
    expect(changes).toEqual({
      name: "Ops",
      password: REDACTED,
      new_password: REDACTED,
      token: REDACTED,
      secret: REDACTED,
      dkim_private_key: REDACTED,
      totp_secret: REDACTED,
      code: REDACTED,
      recovery_code: REDACTED,
      enabled: true,
      events: ["message.created"],
      settings: { api_key: REDACTED, region: "eu" },
      note: REDACTED,
      html: OMITTED,
    });
    expect(JSON.stringify(changes)).not.toContain("hunter2");
  });

  test("path parameters are ids, kept; a token in the path is not", () => {
    expect(auditTargets({ tokenId: "01a2", id: "x" })).toEqual({ tokenId: "01a2", id: "x" });
    expect(auditTargets({ token: "abc" })).toEqual({ token: REDACTED });
    expect(auditTargets({ id: "ph_team_secret" })).toEqual({ id: REDACTED });
  });
});

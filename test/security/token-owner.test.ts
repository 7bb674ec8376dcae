/**
 * Privilege escalation (brief H5): a named team token is not an owner because it is not a
 * session; only the team token and a token holding the owner role act as an owner (touch an
 * owner, give the owner role), as with members.
 */
import { describe, expect, test } from "bun:test";
import { createTestApp, engine } from "../helpers.ts";
import { asSession, signedInMember } from "./signed-in-member.ts";

describe(`named tokens and owners (${engine})`, () => {
  const t = createTestApp();

  test("a token with the admin role is no owner: it neither demotes nor removes an owner; an owner-role token does", async () => {
    const second = await signedInMember(t, "owner");
    const admin = await t.request("POST", "/v1/team/tokens", { body: { name: "Admin automation", role_id: "admin" } });
    expect(admin.status).toBe(201);
    const token = admin.json.token as string;

    const demote = await t.request("PUT", `/v1/team/members/${second.memberId}/assignment`, { token, body: { role_id: "admin", project_access: { scope: "all" } } });
    expect([demote.status, demote.json.error]).toEqual([409, "owner_protected"]);
    const remove = await t.request("DELETE", `/v1/team/members/${second.memberId}`, { token });
    expect([remove.status, remove.json.error]).toEqual([409, "owner_protected"]);
    expect((await t.request("GET", `/v1/team/members/${second.memberId}`)).json).toMatchObject({ role: "owner", status: "active" });
    // The same as an admin's session is refused (the rule the token slipped past).
    const adminSession = await signedInMember(t, "admin");
    expect((await asSession(t, adminSession.session, "DELETE", `/v1/team/members/${second.memberId}`)).json.error).toBe("owner_protected");
    expect((await t.request("GET", "/v1/team/roles", { token })).json.data[0]).toMatchObject({ id: "owner", assignable: false });

    // A token holding the owner role acts as an owner.
    const ownerToken = (await t.request("POST", "/v1/team/tokens", { body: { name: "Owner automation", role_id: "owner" } })).json.token as string;
    const stepDown = await t.request("PUT", `/v1/team/members/${second.memberId}/assignment`, { token: ownerToken, body: { role_id: "admin", project_access: { scope: "all" } } });
    expect(stepDown.status).toBe(200);
    expect(stepDown.json.role).toBe("admin");
  });
});

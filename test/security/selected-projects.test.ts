/**
 * Privilege escalation (brief H5): a member or token limited to selected projects gives nobody,
 * itself included, access beyond its own projects: not through an assignment, not through an
 * invitation (which gives every project); and it does not touch a member who works on more
 * projects than it does (a 404, as for a token beyond its projects).
 */
import { describe, expect, test } from "bun:test";
import { createTestApp, engine } from "../helpers.ts";
import { asSession, signedInMember } from "./signed-in-member.ts";

describe(`selected projects stay selected (${engine})`, () => {
  const t = createTestApp();

  test("an admin limited to one project widens nobody's projects: not its own, not another member's, not through an invitation; it does not touch a member of more projects", async () => {
    const mine = t.team.projectId;
    const theirs = (await t.request("POST", "/v1/projects", { body: { name: "Not theirs" } })).json.data.id as string;
    const admin = await signedInMember(t, "admin", { projects: [mine] });
    const peer = await signedInMember(t, "member", { projects: [mine] });
    const wide = await signedInMember(t, "member");

    // Its own access: still 404 on the other project before and after.
    expect((await asSession(t, admin.session, "GET", `/v1/projects/${theirs}`)).status).toBe(404);
    const selfAll = await asSession(t, admin.session, "PUT", `/v1/team/members/${admin.memberId}/assignment`, { role_id: "admin", project_access: { scope: "all" } });
    expect(selfAll.status).toBe(422);
    expect(Object.keys(selfAll.json.errors)).toEqual(["project_access.scope"]);
    const selfOther = await asSession(t, admin.session, "PUT", `/v1/team/members/${admin.memberId}/assignment`, {
      role_id: "admin",
      project_access: { scope: "selected", project_ids: [mine, theirs] },
    });
    expect(selfOther.status).toBe(422);
    expect(Object.keys(selfOther.json.errors)).toEqual(["project_access.project_ids.1"]);
    expect((await asSession(t, admin.session, "GET", `/v1/projects/${theirs}`)).status).toBe(404);
    expect((await t.request("GET", `/v1/team/members/${admin.memberId}`)).json.project_access).toMatchObject({ scope: "selected", projects: [{ id: mine }] });

    // Another member on its project: not to all, not to another; within its own: yes.
    const peerAll = await asSession(t, admin.session, "PUT", `/v1/team/members/${peer.memberId}/assignment`, { role_id: "member", project_access: { scope: "all" } });
    expect(peerAll.status).toBe(422);
    expect((await asSession(t, peer.session, "GET", `/v1/projects/${theirs}`)).status).toBe(404);
    const peerMine = await asSession(t, admin.session, "PUT", `/v1/team/members/${peer.memberId}/assignment`, { role_id: "admin", project_access: { scope: "selected", project_ids: [mine] } });
    expect(peerMine.status).toBe(200);

    // A member working on every project is none of its business: 404, nothing changed.
    const narrowWide = await asSession(t, admin.session, "PUT", `/v1/team/members/${wide.memberId}/assignment`, { role_id: "member", project_access: { scope: "selected", project_ids: [mine] } });
    expect(narrowWide.status).toBe(404);
    expect((await asSession(t, admin.session, "DELETE", `/v1/team/members/${wide.memberId}`)).status).toBe(404);
    expect((await t.request("GET", `/v1/team/members/${wide.memberId}`)).json).toMatchObject({ status: "active", project_access: { scope: "all" } });

    // An invitation gives every project: refused to a member limited to projects, nothing stored.
    const before = (await t.request("GET", "/v1/team/members")).json.data.length;
    const invite = await asSession(t, admin.session, "POST", "/v1/team/members", { email: "second-self@example.com", role: "member" });
    expect(invite.status).toBe(403);
    expect(invite.json.error).toBe("project_access");
    expect((await t.request("GET", "/v1/team/members")).json.data.length).toBe(before);

    // The same through a token limited to the project.
    const token = (await t.request("POST", "/v1/team/tokens", { body: { name: "Limited admin", role_id: "admin", project_ids: [mine] } })).json.token as string;
    const byToken = await t.request("PUT", `/v1/team/members/${peer.memberId}/assignment`, { token, body: { role_id: "member", project_access: { scope: "all" } } });
    expect(byToken.status).toBe(422);
    expect((await t.request("POST", "/v1/team/members", { token, body: { email: "third-self@example.com" } })).status).toBe(403);
    expect((await t.request("GET", `/v1/team/members/${peer.memberId}`)).json.project_access).toMatchObject({ scope: "selected", projects: [{ id: mine }] });
  });

  test("an admin limited to one project replaces a domain's projects among its own only: the other projects' attachments stay", async () => {
    const mine = t.team.projectId;
    const theirs = (await t.request("POST", "/v1/projects", { body: { name: "Sends from the domain too" } })).json.data.id as string;
    const domain = (await t.request("POST", "/v1/domains", { body: { domain: "shared-by-projects.example.com" } })).json;
    expect((await t.request("PUT", `/v1/domains/${domain.id}/projects`, { body: { project_ids: [mine, theirs] } })).status).toBe(200);
    const admin = await signedInMember(t, "admin", { projects: [mine] });

    // Naming the other project is a 404, as everything of it is.
    expect((await asSession(t, admin.session, "PUT", `/v1/domains/${domain.id}/projects`, { project_ids: [theirs] })).status).toBe(404);
    // Its own only: the other project keeps sending from the domain.
    const onlyMine = await asSession(t, admin.session, "PUT", `/v1/domains/${domain.id}/projects`, { project_ids: [mine] });
    expect(onlyMine.status).toBe(200);
    const ids = async () => ((await t.request("GET", `/v1/domains/${domain.id}`)).json.projects as { id: string }[]).map((p) => p.id).sort();
    expect(await ids()).toEqual([mine, theirs].sort());
    // Taking its own off leaves the other's; an owner still replaces them all.
    expect((await asSession(t, admin.session, "PUT", `/v1/domains/${domain.id}/projects`, { project_ids: [] })).status).toBe(200);
    expect(await ids()).toEqual([theirs]);
    expect((await t.request("PUT", `/v1/domains/${domain.id}/projects`, { body: { project_ids: [mine] } })).status).toBe(200);
    expect(await ids()).toEqual([mine]);
  });

  test("an admin limited to one project changes or deletes no custom role held by someone who works on more projects; a role held within its projects it may", async () => {
    const mine = t.team.projectId;
    const wideRole = (await t.request("POST", "/v1/team/roles", { body: { name: "Wide readers", permissions: ["projects:read"] } })).json.data.id as string;
    const narrowRole = (await t.request("POST", "/v1/team/roles", { body: { name: "Narrow readers", permissions: ["projects:read"] } })).json.data.id as string;
    const wide = await signedInMember(t, "member");
    expect((await t.request("PUT", `/v1/team/members/${wide.memberId}/assignment`, { body: { role_id: wideRole, project_access: { scope: "all" } } })).status).toBe(200);
    const narrow = await signedInMember(t, "member", { projects: [mine] });
    expect((await t.request("PUT", `/v1/team/members/${narrow.memberId}/assignment`, { body: { role_id: narrowRole, project_access: { scope: "selected", project_ids: [mine] } } })).status).toBe(200);
    const admin = await signedInMember(t, "admin", { projects: [mine] });

    // Widening the role of a member of every project would give them more there: refused, nothing changed.
    const widened = await asSession(t, admin.session, "PUT", `/v1/team/roles/${wideRole}`, { permissions: ["projects:read", "domains:delete"] });
    expect([widened.status, widened.json.error]).toEqual([403, "project_access"]);
    expect((await asSession(t, admin.session, "DELETE", `/v1/team/roles/${wideRole}`)).status).toBe(403);
    const role = (await t.request("GET", "/v1/team/roles")).json.data.find((r: { id: string }) => r.id === wideRole);
    expect(role.permissions).toEqual(["projects:read"]);
    // The same through a token of every project holding the role.
    await t.request("PUT", `/v1/team/members/${wide.memberId}/assignment`, { body: { role_id: "member", project_access: { scope: "all" } } });
    await t.request("POST", "/v1/team/tokens", { body: { name: "Wide token", role_id: wideRole } });
    expect((await asSession(t, admin.session, "PUT", `/v1/team/roles/${wideRole}`, { name: "Renamed" })).status).toBe(403);

    // A role held only within its projects: it may.
    const within = await asSession(t, admin.session, "PUT", `/v1/team/roles/${narrowRole}`, { permissions: ["projects:read", "routes:read"] });
    expect(within.status).toBe(200);
  });
  test("a member limited to one project sees only its projects' names: a domain's projects, a member's project_access (list and by id); the team token sees them all", async () => {
    const mine = t.team.projectId;
    const secret = (await t.request("POST", "/v1/projects", { body: { name: "Secret launch project" } })).json.data.id as string;
    const domain = (await t.request("POST", "/v1/domains", { body: { domain: "names-of-projects.example.com" } })).json;
    expect((await t.request("PUT", `/v1/domains/${domain.id}/projects`, { body: { project_ids: [mine, secret] } })).status).toBe(200);
    const both = await signedInMember(t, "member", { projects: [mine, secret] });
    const limited = await signedInMember(t, "member", { projects: [mine] });

    // Before: the other project's name and id were in all four answers.
    const one = await asSession(t, limited.session, "GET", `/v1/domains/${domain.id}`);
    expect(one.status).toBe(200);
    expect(one.json.projects.map((p: { id: string }) => p.id)).toEqual([mine]);
    const list = await asSession(t, limited.session, "GET", "/v1/domains");
    expect(list.status).toBe(200);
    expect(list.json.data.find((d: { id: string }) => d.id === domain.id).projects.map((p: { id: string }) => p.id)).toEqual([mine]);
    const m = await asSession(t, limited.session, "GET", `/v1/team/members/${both.memberId}`);
    expect(m.status).toBe(200);
    expect(m.json.project_access).toEqual({ scope: "selected", projects: [{ id: mine, name: expect.any(String) }] });
    const members = await asSession(t, limited.session, "GET", "/v1/team/members?page[size]=100");
    expect(members.status).toBe(200);
    for (const r of [one, list, m, members]) {
      expect(r.text).not.toContain(secret);
      expect(r.text).not.toContain("Secret launch project");
    }

    // Unlimited callers see what they saw.
    expect(((await t.request("GET", `/v1/domains/${domain.id}`)).json.projects as { id: string }[]).map((p) => p.id).sort()).toEqual([mine, secret].sort());
    expect(((await t.request("GET", `/v1/team/members/${both.memberId}`)).json.project_access.projects as { id: string }[]).map((p) => p.id).sort()).toEqual([mine, secret].sort());
    const wide = await signedInMember(t, "member");
    expect(((await asSession(t, wide.session, "GET", `/v1/team/members/${both.memberId}`)).json.project_access.projects as { id: string }[]).length).toBe(2);
  });
});

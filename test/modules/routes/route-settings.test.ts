import { describe, expect, test } from "bun:test";
import { createTestApp } from "../../helpers.ts";

const OUTBOUND_DEFAULTS = {
  track_opens: false,
  track_clicks: false,
  generate_plaintext_fallback: false,
  suppress_auto_responders: false,
  suppress_disposable_recipients: false,
  tls: "opportunistic",
  redact_email_content: false,
};

describe("route settings (RouteData.settings)", () => {
  const t = createTestApp();
  const create = (body: Record<string, unknown>) => t.request("POST", `/v1/projects/${t.team.projectId}/routes`, { body });

  test("defaults by route type: every outbound setting off and opportunistic TLS; disable_hosted_unsubscribe on broadcast routes only; attachment_delivery on inbound routes", async () => {
    const tx = await create({ name: "Tx defaults", route_type: "transactional" });
    expect(tx.json.data.settings).toEqual(OUTBOUND_DEFAULTS);
    const bc = await create({ name: "Bc defaults", route_type: "broadcast" });
    expect(bc.json.data.settings).toEqual({ ...OUTBOUND_DEFAULTS, disable_hosted_unsubscribe: false });
    const inbound = await create({ name: "In defaults", route_type: "inbound" });
    expect(inbound.json.data.settings).toEqual({});
    expect(inbound.json.data.attachment_delivery).toBe("inline");
  });

  test("set on create, shown by GET and the project's list, changed field by field on update (absent and null leave a setting as it is)", async () => {
    const res = await create({ name: "News", route_type: "broadcast", settings: { suppress_disposable_recipients: true, tls: "enforced", disable_hosted_unsubscribe: true } });
    expect(res.status).toBe(201);
    const id = res.json.data.id;
    const expected = { ...OUTBOUND_DEFAULTS, suppress_disposable_recipients: true, tls: "enforced", disable_hosted_unsubscribe: true };
    expect(res.json.data.settings).toEqual(expected);
    expect((await t.request("GET", `/v1/routes/${id}`)).json.settings).toEqual(expected);
    const list = await t.request("GET", `/v1/projects/${t.team.projectId}/routes?page[size]=100`);
    expect(list.json.data.find((r: { id: string }) => r.id === id).settings).toEqual(expected);

    const put = await t.request("PUT", `/v1/routes/${id}`, {
      body: { settings: { track_opens: true, redact_email_content: true, generate_plaintext_fallback: null, suppress_auto_responders: true, tls: null } },
    });
    expect(put.status).toBe(200);
    const after = { ...expected, track_opens: true, redact_email_content: true, suppress_auto_responders: true };
    expect(put.json.data.settings).toEqual(after);
    // The top-level tracking fields are the same settings.
    expect(put.json.data.track_opens).toBe(true);
    expect((await t.request("PUT", `/v1/routes/${id}`, { body: { settings: null } })).json.data.settings).toEqual(after);
    expect((await t.request("PUT", `/v1/routes/${id}`, { body: { settings: { tls: "opportunistic", track_opens: false } } })).json.data.settings).toEqual({
      ...after,
      tls: "opportunistic",
      track_opens: false,
    });
  });

  test("inbound routes take attachment_delivery in settings", async () => {
    const id = (await create({ name: "In settings", route_type: "inbound" })).json.data.id;
    const put = await t.request("PUT", `/v1/routes/${id}`, { body: { settings: { attachment_delivery: "url" } } });
    expect(put.status).toBe(200);
    expect(put.json.data).toMatchObject({ attachment_delivery: "url", settings: {} });
  });

  test("bad input → 422 naming each field, and nothing is stored", async () => {
    const tx = (await create({ name: "Tx bad", route_type: "transactional" })).json.data.id;
    const inbound = (await create({ name: "In bad", route_type: "inbound" })).json.data.id;
    const cases: [string, unknown, string[]][] = [
      [tx, { settings: { tls: "required" } }, ["settings.tls"]],
      [tx, { settings: { tls: true } }, ["settings.tls"]],
      [tx, { settings: { track_opens: "yes" } }, ["settings.track_opens"]],
      [tx, { settings: { redact_email_content: 1 } }, ["settings.redact_email_content"]],
      [tx, { settings: { track_opens: true, bogus: true } }, ["settings.bogus"]],
      [tx, { settings: "on" }, ["settings"]],
      [tx, { settings: [true] }, ["settings"]],
      [tx, { settings: { track_opens: true, disable_hosted_unsubscribe: true } }, ["settings.disable_hosted_unsubscribe"]],
      [tx, { settings: { track_opens: true, attachment_delivery: "url" } }, ["settings.attachment_delivery"]],
      [inbound, { settings: { suppress_auto_responders: true, tls: "enforced" } }, ["settings.suppress_auto_responders", "settings.tls"]],
    ];
    for (const [id, body, fields] of cases) {
      const before = (await t.request("GET", `/v1/routes/${id}`)).json;
      const res = await t.request("PUT", `/v1/routes/${id}`, { body });
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
      expect(typeof res.json.message).toBe("string");
      expect(Object.keys(res.json.errors).sort()).toEqual(fields);
      const now = (await t.request("GET", `/v1/routes/${id}`)).json;
      expect(now.settings).toEqual(before.settings);
      expect(now.updated_at).toBe(before.updated_at);
    }
    // false is what a transactional route has: accepted, nothing changes.
    expect((await t.request("PUT", `/v1/routes/${tx}`, { body: { settings: { disable_hosted_unsubscribe: false } } })).status).toBe(200);

    const countBefore = (await t.request("GET", `/v1/projects/${t.team.projectId}/routes?page[size]=100`)).json.data.length;
    for (const settings of [{ tls: "strict" }, { nope: 1 }, { disable_hosted_unsubscribe: true }]) {
      const res = await create({ name: "Refused", route_type: "transactional", settings });
      expect(res.status).toBe(422);
    }
    expect((await create({ name: "Refused in", route_type: "inbound", settings: { track_clicks: true } })).status).toBe(422);
    expect((await t.request("GET", `/v1/projects/${t.team.projectId}/routes?page[size]=100`)).json.data.length).toBe(countBefore);
  });
});

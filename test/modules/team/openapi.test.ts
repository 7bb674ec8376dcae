import { describe, expect, test } from "bun:test";
import { createTestApp } from "../../helpers.ts";

/** Every management endpoint of the team, projects, routes, messages and suppressions modules. */
const ENDPOINTS: { method: string; path: string; success: string; body?: true; query?: string[] }[] = [
  { method: "get", path: "/v1/team", success: "200" },
  { method: "put", path: "/v1/team", success: "200", body: true },
  { method: "get", path: "/v1/team/members", success: "200", query: ["page[size]", "page[cursor]"] },
  { method: "get", path: "/v1/team/members/{memberId}", success: "200" },
  { method: "get", path: "/v1/projects", success: "200", query: ["page[size]", "page[cursor]", "sort"] },
  { method: "post", path: "/v1/projects", success: "201", body: true },
  { method: "get", path: "/v1/projects/{projectId}", success: "200" },
  { method: "put", path: "/v1/projects/{projectId}", success: "200", body: true },
  { method: "delete", path: "/v1/projects/{projectId}", success: "200" },
  { method: "put", path: "/v1/projects/{projectId}/members", success: "200", body: true },
  { method: "post", path: "/v1/projects/{projectId}/rotate-token", success: "200" },
  { method: "get", path: "/v1/projects/{projectId}/routes", success: "200", query: ["page[size]"] },
  { method: "post", path: "/v1/projects/{projectId}/routes", success: "201", body: true },
  { method: "get", path: "/v1/routes/{routeId}", success: "200", query: ["include"] },
  { method: "put", path: "/v1/routes/{routeId}", success: "200", body: true },
  { method: "delete", path: "/v1/routes/{routeId}", success: "200" },
  {
    method: "get",
    path: "/v1/messages",
    success: "200",
    query: ["sort", "page[size]", "page[cursor]", "filter[type]", "filter[status]", "filter[route_id]", "filter[domain_id]", "filter[tag]", "filter[from_email]", "filter[subject]", "filter[from_date]", "filter[to_date]"],
  },
  { method: "get", path: "/v1/messages/{messageId}", success: "200" },
  { method: "get", path: "/v1/messages/{messageId}/events", success: "200", query: ["page[size]"] },
  { method: "get", path: "/v1/messages/{messageId}/source", success: "200" },
  { method: "post", path: "/v1/suppressions", success: "201", body: true },
  { method: "get", path: "/v1/suppressions", success: "200", query: ["filter[email]", "filter[scope]", "filter[reason]"] },
  { method: "delete", path: "/v1/suppressions/{suppressionId}", success: "200" },
];

describe("OpenAPI document", async () => {
  const t = createTestApp();
  const doc = (await t.request("GET", "/openapi/json", { token: null })).json;

  for (const e of ENDPOINTS) {
    test(`${e.method.toUpperCase()} ${e.path}`, () => {
      const op = doc.paths[e.path]?.[e.method];
      expect(op).toBeDefined();
      expect(op.summary).toBeString();
      expect(op.security).toEqual([{ teamToken: [] }]);
      const ok = op.responses[e.success];
      expect(ok).toBeDefined();
      const content = Object.values(ok.content) as { schema: Record<string, unknown> }[];
      expect(content.length).toBeGreaterThan(0);
      expect(Object.keys(content[0]!.schema).length).toBeGreaterThan(0);
      expect(op.responses["401"]).toBeDefined();
      if (e.path.includes("{")) {
        expect(op.responses["404"]).toBeDefined();
        expect(op.parameters.some((p: { in: string }) => p.in === "path")).toBe(true);
      }
      if (e.body) {
        const schema = op.requestBody?.content?.["application/json"]?.schema;
        expect(schema?.type).toBe("object");
        expect(Object.keys(schema.properties).length).toBeGreaterThan(0);
        expect(op.responses["422"]).toBeDefined();
      }
      for (const name of e.query ?? []) {
        expect(op.parameters.find((p: { in: string; name: string }) => p.in === "query" && p.name === name)).toBeDefined();
      }
    });
  }

  test("response schemas carry the spec's field names", () => {
    const get = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content["application/json"].schema;
    const project = get("/v1/projects/{projectId}", "get", "200");
    for (const f of ["routes", "routes_count", "domains", "domains_count", "team_members", "team_members_count", "last_28_days", "default_route_id"]) {
      expect(project.properties[f]).toBeDefined();
    }
    const route = get("/v1/routes/{routeId}", "get", "200");
    for (const f of ["inbound_address", "inbound_spam_threshold", "webhooks_count", "suppressed_recipients_count", "statistics", "project"]) {
      expect(route.properties[f]).toBeDefined();
    }
    expect(get("/v1/projects/{projectId}/rotate-token", "post", "200").properties.new_token).toBeDefined();
    expect(get("/v1/suppressions", "post", "201").properties.data.properties.skipped).toBeDefined();
    expect(get("/v1/messages/{messageId}", "get", "200").properties.spam_symbols).toBeDefined();
    expect(doc.paths["/v1/messages/{messageId}/source"].get.responses["200"].content["message/rfc822"]).toBeDefined();
  });
});

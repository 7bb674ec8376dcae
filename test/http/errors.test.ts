import { describe, expect, test } from "bun:test";
import { Elysia, t as tb } from "elysia";
import { createApp } from "../../src/app.ts";
import { ConflictError } from "../../src/errors.ts";
import { errorHandler } from "../../src/http/errors.ts";
import { createLogger } from "../../src/log.ts";
import { createTestApp } from "../helpers.ts";

describe("error bodies", () => {
  const t = createTestApp({ env: { POSTHORN_MAX_BODY_BYTES: "2048" } });

  test("unknown route → 404 JSON", async () => {
    const res = await t.request("GET", "/v1/does-not-exist");
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ message: "Not found." });
  });

  test("oversized body → 413 JSON before parsing", async () => {
    const res = await t.request("POST", "/v1/ping", { body: { pad: "x".repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.json.message).toContain("2048");
  });

  const logs: string[] = [];
  const app = new Elysia()
    .use(errorHandler(createLogger("error", (l) => logs.push(l)), 1024 * 1024))
    .post("/items", ({ body }) => body, { body: tb.Array(tb.Object({ subject: tb.String({ maxLength: 5 }) })) })
    .get("/boom", () => {
      throw new Error("secret internals at /srv/app.ts:12");
    })
    .get("/conflict", () => {
      throw new ConflictError("Already exists.");
    });
  const call = (path: string, init?: RequestInit) => app.handle(new Request(`http://localhost${path}`, init));

  test("validation failure → 422 with dotted, indexed field paths", async () => {
    const res = await call("/items", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([{ subject: "ok" }, { subject: "too long" }]),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { message: string; errors: Record<string, string[]> };
    expect(Object.keys(body.errors)).toContain("1.subject");
    expect(body.message).toBe(body.errors["1.subject"]![0]!);
  });

  test("malformed JSON → 400 JSON", async () => {
    const res = await call("/items", { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: "The request body is not valid JSON." });
  });

  test("a crash → 500 with no stack or internals", async () => {
    const res = await call("/boom");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ message: "Server error." });
    expect(text).not.toContain("srv");
    expect(logs.join("\n")).toContain("secret internals");
  });

  test("domain errors map to their status", async () => {
    const res = await call("/conflict");
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ message: "Already exists." });
  });

  test("openapi document is served", async () => {
    const res = await createApp(t.deps).handle(new Request("http://localhost/openapi/json"));
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain("/v1/ping");
  });
});

describe("list parameters", () => {
  const t = createTestApp();
  for (const size of ["0", "101", "abc", "1.5", "-3"]) {
    test(`page[size]=${size} → 422 keyed page[size]`, async () => {
      const res = await t.request("GET", `/v1/team/members?page[size]=${size}`);
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toEqual(["page[size]"]);
    });
  }
  test("page[size]=100 is accepted", async () => {
    expect((await t.request("GET", "/v1/team/members?page[size]=100")).json.per_page).toBe(100);
  });
});

import { describe, expect, test } from "bun:test";
import { Elysia, t as tb } from "elysia";
import { createApp } from "../../src/app.ts";
import { ConflictError } from "../../src/errors.ts";
import { MAX_JSON_DEPTH } from "../../src/http/body.ts";
import { errorHandler, errorResponse, validationErrors } from "../../src/http/error-responses.ts";
import { createLogger } from "../../src/log.ts";
import { createTestApp } from "../helpers.ts";

describe("error bodies", () => {
  const t = createTestApp({ env: { POSTHORN_MAX_BODY_BYTES: "2048" } });

  test("unknown route → 404 JSON", async () => {
    const res = await t.request("GET", "/v1/does-not-exist");
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ message: "Not found.", error: "not_found" });
  });

  test("oversized body → 413 JSON before parsing", async () => {
    const res = await t.request("POST", "/v1/ping", { body: { pad: "x".repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.json.message).toContain("2048");
  });

  const logs: string[] = [];
  const errors = errorHandler(createLogger("error", (l) => logs.push(l)), 1024 * 1024);
  const app = new Elysia()
    .use(errors)
    .post("/items", ({ body }) => body, { body: tb.Array(tb.Object({ subject: tb.String({ maxLength: 5 }) })) })
    .get("/boom", () => {
      throw new Error("secret internals at /srv/app.ts:12");
    })
    .get("/conflict", () => {
      throw new ConflictError("Already exists.");
    });
  errors.learnRoutes(app.routes);
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
    expect(await res.json()).toEqual({ message: "The request body is not valid JSON.", error: "invalid_request" });
  });

  test("a crash → 500 with no stack or internals", async () => {
    const res = await call("/boom");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ message: "Server error.", error: "server_error" });
    expect(text).not.toContain("srv");
    expect(logs.join("\n")).toContain("secret internals");
  });

  test("the error handler cannot throw: a failure while mapping is a plain JSON 500", () => {
    const hostile = {
      get all(): never {
        throw new Error("boom inside the validator");
      },
    };
    const res = errorResponse("VALIDATION", hostile, createLogger("silent"));
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("application/json");
  });

  test("issue paths named like Object's members are ordinary keys", async () => {
    const errors = validationErrors(["toString", "__proto__", "constructor", "hasOwnProperty", "valueOf"].map((k) => ({ path: `/${k}`, message: "Expected string" })));
    expect(Object.keys(errors)).toEqual(["toString", "__proto__", "constructor", "hasOwnProperty", "valueOf"]);
    expect(JSON.parse(JSON.stringify(errors)).__proto__).toEqual(["The __proto__ field is invalid: expected string."]);
  });

  test("a response that breaks its own schema is a 500 (our bug), never a 422", async () => {
    const bad = new Elysia().use(errorHandler(createLogger("silent"), 1024)).get("/bad", () => ({ n: "not a number" }) as unknown as { n: number }, {
      response: { 200: tb.Object({ n: tb.Number() }) },
    });
    const res = await bad.handle(new Request("http://localhost/bad"));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: "Server error.", error: "server_error" });
  });

  const post = (body: string | Uint8Array, contentType = "application/json") =>
    call("/items", { method: "POST", headers: { "content-type": contentType }, body });

  test("bodies are JSON only: other types → 415 JSON", async () => {
    for (const [body, type] of [["<a/>", "application/xml"], ["subject=x", "application/x-www-form-urlencoded"], ["[]", "text/plain"]] as const) {
      const res = await post(body, type);
      expect([type, res.status]).toEqual([type, 415]);
      expect(((await res.json()) as { message: string }).message).toContain("application/json");
    }
    expect((await post('[{"subject":"ok"}]', "application/json; charset=utf-8")).status).toBe(200);
    expect((await post('[{"subject":"ok"}]', "application/merge-patch+json")).status).toBe(200);
  });

  test("the top-level type must be the schema's: 422 on body", async () => {
    for (const body of ["123", '"str"', "true", "null", '{"subject":"x"}']) {
      const res = await post(body);
      expect([body, res.status]).toEqual([body, 422]);
      const json = (await res.json()) as { errors: Record<string, string[]> };
      expect(json.errors.body![0]).toMatch(/must be a JSON array, not /);
    }
  });

  test("nesting past the bound → 400 at once, whatever its depth", async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 10_000, 200_000]) {
      const started = performance.now();
      const res = await post(`[{"subject":${"[".repeat(depth)}${"]".repeat(depth)}}]`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
      expect(performance.now() - started).toBeLessThan(500);
    }
    // Brackets inside strings are text, not nesting.
    expect((await post(JSON.stringify([{ subject: "[[[[[[[[" }]))).status).toBe(422);
  });

  test("invalid UTF-8 and lone surrogates → 400", async () => {
    const res = await post(new Uint8Array([0x5b, 0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d, 0x5d]));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain("UTF-8");
    const lone = await post(String.raw`[{"subject":"\ud800"}]`);
    expect(lone.status).toBe(400);
    expect(((await lone.json()) as { message: string }).message).toContain("lone surrogate");
  });

  test("NUL in a body string or key, or in the URL → 400 on either engine (PostgreSQL's text cannot hold it)", async () => {
    for (const body of [String.raw`[{"subject":"a\u0000b"}]`, String.raw`[{"x\u0000":1}]`]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain("NUL");
    }
    // An escaped backslash before "u0000" is ordinary text.
    expect((await post(String.raw`[{"subject":"a\\u0000b"}]`)).status).toBe(422);
    const url = await call("/conflict%00");
    expect(url.status).toBe(400);
    expect(((await url.json()) as { message: string }).message).toContain("NUL");
  });

  test("domain errors map to their status", async () => {
    const res = await call("/conflict");
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ message: "Already exists.", error: "conflict" });
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

  test("every list refuses a filter it does not have (a misspelt filter must not widen a list), after authentication", async () => {
    const lists = [
      "/v1/domains",
      "/v1/projects",
      `/v1/projects/${t.team.projectId}/routes`,
      "/v1/team/members",
      "/v1/messages",
      `/v1/messages/${t.team.projectId}/events`,
      "/v1/suppressions",
      "/v1/webhooks",
      `/v1/webhooks/${t.team.projectId}/deliveries`,
    ];
    for (const path of lists) {
      for (const filter of ["filter[constructor]=x", "filter[]=x", "filter=x", "filter[statsu]=sent"]) {
        const res = await t.request("GET", `${path}?${filter}`);
        expect([path, filter, res.status]).toEqual([path, filter, 422]);
        expect(Object.keys(res.json.errors)[0]).toStartWith("filter");
      }
      expect((await t.request("GET", `${path}?filter[constructor]=x`, { token: null })).status).toBe(401);
    }
    expect((await t.request("GET", "/v1/messages?filter[status]=delivered")).status).toBe(200);
  });
});

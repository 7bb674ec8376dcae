/**
 * An HTTP fuzzer driven by the OpenAPI document: a seeded PRNG, a generator of requests for any
 * operation (valid-ish ones built from the operation's schemas, and hostile ones: wrong types,
 * prototype-named keys, deep nesting, huge strings, bad Unicode, forged cursors, garbage ids,
 * wrong content types and tokens…), and the checks every response must pass (no 5xx, error
 * bodies always JSON {message} without a stack). Findings are collected, not thrown, and printed
 * as a de-duplicated to-do list.
 *
 * Reproducibility: the sequence of operations, kinds and mutations is fixed by the seed. Ids the
 * run creates itself (projects, webhooks…) go to pools whose contents depend on which answers
 * came first under concurrency, so which created id a later request names may differ.
 */
import type { TeamTokens } from "./fuzz-server.ts";

export const PROTO_KEYS = ["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty"] as const;

/* ------------------------------------------------------------------ PRNG */

/** mulberry32: small, fast, good enough to pick fuzz cases; the same seed gives the same run. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    const total = items.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [item, w] of items) if ((r -= w) < 0) return item;
    return items[items.length - 1]![0];
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
  word(len: number, alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"): string {
    let s = "";
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
  bytes(len: number): Uint8Array {
    const out = new Uint8Array(len);
    for (let i = 0; i < len; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }
}

/* ------------------------------------------------------------------ OpenAPI */

export type Schema = Record<string, any>;

export interface Operation {
  /** "POST /v1/webhooks/{id}/test" */
  key: string;
  method: string;
  path: string;
  pathParams: string[];
  query: Map<string, Schema & { description?: string }>;
  headers: string[];
  body: Schema | null;
  /** Security schemes any one of which is accepted; null when the operation is public. */
  security: string[] | null;
  /** Sort keys from the sort parameter's description (list operations). */
  sortKeys: string[];
}

export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(item)) {
      if (!["get", "post", "put", "delete", "patch"].includes(m)) continue;
      const params: any[] = op.parameters ?? [];
      const query = new Map<string, Schema>();
      for (const p of params) if (p.in === "query") query.set(p.name, { ...(p.schema ?? {}), description: p.description ?? p.schema?.description });
      const sortDesc: string = query.get("sort")?.description ?? "";
      const sortKeys = query.has("sort")
        ? (sortDesc.split(";")[0]!.replace(/^Comma list of/i, "").match(/[a-z_]+/g) ?? []).filter((k) => k.includes("_") || /^[a-z]+$/.test(k))
        : [];
      ops.push({
        key: `${m.toUpperCase()} ${path}`,
        method: m.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]!),
        query,
        headers: params.filter((p) => p.in === "header").map((p) => p.name),
        body: op.requestBody?.content?.["application/json"]?.schema ?? null,
        // `security: []` is OpenAPI for "no authentication": a public operation.
        security: op.security?.length ? [...new Set<string>(op.security.flatMap((s: Record<string, unknown>) => Object.keys(s)))] : null,
        sortKeys: sortKeys.length ? sortKeys : query.has("sort") ? ["created_at"] : [],
      });
    }
  }
  return ops;
}

/* ------------------------------------------------------------------ fixtures */

export type Resource = "project" | "route" | "domain" | "message" | "suppression" | "webhook" | "unsubscribe" | "attachment" | "member";
export const RESOURCES: Resource[] = ["project", "route", "domain", "message", "suppression", "webhook", "unsubscribe", "attachment", "member"];

export interface Fixtures {
  team: TeamTokens;
  /** A verified domain attached to the main project: sends from it are accepted. */
  sendingDomain: string;
  /** Real ids of this team, by resource; ids the run creates are added as it goes. */
  own: Record<Resource, string[]>;
  /** Real ids of the other team: a 404 (path) or 422 (body), never a 2xx. */
  foreign: Record<Resource, string[]>;
  /** Ids destructive operations must not hit (the main project, the sending domain, the main webhook). */
  protectedIds: Set<string>;
  /** Real cursors by operation key (page[size]=1 of a list with two rows or more). */
  cursors: Map<string, string[]>;
}

export const emptyPools = (): Record<Resource, string[]> =>
  Object.fromEntries(RESOURCES.map((r) => [r, [] as string[]])) as unknown as Record<Resource, string[]>;

export function resourceOf(op: Operation, param: string): Resource {
  switch (param) {
    case "projectId":
      return "project";
    case "routeId":
      return "route";
    case "domainId":
      return "domain";
    case "messageId":
      return "message";
    case "suppressionId":
      return "suppression";
    case "token":
      return "unsubscribe";
    case "attachmentId":
      return "attachment";
    case "memberId":
      return "member";
  }
  if (op.path.startsWith("/v1/webhooks")) return "webhook";
  const seg = op.path.split("/")[2] ?? "";
  return (RESOURCES.find((r) => seg.startsWith(r)) ?? "project") as Resource;
}

/** Operations that destroy or break a fixture the run relies on get only non-protected ids. */
const isDestructive = (op: Operation) =>
  op.method === "DELETE" || op.path.endsWith("/rotate-token") || op.key === "PUT /v1/domains/{domainId}/projects";

/* ------------------------------------------------------------------ requests */

export type Severity = "fail" | "note";
export interface Expectation {
  /** The finding a 2xx answer is. */
  finding: string;
  severity: Severity;
}

export interface FuzzRequest {
  op: Operation;
  /** What was done: "valid", "mutate:proto-key", "sort-proto"… (the grouping key of findings). */
  kind: string;
  method: string;
  /** Path and query, already encoded. */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** A short human description of the hostile part. */
  note: string;
  /** When set, a 2xx answer is this finding. */
  expect: Expectation | null;
}

const SAFE_URLS = [
  "https://example.com/h",
  "https://hooks.example.test/x?y=1",
  "https://bücher.example/h",
  "https://example.com:8443/path/with%20space",
  "https://127.0.0.1/h", // refused by the SSRF guard
  "https://[::1]/h",
  "https://10.0.0.1/h",
  "https://169.254.169.254/latest/meta-data",
  "https://2130706433/h", // 127.0.0.1 as a number
  "https://0x7f.1/h",
  "http://example.com/h", // not https
  "https://user:pass@example.com/h",
  "https://localhost/h",
  "https://example.com/" + "p".repeat(480),
];

const GARBAGE_IDS: { value: string; encoded?: boolean; noExpect?: boolean }[] = [
  { value: "", noExpect: true },
  { value: " " },
  { value: "..", encoded: true, noExpect: true },
  { value: "../", encoded: true, noExpect: true }, // normalised away by the client: another route entirely
  { value: "../../v1/team", encoded: true, noExpect: true },
  { value: "..%2f", encoded: true },
  { value: "..%2F..%2Fv1%2Fteam", encoded: true },
  { value: "%2e%2e", encoded: true, noExpect: true },
  { value: "%00", encoded: true },
  { value: "x%00y", encoded: true },
  { value: "%", encoded: true },
  { value: "%zz", encoded: true },
  { value: "%ED%A0%80", encoded: true },
  { value: "%FF%FE", encoded: true },
  { value: "%C0%AF", encoded: true },
  { value: "ü" },
  { value: "😀".repeat(3) },
  { value: "\u202e\u200b" },
  { value: "null" },
  { value: "undefined" },
  { value: "NaN" },
  { value: "0" },
  { value: "-1" },
  { value: "1e400" },
  { value: "true" },
  { value: "[]" },
  { value: "{}" },
  { value: "__proto__" },
  { value: "constructor" },
  { value: "toString" },
  { value: "hasOwnProperty" },
  { value: "x".repeat(10_240) },
  { value: "a".repeat(101) },
  { value: "00000000-0000-0000-0000-000000000000" },
  { value: "ffffffff-ffff-7fff-bfff-ffffffffffff" },
  { value: "' OR 1=1 --" },
  { value: "*" },
  { value: "a;b=c" },
  { value: "%2A", encoded: true },
  { value: "id.json" },
  { value: "\\..\\..\\" },
];

const SORT_PROTO = [
  "constructor",
  "-constructor",
  "__proto__",
  "-__proto__",
  "toString",
  "-toString",
  "valueOf",
  "hasOwnProperty",
  "created_at,constructor",
  "constructor,created_at",
  "-toString,-valueOf",
  "__defineGetter__",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__lookupGetter__",
];

/** sort values: [value, is it surely an unknown key (a 2xx is then a finding)] */
const SORT_GARBAGE: [string, boolean][] = [
  ["", false],
  [",", false],
  [",,,", false],
  ["-", false],
  ["--created_at", true],
  ["+created_at", false],
  [" created_at", false],
  ["created_at ", false],
  ["created_at,".repeat(300), false],
  ["CREATED_AT", true],
  ["created_at;DROP TABLE messages", true],
  ["id", true],
  ["token_hash", true],
  ["dkim_private_key", true],
  ["1", true],
  ["\u0000", true],
  ["ü", true],
  ["created_at\u200b", true],
  ["(SELECT 1)", true],
  ["created_at DESC", true],
];

const BAD_UTF8: number[][] = [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf], [0xe2, 0x82], [0x80], [0xfe, 0xff]];

const LONE_SURROGATES = ["\ud800", "\udfff", "a\udc00b", "\ud83d", "x\ud800\ud800y", "😀".slice(0, 1)];

const WRONG_VALUES: unknown[] = [0, -1, 1.5, 1e308, -1e308, true, false, null, {}, [], [null], "", " ", "0", "true", "null", { a: 1 }, [[[]]], "x".repeat(300), [1, 2, 3], { "": "" }];
const RAW_NUMBERS = ["1e999", "-1e999", "-0", "1E400", "1e-999", "123456789012345678901234567890", "0.0000000000000000000000000001", "9007199254740993"];

export const nestedArrays = (n: number) => "[".repeat(n) + "]".repeat(n);
export const nestedObjects = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
const nestedMixed = (n: number) => '[{"a":'.repeat(n) + "1" + "}]".repeat(n);

const CONTENT_TYPES: { ct: string | null; body: "json" | "xml" | "form" | "multipart" | "html"; invalid: boolean }[] = [
  { ct: "text/plain", body: "json", invalid: true },
  { ct: "text/plain;charset=utf-8", body: "json", invalid: true },
  { ct: "application/xml", body: "xml", invalid: true },
  { ct: "text/xml", body: "xml", invalid: true },
  { ct: "application/xml", body: "json", invalid: true },
  { ct: "multipart/form-data; boundary=FuzzBoundary", body: "multipart", invalid: true },
  { ct: "application/x-www-form-urlencoded", body: "form", invalid: true },
  { ct: "application/x-www-form-urlencoded", body: "json", invalid: true },
  { ct: null, body: "json", invalid: true },
  { ct: "", body: "json", invalid: true },
  { ct: "application/octet-stream", body: "json", invalid: true },
  { ct: "text/html", body: "html", invalid: true },
  { ct: "application/jsonx", body: "json", invalid: true },
  // Ambiguous or JSON after all: must not crash, either answer is fine.
  { ct: "text/json", body: "json", invalid: false },
  { ct: "application/x-json", body: "json", invalid: false },
  { ct: "application/json; charset=utf-8", body: "json", invalid: false },
  { ct: "APPLICATION/JSON", body: "json", invalid: false },
  { ct: "application/vnd.api+json", body: "json", invalid: false },
  { ct: "application/json; charset=latin1", body: "json", invalid: false },
  { ct: "application/json, text/plain", body: "json", invalid: false },
];

const NOT_JSON = [
  "{nope",
  '{"a":}',
  "{'a':1}",
  '{"a":1,}',
  "[1,]",
  '{"a":1}garbage',
  '{"a":1}{"b":2}',
  "NaN",
  "undefined",
  "Infinity",
  "-",
  '{"a":01}',
  '{"a":"\\x"}',
  '{"a":"\\u12"}',
  '"unterminated',
  '{"a":"raw\ttab"}',
  "/* c */ {}",
  '{"a":1}\n// c',
  "<xml/>",
  "   ",
  "\n",
  "{",
  "}",
  "[",
  '{"__proto__":',
  "null null",
];

const QUERY_PROTO: [string, string][] = [
  ["__proto__", "1"],
  ["__proto__[polluted]", "1"],
  ["constructor[prototype][polluted]", "1"],
  ["constructor", "x"],
  ["toString", "x"],
  ["valueOf", "1"],
  ["hasOwnProperty", "x"],
  ["__proto__.polluted", "1"],
  ["page[__proto__]", "1"],
  ["page[constructor]", "1"],
  ["sort[__proto__]", "x"],
  ["include", "__proto__"],
  ["include", "constructor"],
  ["filter[__proto__][polluted]", "1"],
  ["__proto__", "constructor"],
];

const FILTER_PROTO: [string, string, boolean][] = [
  ["filter[constructor]", "1", true],
  ["filter[__proto__]", "x", true],
  ["filter[toString]", "", true],
  ["filter[valueOf]", "1", true],
  ["filter[hasOwnProperty]", "1", true],
  ["filter[__proto__][polluted]", "1", true],
  ["filter", "1", true],
  ["filter[]", "1", true],
  ["filter[nope]", "1", true],
];

const QUERY_VALUES_GARBAGE = [
  "x".repeat(10_240),
  "\u0000",
  "\ud800",
  "ü😀\u202e",
  "' OR 1=1 --",
  "%",
  "2024-02-30",
  "2024-13-01",
  "+275760-09-13T00:00:00Z",
  "-271821-04-20",
  "9999-12-31T23:59:59.999Z",
  "2024-01-01T25:00:00Z",
  "2024-01-01T00:00:00+99:99",
  "1e400",
  "0",
  "-1",
  "2024-W01",
  "constructor",
  "__proto__",
  "statistics,".repeat(100),
  ",",
  "",
  "true",
  "NaN",
];

/** A JSON body with holes: raw fragments (deep nesting, odd numbers) and raw bytes (invalid UTF-8). */
class BodyBuilder {
  private raws = new Map<string, string>();
  private bytes = new Map<string, Uint8Array>();
  private n = 0;
  /** A placeholder value replaced, quotes included, by `fragment`. */
  raw(fragment: string): string {
    const k = `@@RAW${this.n++}@@`;
    this.raws.set(k, fragment);
    return k;
  }
  /** A placeholder inside a string value replaced by raw bytes. */
  byteFrag(b: Uint8Array): string {
    const k = `@@BYTES${this.n++}@@`;
    this.bytes.set(k, b);
    return k;
  }
  encode(value: unknown): string | Uint8Array {
    let text = JSON.stringify(value) ?? "null";
    for (const [k, frag] of this.raws) text = text.split(`"${k}"`).join(frag);
    if (this.bytes.size === 0) return text;
    const enc = new TextEncoder();
    const parts: Uint8Array[] = text.split(/(@@BYTES\d+@@)/).map((p) => this.bytes.get(p) ?? enc.encode(p));
    const out = new Uint8Array(parts.reduce((s, p) => s + p.byteLength, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.byteLength;
    }
    return out;
  }
}

/** Sets an own enumerable property, even for "__proto__" (which `o[k] = v` would not). */
export function defineOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

type Path = (string | number)[];

function walk(value: unknown, path: Path, out: { path: Path; value: unknown }[], depth = 0): void {
  out.push({ path, value });
  if (depth > 4) return;
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i], out, depth + 1));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, [...path, k], out, depth + 1);
}

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  let node = root as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) node = node[p] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (typeof last === "string") defineOwn(node as Record<string, unknown>, last, value);
  else node[last] = value;
  return root;
}

function deleteAt(root: unknown, path: Path): void {
  if (path.length === 0) return;
  let node = root as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) node = node[p] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (Array.isArray(node)) node.splice(last as number, 1);
  else delete node[last];
}

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/**
 * encodeURIComponent that also takes lone surrogates (which it refuses), writing them as the
 * 3-byte sequences a UTF-16-minded client would send (%ED%A0%80: not valid UTF-8).
 */
export function encodeComponent(s: string): string {
  return s.replace(/[\ud800-\udfff]|[^\ud800-\udfff]+/gu, (part) => {
    const cp = part.length === 1 ? part.charCodeAt(0) : -1;
    if (cp >= 0xd800 && cp <= 0xdfff) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join("");
    return encodeURIComponent(part);
  });
}

const enc = (s: string) => encodeComponent(s).replace(/%5B/gi, "[").replace(/%5D/gi, "]");

interface Baseline {
  params: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body: unknown;
}

export class RequestGenerator {
  private counter = 0;
  constructor(
    private readonly rng: Rng,
    private readonly fx: Fixtures,
  ) {}

  /** One request for `op`, of a kind picked at random among those that apply to it. */
  next(op: Operation, only?: string): FuzzRequest {
    const kind = only ?? this.rng.weighted(this.kindsFor(op));
    const req = this.build(op, kind);
    if (this.rng.chance(0.08)) req.headers.accept = this.rng.pick(["text/html", "application/xml", "*/*", "text/html,application/xhtml+xml"]);
    return req;
  }

  kindsFor(op: Operation): [string, number][] {
    const kinds: [string, number][] = [["valid", 12]];
    if (op.security) kinds.push(["auth", 5]);
    if (op.pathParams.length) {
      kinds.push(["path-garbage", 6]);
      if (op.pathParams.some((p) => this.fx.foreign[resourceOf(op, p)].length)) kinds.push(["cross-team", 3]);
    }
    kinds.push(["query-proto", 2]);
    if (op.query.has("sort")) kinds.push(["sort-proto", 5], ["sort-garbage", 3]);
    if (op.query.has("page[size]")) kinds.push(["filter-proto", 3], ["page-garbage", 2]);
    if (op.query.has("page[cursor]")) kinds.push(["cursor", 5]);
    if ([...op.query.keys()].some((k) => k.startsWith("filter[") || k === "include" || k === "expires")) kinds.push(["query-garbage", 3]);
    if (op.body) {
      kinds.push(["mutate", 18], ["top-level", 4], ["content-type", 5], ["not-json", 4], ["empty-body", 2], ["invalid-utf8", 3], ["deep-top", 2], ["raw-nul", 1]);
      if (this.idFieldsOf(op).length) kinds.push(["cross-team-body", 2]);
    } else if (op.method !== "GET") kinds.push(["junk-body", 3]);
    if (op.headers.includes("Idempotency-Key")) kinds.push(["idempotency-garbage", 2]);
    kinds.push(["wrong-method", 1]);
    return kinds;
  }

  private idFieldsOf(op: Operation): string[] {
    const props = op.body?.type === "array" ? op.body.items?.properties : op.body?.properties;
    return Object.keys(props ?? {}).filter((k) => ["route_id", "project_id", "project_ids", "team_member_ids", "route"].includes(k));
  }

  /* ---------- valid values */

  private ownId(r: Resource, op?: Operation): string {
    let pool = this.fx.own[r];
    if (op && isDestructive(op)) pool = pool.filter((id) => !this.fx.protectedIds.has(id));
    return pool.length ? this.rng.pick(pool) : Bun.randomUUIDv7();
  }

  private mainRoute(): string {
    return this.fx.own.route[0] ?? Bun.randomUUIDv7();
  }

  private hint(name: string, schema: Schema): unknown {
    const r = this.rng;
    switch (name) {
      case "from":
        return r.pick([`sender@${this.fx.sendingDomain}`, `Fuzz Sender <sender@${this.fx.sendingDomain}>`, `"Fuzz, Sender" <s${r.int(0, 9)}@${this.fx.sendingDomain}>`]);
      case "to":
      case "cc":
      case "bcc":
      case "reply_to":
        if (name !== "to" && r.chance(0.5)) return r.chance(0.5) ? null : [];
        return Array.from({ length: r.int(1, 3) }, (_, i) => (r.chance(0.2) ? `Rcpt ${i} <rcpt${r.int(0, 20)}@example.net>` : `rcpt${r.int(0, 20)}@example.net`));
      case "route":
        return r.pick(["transactional", "broadcast", this.mainRoute(), null]);
      case "route_id":
        return this.ownId("route");
      case "project_id":
        return this.fx.team.projectId;
      case "project_ids":
        return r.chance(0.8) ? [this.fx.team.projectId] : [];
      case "team_member_ids":
        return this.fx.own.member.slice(0, r.int(0, this.fx.own.member.length));
      case "url":
        return r.pick(SAFE_URLS);
      case "domain":
        return r.pick(["fz-a.example", "fz-b.example", "FZ-C.Example.", "bücher-fz.example", "fz-d.example", "sub.fz-e.example"]);
      case "email":
        return `s${r.int(0, 40)}@example.net`;
      case "emails":
        return Array.from({ length: r.int(1, 3) }, () => `s${r.int(0, 40)}@example.net`);
      case "slug":
        return `fz-${r.word(6)}`;
      case "html":
        return r.chance(0.2) ? null : `<p>Hello fuzz ${r.int(0, 999)} <a href="https://example.com/x">x</a></p>`;
      case "text":
        return r.chance(0.3) ? null : `Hello fuzz ${r.int(0, 999)}`;
      case "subject":
        return `Fuzz ${r.int(0, 99999)}`;
      case "tag":
        return r.chance(0.5) ? null : "fuzz tag";
      case "attachments":
        return r.chance(0.6) ? null : [{ filename: "a.txt", content: btoa("hello fuzz"), content_type: "text/plain" }];
      case "headers":
        return r.chance(0.5) ? null : { "X-Fuzz": String(r.int(0, 9)) };
      case "metadata":
        return r.chance(0.5) ? null : { k: "v", n: String(r.int(0, 9)) };
      case "inbound_domain":
        return r.chance(0.3) ? null : `in${r.int(0, 20)}.fz.example`;
      case "name":
        return `Fuzz ${r.word(5)}`;
      case "events": {
        const all: string[] = schema.items?.enum ?? ["message.delivered"];
        return [...new Set(Array.from({ length: r.int(1, 3) }, () => r.pick(all)))];
      }
    }
    return undefined;
  }

  gen(schema: Schema | undefined, name = "", depth = 0): unknown {
    const r = this.rng;
    if (!schema || depth > 6) return "x";
    const hinted = this.hint(name, schema);
    if (hinted !== undefined) return hinted;
    if (schema.const !== undefined) return schema.const;
    if (Array.isArray(schema.enum)) return r.pick(schema.enum);
    const alts: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
    if (alts) {
      const nonNull = alts.filter((a) => a.type !== "null");
      return this.gen(nonNull.length && !r.chance(0.1) ? r.pick(nonNull) : r.pick(alts), name, depth + 1);
    }
    let type = schema.type;
    if (Array.isArray(type)) {
      const nonNull = type.filter((t: string) => t !== "null");
      type = nonNull.length && !r.chance(0.1) ? r.pick(nonNull) : "null";
    }
    switch (type) {
      case "null":
        return null;
      case "boolean":
        return r.chance(0.5);
      case "integer":
      case "number": {
        const min = schema.minimum ?? 0;
        const max = schema.maximum ?? min + 100;
        return type === "integer" ? r.int(min, max) : Math.round((min + r.next() * (max - min)) * 100) / 100;
      }
      case "array": {
        const min = schema.minItems ?? 0;
        const max = Math.min(schema.maxItems ?? 3, Math.max(min, 1) + 2);
        return Array.from({ length: r.int(Math.max(min, 1), max) }, () => this.gen(schema.items, name, depth + 1));
      }
      case "object": {
        const out: Record<string, unknown> = {};
        const required: string[] = schema.required ?? [];
        for (const [k, s] of Object.entries<Schema>(schema.properties ?? {})) if (required.includes(k) || r.chance(0.6)) out[k] = this.gen(s, k, depth + 1);
        if (schema.patternProperties && r.chance(0.5)) out[`X-Fuzz-${r.int(0, 9)}`] = "v";
        return out;
      }
      case "string":
      default: {
        if (schema.pattern?.includes("[0-9a-fA-F]{8}")) return this.ownId(name.includes("route") ? "route" : name.includes("domain") ? "domain" : "project");
        if (schema.format === "email") return `s${r.int(0, 40)}@example.net`;
        const min = schema.minLength ?? 1;
        const max = Math.min(schema.maxLength ?? 24, min + 20);
        return r.word(r.int(min, Math.max(min, max)));
      }
    }
  }

  /** Makes a generated body make sense as a whole where fields depend on each other. */
  private fixup(op: Operation, body: any): any {
    if (op.key === "POST /v1/suppressions" && body && typeof body === "object") {
      if (!body.email && !body.emails) body.email = `s${this.rng.int(0, 40)}@example.net`;
      delete body.project_id;
      delete body.route_id;
      if (body.scope === "project") body.project_id = this.fx.team.projectId;
      if (body.scope === "route") body.route_id = this.ownId("route");
    }
    return body;
  }

  private validQuery(op: Operation): [string, string][] {
    const r = this.rng;
    const out: [string, string][] = [];
    for (const [name, schema] of op.query) {
      if (!r.chance(0.35)) continue;
      if (name === "page[size]") out.push([name, String(r.int(1, 100))]);
      else if (name === "page[cursor]") {
        const c = this.fx.cursors.get(op.key);
        if (c?.length) out.push([name, r.pick(c)]);
      } else if (name === "sort") {
        const keys = r.shuffle([...op.sortKeys]).slice(0, r.int(1, Math.min(2, op.sortKeys.length)));
        out.push([name, keys.map((k) => (r.chance(0.5) ? `-${k}` : k)).join(",")]);
      } else if (name === "include") out.push([name, r.shuffle(["project", "projectCount", "projectExists", "statistics"]).slice(0, r.int(1, 4)).join(",")]);
      else if (name === "filter[from_date]" || name === "filter[to_date]") out.push([name, r.pick(["2024-01-01", "2030-01-01T00:00:00Z", "2024-05-01T10:00:00+02:00"])]);
      else if (name === "filter[route_id]") out.push([name, this.ownId("route")]);
      else if (name === "filter[domain_id]") out.push([name, this.ownId("domain")]);
      else if (name === "filter[project_id]") out.push([name, this.fx.team.projectId]);
      else if (name === "filter[email]" || name === "filter[from_email]") out.push([name, r.pick(["s1@example.net", "sender", "example"])]);
      else if (name === "filter[event]") out.push([name, "message.delivered"]);
      else {
        const v = this.gen(schema, name.replace(/^filter\[|\]$/g, ""));
        if (typeof v === "string") out.push([name, v]);
      }
    }
    return out;
  }

  private authHeaders(op: Operation): Record<string, string> {
    if (!op.security) return {};
    const useTeam = op.security.includes("teamToken") && (!op.security.includes("projectToken") || this.rng.chance(0.5));
    return useTeam ? { authorization: `Bearer ${this.fx.team.teamToken}` } : { "x-service-token": this.fx.team.projectToken };
  }

  baseline(op: Operation): Baseline {
    const params: Record<string, string> = {};
    for (const p of op.pathParams) params[p] = this.ownId(resourceOf(op, p), op);
    const headers: Record<string, string> = this.authHeaders(op);
    if (op.headers.includes("Idempotency-Key") && this.rng.chance(0.3)) headers["idempotency-key"] = `fz-${this.rng.int(0, 40)}`;
    let body: unknown;
    if (op.body) {
      body = this.fixup(op, op.body.type === "array" ? Array.from({ length: this.rng.int(1, 3) }, () => this.gen(op.body!.items)) : this.gen(op.body));
      headers["content-type"] = "application/json";
    }
    return { params, query: this.validQuery(op), headers, body };
  }

  private assemble(op: Operation, kind: string, b: Baseline, extra: Partial<FuzzRequest> & { rawParams?: Record<string, string>; rawQuery?: string } = {}): FuzzRequest {
    let path = op.path;
    for (const [name, value] of Object.entries(b.params)) {
      const raw = extra.rawParams?.[name];
      path = path.replace(`{${name}}`, raw ?? encodeComponent(value));
    }
    const qs = b.query.map(([k, v]) => `${enc(k)}=${enc(v)}`);
    if (extra.rawQuery) qs.push(extra.rawQuery);
    const url = qs.length ? `${path}?${qs.join("&")}` : path;
    let body: string | Uint8Array | undefined = extra.body;
    if (body === undefined && b.body !== undefined && !("body" in extra)) body = JSON.stringify(b.body);
    return {
      op,
      kind,
      method: extra.method ?? op.method,
      url,
      headers: b.headers,
      body,
      note: extra.note ?? "",
      expect: extra.expect ?? null,
    };
  }

  private build(op: Operation, kind: string): FuzzRequest {
    const r = this.rng;
    const b = this.baseline(op);
    const fail = (finding: string): Expectation => ({ finding, severity: "fail" });
    switch (kind) {
      case "valid":
        return this.assemble(op, kind, b, { note: "valid" });

      case "auth": {
        const variants: [string, Record<string, string>][] = [
          ["no token", {}],
          ["unknown team token", { authorization: `Bearer ph_team_${r.word(43)}` }],
          ["unknown project token", { "x-service-token": `ph_${r.word(43)}` }],
          ["Bearer without token", { authorization: "Bearer" }],
          ["Basic auth", { authorization: "Basic dXNlcjpwYXNz" }],
          ["10 KB bearer", { authorization: `Bearer ph_team_${"A".repeat(10_240)}` }],
          ["team token without Bearer", { authorization: this.fx.team.teamToken }],
          ["team token + 1 char", { authorization: `Bearer ${this.fx.team.teamToken}x` }],
          ["team token truncated", { authorization: `Bearer ${this.fx.team.teamToken.slice(0, -1)}` }],
          ["latin-1 bearer", { authorization: "Bearer ph_team_\u00ff\u00fe\u00e9" }],
          ["project token as Bearer", { authorization: `Bearer ${this.fx.team.projectToken}` }],
          ["empty x-service-token", { "x-service-token": "" }],
          ["x-service-token prefix only", { "x-service-token": "ph_" }],
          ["bearer prefix only", { authorization: "Bearer ph_team_" }],
        ];
        if (op.security!.includes("teamToken") && !op.security!.includes("projectToken")) variants.push(["project token on a team route", { "x-service-token": this.fx.team.projectToken }]);
        if (op.security!.includes("projectToken") && !op.security!.includes("teamToken")) {
          variants.push(["team token on a send route", { authorization: `Bearer ${this.fx.team.teamToken}` }]);
          variants.push(["team token in x-service-token", { "x-service-token": this.fx.team.teamToken }]);
        }
        const [label, h] = r.pick(variants);
        const headers: Record<string, string> = { ...h };
        if (b.headers["content-type"]) headers["content-type"] = b.headers["content-type"];
        return this.assemble(op, kind, { ...b, headers }, { note: label, expect: fail("auth-bypass") });
      }

      case "path-garbage": {
        const param = r.pick(op.pathParams);
        const g = r.chance(0.15) ? { value: this.ownId(r.pick(RESOURCES.filter((x) => x !== resourceOf(op, param)))) } : r.pick(GARBAGE_IDS);
        const raw = g.encoded ? g.value : encodeComponent(g.value);
        const other = "noExpect" in g && g.noExpect;
        return this.assemble(op, kind, b, {
          rawParams: { [param]: raw },
          note: `${param} = ${g.value.length > 40 ? `${g.value.slice(0, 8)}…(${g.value.length})` : g.value}`,
          expect: other ? null : fail("accepted-garbage-id"),
        });
      }

      case "cross-team": {
        const params = { ...b.params };
        for (const p of op.pathParams) {
          const pool = this.fx.foreign[resourceOf(op, p)];
          if (pool.length) params[p] = r.pick(pool);
        }
        return this.assemble(op, kind, { ...b, params }, { note: "ids of another team", expect: fail("cross-team") });
      }

      case "query-proto": {
        const pairs = Array.from({ length: r.int(1, 3) }, () => r.pick(QUERY_PROTO));
        return this.assemble(op, kind, { ...b, query: [...b.query, ...pairs] }, { note: pairs.map(([k, v]) => `${k}=${v}`).join("&") });
      }

      case "sort-proto": {
        const v = r.pick(SORT_PROTO);
        const query = b.query.filter(([k]) => k !== "sort" && k !== "page[cursor]");
        return this.assemble(op, kind, { ...b, query: [...query, ["sort", v]] }, { note: `sort=${v}`, expect: fail("accepted-unknown-sort") });
      }

      case "sort-garbage": {
        const query = b.query.filter(([k]) => k !== "sort" && k !== "page[cursor]");
        const shape = r.int(0, 5);
        if (shape === 0) return this.assemble(op, kind, { ...b, query }, { rawQuery: `sort=${op.sortKeys[0]}&sort=-${op.sortKeys[0]}`, note: "sort given twice" });
        if (shape === 1) return this.assemble(op, kind, { ...b, query }, { rawQuery: r.pick(["sort[]=created_at", "sort[0]=created_at", "sort[constructor]=1", "sort[__proto__]=x"]), note: "sort as an array/object" });
        const [v, unknown] = r.pick(SORT_GARBAGE);
        return this.assemble(op, kind, { ...b, query: [...query, ["sort", v]] }, { note: `sort=${v.length > 40 ? `${v.slice(0, 20)}…(${v.length})` : v}`, expect: unknown ? fail("accepted-unknown-sort") : null });
      }

      case "filter-proto": {
        const [k, v, unknown] = r.pick(FILTER_PROTO);
        return this.assemble(op, kind, { ...b, query: [...b.query, [k, v]] }, { note: `${k}=${v}`, expect: unknown ? { finding: "accepted-unknown-filter", severity: "note" } : null });
      }

      case "page-garbage": {
        const v = r.pick(["0", "-1", "101", "1e2", "0x10", " 5", "5 ", "1.0", "", "abc", "99999999999999999999", "NaN", "Infinity", "٣", "１", "\u0000", "5\u0000"]);
        const shape = r.int(0, 4);
        const query = b.query.filter(([k]) => k !== "page[size]");
        if (shape === 0) return this.assemble(op, kind, { ...b, query }, { rawQuery: r.pick(["page[size]=1&page[size]=2", "page[size][]=1", "page=1", "page[number]=2", "page[size][constructor]=1", "page[]=1"]), note: "page shape" });
        return this.assemble(op, kind, { ...b, query: [...query, ["page[size]", v]] }, { note: `page[size]=${JSON.stringify(v)}` });
      }

      case "cursor": {
        const real = this.fx.cursors.get(op.key) ?? [...this.fx.cursors.values()].flat();
        const b64 = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString(r.chance(0.5) ? "base64url" : "base64");
        const variants: [string, () => string][] = [
          ["random base64", () => Buffer.from(r.bytes(r.int(1, 200))).toString("base64url")],
          ["json wrong types", () => b64(r.pick<unknown>([["n"], ["n", {}], ["n", [], []], ["x", 1, 2], ["n", 1e308, "a"], ["n", null, null], ["p", "a".repeat(1400)], { __proto__: 1 }, "constructor", ["n", "constructor", "__proto__"], ["n", "not-a-date", "not-an-id"], ["n", -1, -1], ["n", 1.5, "x"], ["p", true, false], [], {}, 42, null]))],
          ["json proto keys", () => b64('{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}')],
          ["truncated real", () => (real.length ? r.pick(real).slice(0, -r.int(1, 6)) : "eyJ")],
          ["real + garbage", () => (real.length ? r.pick(real) + r.pick(["x", "==", "%00", "ü"]) : "x")],
          ["flipped real", () => (real.length ? r.pick(real).replace(/[A-Za-z]/, (c) => (c === "A" ? "B" : "A")) : "A")],
          ["not base64", () => r.pick(["!!!", "%", "====", "\u0000", "ü😀", " ", "x".repeat(3000), "\ud800"])],
          ["deep json", () => b64(nestedArrays(r.pick([100, 1000])))],
        ];
        const [label, make] = r.pick(variants);
        const query = b.query.filter(([k]) => k !== "page[cursor]");
        return this.assemble(op, kind, { ...b, query: [...query, ["page[cursor]", make()]] }, { note: `page[cursor]: ${label}` });
      }

      case "query-garbage": {
        const names = [...op.query.keys()].filter((k) => k.startsWith("filter[") || k === "include" || k === "expires" || k === "signature");
        const name = r.pick(names);
        const v = r.pick(QUERY_VALUES_GARBAGE);
        const query = b.query.filter(([k]) => k !== name);
        if (r.chance(0.2)) return this.assemble(op, kind, { ...b, query }, { rawQuery: `${enc(name)}=a&${enc(name)}=b`, note: `${name} given twice` });
        return this.assemble(op, kind, { ...b, query: [...query, [name, v]] }, { note: `${name}=${v.length > 40 ? `${v.slice(0, 10)}…(${v.length})` : JSON.stringify(v)}` });
      }

      case "idempotency-garbage": {
        const v = r.pick(["", " ", "x".repeat(256), "x".repeat(10_000), "\u00ff\u00fe", "key with spaces", "\t", "fz-1", "__proto__", "constructor"]);
        return this.assemble(op, kind, { ...b, headers: { ...b.headers, "idempotency-key": v } }, { note: `Idempotency-Key ${v.length > 20 ? `x×${v.length}` : JSON.stringify(v)}` });
      }

      case "wrong-method": {
        // Methods no operation uses: DELETE or PUT here would hit real operations with protected ids.
        const method = r.pick(["PATCH", "PROPFIND", "OPTIONS"]);
        return this.assemble(op, kind, b, { method, note: method, body: method === "PATCH" ? JSON.stringify(b.body ?? {}) : undefined });
      }

      case "junk-body": {
        const junk = r.pick([
          () => ({ ct: "application/json", body: r.pick(NOT_JSON), note: "not JSON" }),
          () => ({ ct: "application/json", body: nestedArrays(r.pick([10_000, 200_000])), note: "deep" }),
          () => ({ ct: "application/json", body: r.pick(["123", "[]", '"str"', "null", "true", '{"toString":1}', '{"__proto__":{"x":1}}']), note: "JSON" }),
          () => ({ ct: "text/plain", body: "hello", note: "text/plain" }),
          () => ({ ct: "application/xml", body: "<a/>", note: "xml" }),
          () => ({ ct: "application/json", body: "x".repeat(r.pick([1000, 100_000, 1_000_000])), note: "huge garbage" }),
          () => ({ ct: "application/json", body: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), note: "invalid UTF-8" }),
        ])();
        return this.assemble(op, kind, { ...b, headers: { ...b.headers, "content-type": junk.ct } }, { body: junk.body, note: `junk body: ${junk.note}` });
      }

      case "top-level": {
        const want = op.body!.type;
        const values = want === "array" ? ["123", "{}", '"str"', "null", "true", "false", "0", '{"0":{}}', "-1.5e300", '"[]"', JSON.stringify(b.body ?? {}).replace(/^\[/, "{").replace(/\]$/, "}")] : ["123", "[]", '"str"', "null", "true", "false", "0", "-1.5e300", '"{}"', `[${JSON.stringify(b.body)}]`, "[[]]", " 123 "];
        const v = r.pick(values);
        return this.assemble(op, kind, b, { body: v, note: `body = ${v.length > 40 ? v.slice(0, 40) + "…" : v}`, expect: fail("accepted-invalid") });
      }

      case "content-type": {
        const c = r.pick(CONTENT_TYPES);
        const headers = { ...b.headers };
        if (c.ct === null) delete headers["content-type"];
        else headers["content-type"] = c.ct;
        const json = JSON.stringify(b.body);
        const flat = Object.entries((b.body && typeof b.body === "object" && !Array.isArray(b.body) ? b.body : { name: "x" }) as Record<string, unknown>);
        const body =
          c.body === "json"
            ? json
            : c.body === "xml"
              ? `<?xml version="1.0"?><body>${flat.map(([k, v]) => `<${k}>${String(v)}</${k}>`).join("")}</body>`
              : c.body === "form"
                ? flat.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === "string" ? v : JSON.stringify(v))}`).join("&")
                : c.body === "multipart"
                  ? flat.map(([k, v]) => `--FuzzBoundary\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${typeof v === "string" ? v : JSON.stringify(v)}\r\n`).join("") + "--FuzzBoundary--\r\n"
                  : "<html><body>hi</body></html>";
        return this.assemble(op, kind, { ...b, headers }, { body, note: `content-type ${c.ct === null ? "(none)" : JSON.stringify(c.ct)}, ${c.body} body`, expect: c.invalid ? fail("accepted-invalid") : null });
      }

      case "not-json": {
        const json = JSON.stringify(b.body);
        const v = r.chance(0.25) ? json.slice(0, Math.max(1, Math.floor(json.length / 2))) : r.chance(0.1) ? r.word(r.int(1, 200), "abc{}[]\":,\\ \n\t0123456789") : r.pick(NOT_JSON);
        let valid = false;
        try {
          JSON.parse(v);
          valid = true;
        } catch {
          // the point
        }
        return this.assemble(op, kind, b, { body: v, note: `body ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v)}`, expect: valid ? null : fail("accepted-invalid") });
      }

      case "empty-body": {
        const shape = r.int(0, 3);
        const headers = { ...b.headers };
        if (shape === 2) delete headers["content-type"];
        if (shape === 3) headers["content-type"] = "text/plain";
        return this.assemble(op, kind, { ...b, headers }, { body: shape === 1 ? undefined : "", note: ["empty, json", "no body, json", "empty, no content-type", "empty, text/plain"][shape]! });
      }

      case "invalid-utf8": {
        const bytes = new Uint8Array(r.pick(BAD_UTF8));
        const bb = new BodyBuilder();
        const body = clone(b.body);
        const strings: { path: Path; value: unknown }[] = [];
        walk(body, [], strings);
        const targets = strings.filter((s) => typeof s.value === "string");
        let value: unknown = body;
        if (targets.length) {
          const t = r.pick(targets);
          value = setAt(body, t.path, `${(t.value as string).slice(0, 3)}${bb.byteFrag(bytes)}${(t.value as string).slice(3)}`);
        } else value = { x: bb.byteFrag(bytes) };
        return this.assemble(op, kind, b, { body: bb.encode(value), note: `bytes ${[...bytes].map((x) => x.toString(16)).join(" ")} in a string`, expect: fail("accepted-invalid") });
      }

      case "raw-nul": {
        const json = JSON.stringify(b.body);
        const at = r.int(0, json.length);
        // Inside a string when there is one (a raw control character there is not JSON), else between tokens.
        const inString = r.chance(0.5) && json.includes('"');
        const v = inString ? json.replace(/"([^"]{0,3})/, '"$1\u0000') : json.slice(0, at) + "\u0000" + json.slice(at);
        return this.assemble(op, kind, b, { body: v, note: inString ? "raw NUL inside a string" : "raw NUL between tokens", expect: fail("accepted-invalid") });
      }

      case "deep-top": {
        const n = r.pick([1000, 10_000, 200_000]);
        const shape = r.pick(["arrays", "objects", "mixed", "unclosed"] as const);
        const v = shape === "arrays" ? nestedArrays(n) : shape === "objects" ? nestedObjects(n) : shape === "mixed" ? nestedMixed(n) : "[".repeat(n);
        return this.assemble(op, kind, b, { body: v, note: `top-level ${shape} ×${n}`, expect: fail("accepted-invalid") });
      }

      case "cross-team-body": {
        const body = clone(b.body) as any;
        const items: any[] = Array.isArray(body) ? body : [body];
        const o = this.fx.foreign;
        const pickO = (res: Resource) => (o[res].length ? r.pick(o[res]) : Bun.randomUUIDv7());
        const fields = this.idFieldsOf(op);
        const field = r.pick(fields);
        for (const item of items) {
          if (field === "route_id") item.route_id = pickO("route");
          if (field === "route") item.route = pickO("route");
          if (field === "project_id") item.project_id = pickO("project");
          if (field === "project_ids") item.project_ids = [pickO("project")];
          if (field === "team_member_ids") item.team_member_ids = [pickO("member")];
          if (op.key === "POST /v1/suppressions") {
            item.scope = field === "route_id" ? "route" : "project";
            if (item.scope === "route") delete item.project_id;
            else delete item.route_id;
          }
        }
        return this.assemble(op, kind, b, { body: JSON.stringify(body), note: `${field} of another team`, expect: fail("cross-team") });
      }

      case "mutate":
        return this.mutate(op, b);
    }
    throw new Error(`unknown kind ${kind}`);
  }

  private mutate(op: Operation, b: Baseline): FuzzRequest {
    const r = this.rng;
    const sub = r.weighted<string>([
      ["wrong-type", 4],
      ["missing-required", 1],
      ["proto-key", 4],
      ["proto-only", 2],
      ["huge-string", 2],
      ["lone-surrogate", 2],
      ["nul", 1],
      ["deep-field", 3],
      ["deep-object-field", 1],
      ["big-array", 1],
      ["many-keys", 1],
      ["number-edge", 1],
      ["dup-keys", 1],
      ["unicode", 1],
    ]);
    const bb = new BodyBuilder();
    let body = clone(b.body) as any;
    const nodes: { path: Path; value: unknown }[] = [];
    walk(body, [], nodes);
    const fields = nodes.filter((n) => n.path.length > 0);
    const objects = nodes.filter((n) => n.value && typeof n.value === "object" && !Array.isArray(n.value));
    const target = fields.length ? r.pick(fields) : null;
    const targetPath = target?.path ?? (Array.isArray(body) ? [0] : ["name"]);
    const at = targetPath.join(".");
    let note = "";
    let expect: Expectation | null = null;
    const fail = (finding: string): Expectation => ({ finding, severity: "fail" });
    const put = (v: unknown) => {
      body = setAt(body, targetPath, v);
    };
    switch (sub) {
      case "wrong-type": {
        if (r.chance(0.3)) {
          const v = r.pick(RAW_NUMBERS);
          put(bb.raw(v));
          note = `${at} = ${v}`;
        } else {
          const v = r.pick(WRONG_VALUES);
          put(clone(v));
          note = `${at} = ${JSON.stringify(v)?.slice(0, 30)}`;
        }
        break;
      }
      case "missing-required":
        deleteAt(body, targetPath);
        note = `without ${at}`;
        break;
      case "proto-key": {
        const key = r.pick(PROTO_KEYS);
        const value = clone(r.pick<unknown>([1, "x", {}, { polluted: true }, null, [], "ph", { name: "polluted", url: "https://example.com/p" }, true]));
        const node = objects.length && r.chance(0.6) ? r.pick(objects) : { path: [] as Path, value: body };
        if (node.value && typeof node.value === "object" && !Array.isArray(node.value)) defineOwn(node.value as Record<string, unknown>, key, value);
        else body = JSON.parse(`{"${key}":${JSON.stringify(value)}}`);
        note = `${node.path.length ? node.path.join(".") + "." : ""}${key} = ${JSON.stringify(value)}`;
        break;
      }
      case "proto-only": {
        const key = r.pick(PROTO_KEYS);
        const v = r.pick(["1", '"x"', "{}", "null", '{"polluted":true}']);
        const json = `{"${key}":${v}}`;
        return this.assemble(op, "mutate:proto-only", b, { body: op.body?.type === "array" ? `[${json}]` : json, note: `body ${json}` });
      }
      case "huge-string": {
        const n = r.weighted([
          [1000, 3],
          [10_000, 3],
          [100_000, 2],
          [1_000_000, 1],
        ] as const);
        const unit = r.pick(["x", "ü", "😀", "\\", '"', "\u0000", "<"]);
        const count = Math.max(1, Math.floor(n / Math.max(1, new TextEncoder().encode(JSON.stringify(unit).slice(1, -1)).length)));
        if (r.chance(0.15) && objects.length) {
          const node = r.pick(objects);
          defineOwn(node.value as Record<string, unknown>, unit.repeat(Math.min(count, 200_000)), "v");
          note = `a key of ${JSON.stringify(unit)}×${Math.min(count, 200_000)}`;
        } else {
          put(unit.repeat(count));
          note = `${at} = ${JSON.stringify(unit)}×${count}`;
        }
        break;
      }
      case "lone-surrogate": {
        const v = r.pick(LONE_SURROGATES);
        if (r.chance(0.2) && objects.length) {
          defineOwn(r.pick(objects).value as Record<string, unknown>, v, "x");
          note = `a key ${JSON.stringify(v)}`;
        } else {
          const str = typeof target?.value === "string" ? target.value + v : v;
          put(str);
          note = `${at} = ${JSON.stringify(str).slice(0, 40)}`;
        }
        expect = fail("accepted-invalid");
        break;
      }
      case "nul": {
        const v = r.pick(["\u0000", "a\u0000b", "x@example.net\u0000.evil", "\u0000".repeat(100)]);
        put(typeof target?.value === "string" && r.chance(0.5) ? target.value + v : v);
        note = `${at} with NUL`;
        break;
      }
      case "deep-field":
      case "deep-object-field": {
        const n = r.weighted([
          [33, 1],
          [100, 1],
          [1000, 2],
          [5000, 3],
          [10_000, 3],
          [200_000, 2],
        ] as const);
        put(bb.raw(sub === "deep-field" ? nestedArrays(n) : nestedObjects(n)));
        note = `${at} = ${sub === "deep-field" ? "[" : "{"}×${n}`;
        expect = fail("accepted-invalid");
        break;
      }
      case "big-array": {
        // At most 10,000: quadratic work then stalls for seconds (visible), not for minutes (which
        // would time out everything after it and hide every other finding of the run).
        const n = r.pick([1000, 5000, 10_000]);
        const item = r.pick(['"a@example.net"', "1", "null", "{}", '"message.delivered"']);
        put(bb.raw("[" + `${item},`.repeat(n - 1) + item + "]"));
        note = `${at} = [${item} ×${n}]`;
        break;
      }
      case "many-keys": {
        const n = r.pick([1000, 5000, 10_000]);
        const o: Record<string, string> = {};
        for (let i = 0; i < n; i++) o[`k${i}`] = "v";
        put(o);
        note = `${at} = object with ${n} keys`;
        break;
      }
      case "number-edge": {
        const v = r.pick(RAW_NUMBERS);
        put(bb.raw(v));
        note = `${at} = ${v}`;
        break;
      }
      case "dup-keys": {
        const json = JSON.stringify(body);
        const key = typeof targetPath[targetPath.length - 1] === "string" ? String(targetPath[targetPath.length - 1]) : "name";
        const v = r.pick(['{"x":1}', "null", "123", '"dup"', "[]"]);
        const text = json.startsWith("{") && json.length > 2 ? `{"${key}":${v},${json.slice(1)}` : json.startsWith("{") ? `{"${key}":${v},"${key}":${v}}` : json;
        const text2 = r.chance(0.5) && json.startsWith("{") && json.length > 2 ? `${json.slice(0, -1)},"${key}":${v}}` : text;
        return this.assemble(op, "mutate:dup-keys", b, { body: text2, note: `duplicate key ${key}` });
      }
      case "unicode": {
        const v = r.pick(["ü", "😀👩‍👩‍👧", "\u202eevil", "\u200b", "e\u0301", "ﬀ", "İ", "ß", "\ufeff", "Ⅻ", "𝓍@example.net", "x@exämple.net", "a@xn--bcher-kva.example"]);
        put(typeof target?.value === "string" ? target.value + v : v);
        note = `${at} with ${JSON.stringify(v)}`;
        break;
      }
    }
    return this.assemble(op, `mutate:${sub}`, b, { body: bb.encode(body), note, expect });
  }
}

/* ------------------------------------------------------------------ execution and checks */

export interface Outcome {
  status: number;
  contentType: string;
  text: string;
  ms: number;
  /** performance.now() when the request was sent: the earliest of the requests a stall timed out is its likely cause. */
  startedAt: number;
  error?: string;
}

export async function execute(base: string, req: FuzzRequest, timeoutMs = 10_000): Promise<Outcome> {
  const started = performance.now();
  try {
    const res = await fetch(base + req.url, { method: req.method, headers: req.headers, body: req.body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    return { status: res.status, contentType: res.headers.get("content-type") ?? "", text, ms: performance.now() - started, startedAt: started };
  } catch (err) {
    return { status: 0, contentType: "", text: "", ms: performance.now() - started, startedAt: started, error: String(err) };
  }
}

/** Stack frames, file paths and the like: never in an answer. */
const LEAKS: [string, RegExp][] = [
  ["stack frame", /^\s*at\s+\S.*(:\d+:\d+\)?|\(native\))\s*$/m],
  ["stack frame", /\bat\s+\S+\s+\([^)]*:\d+:\d+\)/],
  ["/work/ path", /\/work\//],
  ["node_modules", /node_modules/],
  [".ts: location", /\.ts:/],
];

export function leakIn(text: string): string | null {
  for (const [name, re] of LEAKS) if (re.test(text)) return name;
  return null;
}

export interface Finding {
  severity: Severity;
  finding: string;
  op: string;
  kind: string;
  status: number;
  method: string;
  url: string;
  request: string;
  response: string;
}

/** A short, printable excerpt: runs collapsed ("[×200000"), controls and lone surrogates escaped. */
export function excerpt(s: string | Uint8Array | undefined, max = 140): string {
  if (s === undefined) return "(no body)";
  const size = typeof s === "string" ? `${s.length} chars` : `${s.byteLength} bytes`;
  let text = typeof s === "string" ? s : new TextDecoder().decode(s.subarray(0, 4096));
  if (text.length > 4096) text = text.slice(0, 4096);
  text = text.replace(/(.)\1{11,}/gsu, (m, c: string) => `${c}×${[...m].length}`);
  text = JSON.stringify(text).slice(1, -1);
  if (text.length > max) text = `${text.slice(0, max)}… (${size})`;
  return text;
}

export class Findings {
  readonly list: Finding[] = [];
  add(severity: Severity, finding: string, req: FuzzRequest, out: Outcome, detail?: string): void {
    this.list.push({
      severity,
      finding,
      op: req.op.key,
      kind: req.kind,
      status: out.status,
      method: req.method,
      url: excerpt(req.url, 160),
      request: `${req.note}${detail ? ` [${detail}]` : ""} | body: ${excerpt(req.body, 100)}`,
      response: out.error ? `transport error: ${out.error}` : excerpt(out.text, 160),
    });
  }
  get failures(): Finding[] {
    return this.list.filter((f) => f.severity === "fail");
  }

  /** One line per (finding, operation, kind, status) with a count and the first example. */
  summary(): string {
    const groups = new Map<string, { f: Finding; n: number }>();
    for (const f of this.list) {
      const key = `${f.severity}|${f.finding}|${f.status}|${f.op}|${f.kind}`;
      const g = groups.get(key);
      if (g) g.n++;
      else groups.set(key, { f, n: 1 });
    }
    const sorted = [...groups.values()].sort(
      (a, b) => (a.f.severity === b.f.severity ? 0 : a.f.severity === "fail" ? -1 : 1) || a.f.finding.localeCompare(b.f.finding) || a.f.op.localeCompare(b.f.op) || a.f.kind.localeCompare(b.f.kind),
    );
    const lines = sorted.map(
      ({ f, n }) =>
        `[${f.severity}] ${f.finding} ${f.status || "-"} | ${f.op} | ${f.kind} | ×${n}\n      e.g. ${f.method} ${f.url}\n      req: ${f.request}\n      res: ${f.response}`,
    );
    return lines.join("\n");
  }
}

/** Every check a single answer must pass. */
export function evaluate(req: FuzzRequest, out: Outcome, findings: Findings, slowMs = 2000): void {
  if (out.error) {
    findings.add("fail", "connection-error", req, out, `sent at t=${(out.startedAt / 1000).toFixed(2)} s`);
    return;
  }
  if (out.status >= 500) findings.add("fail", "5xx", req, out);
  if (out.status >= 400) {
    const leak = leakIn(out.text);
    if (leak) findings.add("fail", "leak", req, out, leak);
    let parsed: any;
    let ok = true;
    try {
      parsed = JSON.parse(out.text);
    } catch {
      ok = false;
    }
    if (!/^application\/json\b/i.test(out.contentType)) findings.add("fail", "error-not-json", req, out, `content-type ${out.contentType || "(none)"}`);
    else if (!ok) findings.add("fail", "error-not-json", req, out, "does not parse");
    if (ok && (typeof parsed !== "object" || parsed === null || typeof parsed.message !== "string")) findings.add("fail", "error-no-message", req, out);
    else if (ok && out.status === 422 && (typeof parsed.errors !== "object" || parsed.errors === null || Array.isArray(parsed.errors))) findings.add("fail", "422-no-errors", req, out);
  }
  if (out.status >= 200 && out.status < 300 && req.expect) findings.add(req.expect.severity, req.expect.finding, req, out);
  if (out.ms > slowMs) findings.add("note", "slow", req, out, `${Math.round(out.ms)} ms, sent at t=${(out.startedAt / 1000).toFixed(2)} s`);
}

/**
 * Ids of what a 2xx created, into the pools (so later requests can read, change and delete
 * them); ids a 2xx DELETE removed, out of them (the first id of a pool stays: rng use per pick
 * must not depend on timing, and ids of deleted resources are still fine garbage).
 */
export function harvest(req: FuzzRequest, out: Outcome, fx: Fixtures): void {
  if (out.status < 200 || out.status >= 300) return;
  if (req.method === "DELETE") {
    const param = req.op.pathParams[0];
    const id = param ? decodeURIComponent(req.url.split("?")[0]!.split("/")[3] ?? "") : "";
    const pool = param ? fx.own[resourceOf(req.op, param)] : [];
    const at = pool.indexOf(id);
    if (at > 0) pool.splice(at, 1);
    return;
  }
  if (req.method !== "POST") return;
  let json: any;
  try {
    json = JSON.parse(out.text);
  } catch {
    return;
  }
  const add = (r: Resource, id: unknown) => {
    if (typeof id !== "string" || !/^[0-9a-f-]{36}$/.test(id)) return;
    const pool = fx.own[r];
    if (pool.includes(id)) return;
    if (pool.length >= 60) pool.splice(r === "route" || r === "project" ? 4 : 1, 1);
    pool.push(id);
  };
  const p = req.op.path;
  if (p === "/v1/send" && json) add("message", json.message_id ?? json.data?.message_id);
  else if (p === "/v1/send/batch" && Array.isArray(json)) for (const m of json) add("message", m?.message_id);
  else if (p === "/v1/projects") {
    add("project", json?.data?.id ?? json?.id);
    add("route", json?.data?.default_route_id);
  }
  else if (p === "/v1/projects/{projectId}/routes") add("route", json?.data?.id ?? json?.id);
  else if (p === "/v1/domains") add("domain", json?.data?.id ?? json?.id);
  else if (p === "/v1/webhooks") add("webhook", json?.data?.id ?? json?.id);
  else if (p === "/v1/suppressions") for (const s of json?.data?.created ?? []) add("suppression", s?.id);
}

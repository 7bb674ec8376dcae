/**
 * A real HTTPS webhook receiver for tests: a TLS certificate made here with the openssl CLI (a
 * throwaway CA and a leaf for the given names), and a Bun.serve endpoint that verifies every
 * request with its OWN signature code — WebCrypto HMAC, written from the spec's rules, not the
 * product's signing function — the way a customer's receiver would.
 */
import { spawnSync } from "node:child_process";
import { timingSafeEqual } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";

export interface TestCert {
  caPem: string;
  certPem: string;
  keyPem: string;
  caPath: string;
}

function openssl(args: string[], cwd: string) {
  const r = spawnSync("openssl", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
}

/** A CA and a server certificate for `names` (DNS names or IPs) signed by it. */
export function makeTestCert(names: string[] = ["hooks.example.test"]): TestCert {
  const dir = tempDir("posthorn-cert-");
  const san = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(",");
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  openssl(["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Posthorn Test CA",
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"], dir);
  openssl(["req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", `/CN=${names[0]}`], dir);
  writeFileSync(join(dir, "ext.cnf"), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  openssl(["x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "leaf.pem", "-days", "2", "-extfile", "ext.cnf"], dir);
  const read = (f: string) => readFileSync(join(dir, f), "utf8");
  return { caPem: read("ca.pem"), certPem: read("leaf.pem"), keyPem: read("leaf.key"), caPath: join(dir, "ca.pem") };
}

export interface ReceivedDelivery {
  path: string;
  host: string | null;
  headers: Record<string, string>;
  rawBody: Uint8Array;
  body: string;
  /** The parsed body when the signature verified. */
  json: { id: string; event: string; timestamp: string; data: Record<string, unknown> } | null;
  verified: boolean;
  /** Why verification failed, if it did. */
  rejection: string | null;
  attempt: number;
  t: number | null;
  receivedAt: number;
  /** What the receiver answered. */
  status: number;
}

const hex = (buf: ArrayBuffer) => Buffer.from(buf).toString("hex");

/** HMAC-SHA256 over `${t}.` + the raw body bytes, keyed with the whole secret (WebCrypto). */
export async function receiverHmac(secret: string, t: string, rawBody: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const prefix = new TextEncoder().encode(`${t}.`);
  const signed = new Uint8Array(prefix.length + rawBody.length);
  signed.set(prefix);
  signed.set(rawBody, prefix.length);
  return hex(await crypto.subtle.sign("HMAC", key, signed));
}

/** The receiver side of the spec's signature rules; null when valid, else the reason. */
export async function verifyRequest(secret: string, headers: Headers, rawBody: Uint8Array, nowSeconds = Date.now() / 1000): Promise<string | null> {
  const header = headers.get("x-service-signature");
  if (!header) return "no signature header";
  const parts = new Map(header.split(",").map((kv) => [kv.slice(0, kv.indexOf("=")).trim(), kv.slice(kv.indexOf("=") + 1).trim()] as const));
  const t = parts.get("t");
  const v1 = parts.get("v1");
  if (!t || !v1 || !/^\d+$/.test(t) || !/^[0-9a-f]{64}$/.test(v1)) return "signature header lacks t or v1";
  if (Math.abs(nowSeconds - Number(t)) > 300) return "timestamp outside the 300 s tolerance";
  const expected = await receiverHmac(secret, t, rawBody);
  if (!timingSafeEqual(Buffer.from(expected, "hex"), Buffer.from(v1, "hex"))) return "signature mismatch";
  if (headers.get("x-service-delivery") !== t) return "X-Service-Delivery differs from t";
  return null;
}

export type Responder = (d: ReceivedDelivery, req: Request) => Response | Promise<Response> | undefined | Promise<Response | undefined>;

export interface TestReceiver {
  port: number;
  url: (host?: string, path?: string) => string;
  deliveries: ReceivedDelivery[];
  /** The secret the receiver verifies with; set it after creating or regenerating. */
  secret: string;
  /** Decides the answer to a verified delivery; default 200 "ok". */
  respond: Responder | null;
  stop(): Promise<void>;
}

export function startReceiver(cert: TestCert, opts: { secret?: string; respond?: Responder } = {}): TestReceiver {
  const receiver: TestReceiver = {
    port: 0,
    url: (host = "hooks.example.test", path = "/hook") => `https://${host}:${receiver.port}${path}`,
    deliveries: [],
    secret: opts.secret ?? "",
    respond: opts.respond ?? null,
    stop: async () => void server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: cert.certPem, key: cert.keyPem },
    async fetch(req) {
      const rawBody = new Uint8Array(await req.arrayBuffer());
      const body = new TextDecoder().decode(rawBody);
      const rejection = await verifyRequest(receiver.secret, req.headers, rawBody);
      const t = /(?:^|,)t=(\d+)/.exec(req.headers.get("x-service-signature") ?? "")?.[1];
      const d: ReceivedDelivery = {
        path: new URL(req.url).pathname,
        host: req.headers.get("host"),
        headers: Object.fromEntries(req.headers.entries()),
        rawBody,
        body,
        json: rejection ? null : JSON.parse(body),
        verified: rejection === null,
        rejection,
        attempt: Number(req.headers.get("x-service-attempt")),
        t: t ? Number(t) : null,
        receivedAt: Date.now(),
        status: 0,
      };
      receiver.deliveries.push(d);
      let res: Response;
      if (rejection) res = new Response(`invalid signature: ${rejection}`, { status: 401 });
      else res = (await receiver.respond?.(d, req)) ?? new Response("ok");
      d.status = res.status;
      return res;
    },
  });
  receiver.port = server.port!;
  return receiver;
}

/**
 * The bounds on what Posthorn reads from an OpenID provider (src/auth/oidc.ts): an answer over 1 MB
 * is refused while it is being read (reading stops at the bound and the connection is dropped, so an
 * endless body costs at most the bound), and an answer that trickles in slowly is refused when the
 * exchange's time is up. A real HTTP server on loopback plays the misbehaving provider; the relying
 * party is the app's own OidcClient, asked for the discovery document as a sign-in would.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "../../src/config.ts";
import { OidcClient, SSO_FAILED, SsoError } from "../../src/auth/oidc.ts";

/** What one request to the misbehaving provider cost it: bytes it wrote and whether the client hung up. */
interface Served {
  written: number;
  closedAt: number | null;
}

describe("bounds on the identity provider's answers", () => {
  const served: Served[] = [];
  let behaviour: (res: ServerResponse, s: Served) => void = (res) => res.end();
  const server = createServer((req, res) => {
    const s: Served = { written: 0, closedAt: null };
    served.push(s);
    res.on("close", () => (s.closedAt = Date.now()));
    behaviour(res, s);
  });
  let issuer = "";

  beforeAll(async () => {
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  });

  const client = (bounds?: { timeoutMs: number; maxBytes: number }) =>
    new OidcClient(loadConfig({ POSTHORN_OIDC_ISSUER: issuer, POSTHORN_OIDC_CLIENT_ID: "posthorn" }), bounds);
  const discovery = (o = { issuer: "", authorization_endpoint: "x", token_endpoint: "x", jwks_uri: "x" }) => JSON.stringify({ ...o, issuer });
  const refusal = async (p: Promise<unknown>): Promise<SsoError> => {
    try {
      await p;
    } catch (err) {
      if (err instanceof SsoError) return err;
      throw err;
    }
    throw new Error("the answer was accepted");
  };

  /** Writes `chunk` again and again, as fast as the client reads, until it hangs up. */
  const endless = (chunk: Buffer) => (res: ServerResponse, s: Served) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write("{\"issuer\":\"");
    const pump = () => {
      while (!res.destroyed) {
        s.written += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
    };
    pump();
  };

  test("an answer under the bound is read whole", async () => {
    behaviour = (res) => res.writeHead(200, { "content-type": "application/json" }).end(discovery());
    expect((await client().discovery()).issuer).toBe(issuer);
  });

  test("an endless body: reading stops past 1 MB, the connection is dropped, a clear refusal", async () => {
    behaviour = endless(Buffer.alloc(16 * 1024, "a"));
    const started = Date.now();
    const err = await refusal(client().discovery());
    expect(err.status).toBe(401);
    expect(err.code).toBe(SSO_FAILED);
    expect(err.message).toBe(`Single sign-on failed: the identity provider's answer is too large (over 1000000 bytes, ${issuer.slice(7)}).`);
    const s = served.at(-1)!;
    // The provider sees the hang-up: it wrote the bound plus what socket buffers hold, not more.
    for (let i = 0; i < 100 && s.closedAt === null; i++) await Bun.sleep(20);
    expect(s.closedAt).not.toBeNull();
    expect(s.closedAt! - started).toBeLessThan(5000);
    const soon = s.written;
    await Bun.sleep(200);
    expect(s.written).toBe(soon);
    expect(s.written).toBeLessThan(16 * 1024 * 1024);
  });

  test("an oversize body that declares its length is refused before it is read; one without a length at the bound", async () => {
    behaviour = (res, s) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(1_000_001) });
      res.write("{");
      s.written = 1;
    };
    expect((await refusal(client().discovery())).message).toContain("too large (over 1000000 bytes");
    // 1,000,001 bytes, chunked: one byte over.
    const body = discovery({ issuer: "", authorization_endpoint: "x".repeat(1_000_001 - discovery().length + 1), token_endpoint: "x", jwks_uri: "x" });
    expect(body.length).toBe(1_000_001);
    behaviour = (res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    };
    expect((await refusal(client().discovery())).message).toContain("too large");
    // Exactly at the bound: accepted.
    const at = body.slice(0, body.indexOf("x")) + body.slice(body.indexOf("x") + 1);
    behaviour = (res) => res.writeHead(200, { "content-type": "application/json" }).end(at);
    expect((await client().discovery()).authorization_endpoint).toHaveLength(1_000_000 - discovery().length + 1);
  });

  test("a body that trickles in is refused when the exchange's time is up, and the connection dropped", async () => {
    behaviour = (res, s) => {
      res.writeHead(200, { "content-type": "application/json" });
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        res.write(" ");
        s.written++;
      }, 50);
      res.on("close", () => clearInterval(timer));
    };
    const started = Date.now();
    const err = await refusal(client({ timeoutMs: 1500, maxBytes: 1_000_000 }).discovery());
    const took = Date.now() - started;
    expect(err.message).toBe(`Single sign-on failed: the identity provider did not answer in time (${issuer.slice(7)}).`);
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(4000);
    const s = served.at(-1)!;
    expect(s.written).toBeGreaterThan(5); // it did trickle: headers in time, the body not
    for (let i = 0; i < 100 && s.closedAt === null; i++) await Bun.sleep(20);
    expect(s.closedAt).not.toBeNull();
  });
});

/**
 * A real OpenID provider on loopback for single sign-on tests: oidc-provider (panva's, a certified
 * implementation) on 127.0.0.1, with its development login and consent pages, a client registered
 * for Posthorn's callback, and accounts with chosen email claims. Its signing keys are made here,
 * so a test can also sign tokens with them (or with a key the provider does not hold). `tamper`,
 * when set, rewrites the id_token of the provider's token response: for faults a correct provider
 * never makes (another audience, an expired token, a foreign signature).
 */
import { createServer, type Server } from "node:http";
import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import Provider from "oidc-provider";

export interface TestAccount {
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface TestProvider {
  issuer: string;
  provider: Provider;
  /** The provider's RS256 key (kid "rsa-1") and ES256 key (kid "ec-1"). */
  rsaKey: KeyObject;
  ecKey: KeyObject;
  tamper: ((idToken: string) => string) | null;
  close(): Promise<void>;
}

/** A free loopback port, for an issuer URL that must be known before the provider starts. */
export function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A compact JWS of `payload` signed with `key` (RS256 or ES256), with `header` as given. */
export function signJwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const input = `${part(header)}.${part(payload)}`;
  const signature = header.alg === "ES256" ? sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" }) : sign("RSA-SHA256", Buffer.from(input), key);
  return `${input}.${signature.toString("base64url")}`;
}

/** The header and payload of a compact JWS. */
export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [h, p] = token.split(".");
  return { header: JSON.parse(Buffer.from(h!, "base64url").toString()), payload: JSON.parse(Buffer.from(p!, "base64url").toString()) };
}

export async function startOidcProvider(opts: {
  port: number;
  clients: { client_id: string; client_secret: string; redirect_uris: string[] }[];
  accounts: Record<string, TestAccount>;
}): Promise<TestProvider> {
  const issuer = `http://127.0.0.1:${opts.port}`;
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
  const jwk = (key: KeyObject, kid: string, alg: string) => ({ ...key.export({ format: "jwk" }), kid, alg, use: "sig" });
  const provider = new Provider(issuer, {
    clients: opts.clients.map((c) => ({ ...c, grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" })),
    jwks: { keys: [jwk(rsa, "rsa-1", "RS256"), jwk(ec, "ec-1", "ES256")] as never },
    findAccount: async (_ctx: unknown, id: string) => {
      const account = opts.accounts[id];
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, email: account.email, email_verified: account.email_verified, name: account.name ?? id }) };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    scopes: ["openid", "email", "profile"],
    pkce: { required: () => true },
    cookies: { keys: ["a test key of the loopback provider"] },
    // The development login and consent pages (any password) are the point here.
    features: { devInteractions: { enabled: true } },
  } as never);
  const test: TestProvider = {
    issuer,
    provider,
    rsaKey: createPrivateKey(rsa.export({ format: "pem", type: "pkcs8" })),
    ecKey: ec,
    tamper: null,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  provider.use(async (ctx: { path: string; body: unknown }, next: () => Promise<void>) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === "/token" && test.tamper && body && typeof body.id_token === "string") ctx.body = { ...body, id_token: test.tamper(body.id_token) };
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(opts.port, "127.0.0.1", () => resolve()));
  return test;
}

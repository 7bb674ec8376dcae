/**
 * OpenID Connect single sign-on, the relying party's side (docs/security.md, "Single sign-on"):
 * the authorization code flow with PKCE (S256), state and nonce, against the issuer of
 * POSTHORN_OIDC_ISSUER. The discovery document and the JWKS come from the issuer (kept for an
 * hour; the JWKS is fetched again when a token names a key it does not hold, at most once a
 * minute). ID tokens are checked here with node:crypto: RS256 or ES256 signature by a key of the
 * JWKS, iss, aud (and azp), exp, iat and nonce. Nothing else is trusted from the provider.
 */
import { createHash, createPublicKey, randomBytes, verify, type KeyObject, type webcrypto } from "node:crypto";

type JsonWebKey = webcrypto.JsonWebKey & { kid?: string };
import type { Config } from "../config.ts";
import { UnauthenticatedError } from "../errors.ts";

/** The body's `error` of every refused single sign-on answer from the provider. */
export const SSO_FAILED = "sso_failed";
/** How long a started sign-in may take at the provider. */
export const SSO_REQUEST_TTL_MS = 10 * 60_000;
/** Allowed clock difference for iat (a token from the future). exp is taken as it is. */
const CLOCK_SKEW_SECONDS = 60;
const FETCH_TIMEOUT_MS = 10_000;
const MAX_DOCUMENT_BYTES = 1_000_000;
const DISCOVERY_TTL_MS = 3600_000;
const JWKS_REFRESH_MIN_MS = 60_000;
const ALGORITHMS = new Set(["RS256", "ES256"]);

export class SsoError extends UnauthenticatedError {
  constructor(detail: string) {
    super(`Single sign-on failed: ${detail}`, SSO_FAILED);
  }
}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
}

/** The claims Posthorn reads from a checked ID token. */
export interface IdClaims {
  sub: string;
  email: string | null;
  email_verified: boolean;
  name: string | null;
}

/** What a started sign-in keeps (sso_requests) and where the browser goes. */
export interface Authorization {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

const b64url = (bytes: Buffer) => bytes.toString("base64url");
export const pkceChallenge = (verifier: string): string => b64url(createHash("sha256").update(verifier).digest());

/** The redirect URI registered at the provider. */
export const callbackUrl = (config: Pick<Config, "publicUrl">): string => `${config.publicUrl}/v1/auth/sso/callback`;

/** Bounds on every exchange with the provider: its whole time (headers and body) and its body's size. */
export interface FetchBounds {
  timeoutMs: number;
  maxBytes: number;
}
const DEFAULT_BOUNDS: FetchBounds = { timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_DOCUMENT_BYTES };

/**
 * The body as text, read chunk by chunk: past `maxBytes` (or a larger Content-Length) reading stops
 * and the connection is dropped, and so it is when `signal` ends (the exchange's time is up, however
 * slowly the body trickles). Nothing past the bound is read or kept.
 */
async function readBounded(res: Response, maxBytes: number, signal: AbortSignal, host: string): Promise<string> {
  const tooLarge = () => new SsoError(`the identity provider's answer is too large (over ${maxBytes} bytes, ${host}).`);
  const declared = Number(res.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const reader = res.body?.getReader();
  if (!reader) return "";
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new SsoError(`the identity provider did not answer in time (${host}).`));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => {});
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge();
      chunks.push(value);
    }
  } catch (err) {
    void reader.cancel().catch(() => {});
    if (signal.aborted && !(err instanceof SsoError && err.message.includes("too large"))) throw new SsoError(`the identity provider did not answer in time (${host}).`);
    throw err instanceof SsoError ? err : new SsoError(`the identity provider's answer broke off (${host}: ${err instanceof Error ? err.message : String(err)}).`);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function fetchJson(url: string, init: RequestInit = {}, bounds: FetchBounds = DEFAULT_BOUNDS): Promise<{ status: number; body: unknown }> {
  const host = new URL(url).host;
  const signal = AbortSignal.timeout(bounds.timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: "error", signal });
  } catch (err) {
    throw new SsoError(`the identity provider could not be reached (${host}: ${err instanceof Error ? err.message : String(err)}).`);
  }
  const text = await readBounded(res, bounds.maxBytes, signal, host);
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    throw new SsoError(`the identity provider answered ${res.status} without JSON.`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function decodePart(part: string, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    if (isObject(value)) return value;
  } catch {
    // below
  }
  throw new SsoError(`the ID token's ${what} is not a JSON object.`);
}

/** One configured issuer's client (one per config: its caches). */
export class OidcClient {
  private discovered: { at: number; doc: Promise<Discovery> } | null = null;
  private keys: { at: number; keys: JsonWebKey[] } | null = null;

  /** `bounds`: the time and size limits of each exchange with the provider (smaller in tests). */
  constructor(
    private readonly config: Config,
    private readonly bounds: FetchBounds = DEFAULT_BOUNDS,
  ) {}

  private get issuer(): string {
    return this.config.oidcIssuer!;
  }

  /** The issuer's discovery document; its issuer must be the configured one, exactly. */
  discovery(): Promise<Discovery> {
    const now = Date.now();
    if (!this.discovered || now - this.discovered.at > DISCOVERY_TTL_MS) {
      const doc = this.loadDiscovery();
      this.discovered = { at: now, doc };
      doc.catch(() => (this.discovered = null)); // a failure is not kept
    }
    return this.discovered.doc;
  }

  private async loadDiscovery(): Promise<Discovery> {
    const { status, body } = await fetchJson(`${this.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`, {}, this.bounds);
    if (status !== 200 || !isObject(body)) throw new SsoError(`the discovery document answered ${status}.`);
    for (const field of ["issuer", "authorization_endpoint", "token_endpoint", "jwks_uri"] as const) {
      if (typeof body[field] !== "string") throw new SsoError(`the discovery document has no ${field}.`);
    }
    if (body.issuer !== this.issuer) throw new SsoError(`the discovery document names issuer ${String(body.issuer)}, not ${this.issuer}.`);
    return body as unknown as Discovery;
  }

  /** The JWKS's keys; `refresh` fetches them again (a key named by a token is not there), at most once a minute. */
  private async jwks(refresh: boolean): Promise<JsonWebKey[]> {
    const now = Date.now();
    if (this.keys && (now - this.keys.at < DISCOVERY_TTL_MS) && !(refresh && now - this.keys.at >= JWKS_REFRESH_MIN_MS)) return this.keys.keys;
    const { status, body } = await fetchJson((await this.discovery()).jwks_uri, {}, this.bounds);
    if (status !== 200 || !isObject(body) || !Array.isArray(body.keys)) throw new SsoError(`the JWKS answered ${status} without keys.`);
    this.keys = { at: now, keys: body.keys.filter(isObject) as JsonWebKey[] };
    return this.keys.keys;
  }

  /** A new sign-in: where to send the browser, and the state, nonce and PKCE verifier to keep. */
  async authorization(): Promise<Authorization> {
    const doc = await this.discovery();
    const state = b64url(randomBytes(32));
    const nonce = b64url(randomBytes(32));
    const codeVerifier = b64url(randomBytes(32));
    const url = new URL(doc.authorization_endpoint);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", this.config.oidcClientId!);
    url.searchParams.set("redirect_uri", callbackUrl(this.config));
    url.searchParams.set("scope", "openid email profile");
    url.searchParams.set("state", state);
    url.searchParams.set("nonce", nonce);
    url.searchParams.set("code_challenge", pkceChallenge(codeVerifier));
    url.searchParams.set("code_challenge_method", "S256");
    return { url: url.toString(), state, nonce, codeVerifier };
  }

  /** Trades the code for tokens at the token endpoint (with the PKCE verifier) and checks the ID token. */
  async redeem(code: string, codeVerifier: string, nonce: string): Promise<IdClaims> {
    const doc = await this.discovery();
    const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: callbackUrl(this.config), code_verifier: codeVerifier });
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    const secret = this.config.oidcClientSecret;
    if (secret !== null) {
      // RFC 6749 §2.3.1: both are form-urlencoded before they are joined.
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(this.config.oidcClientId!)}:${encodeURIComponent(secret)}`).toString("base64")}`;
    } else {
      form.set("client_id", this.config.oidcClientId!);
    }
    const { status, body } = await fetchJson(doc.token_endpoint, { method: "POST", headers, body: form.toString() }, this.bounds);
    if (status !== 200 || !isObject(body)) {
      const reason = isObject(body) && typeof body.error === "string" ? body.error : `HTTP ${status}`;
      throw new SsoError(`the token endpoint refused the code (${reason}).`);
    }
    if (typeof body.id_token !== "string") throw new SsoError("the token endpoint gave no ID token.");
    const claims = await this.verifyIdToken(body.id_token, nonce);
    // A provider may keep the scopes' claims out of the ID token (OIDC Core §5.4): then they come from userinfo, for the same subject.
    if (claims.email === null && typeof body.access_token === "string" && typeof doc.userinfo_endpoint === "string") {
      return this.userinfo(doc.userinfo_endpoint, body.access_token, claims);
    }
    return claims;
  }

  private async userinfo(endpoint: string, accessToken: string, claims: IdClaims): Promise<IdClaims> {
    const { status, body } = await fetchJson(endpoint, { headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" } }, this.bounds);
    if (status !== 200 || !isObject(body)) throw new SsoError(`the userinfo endpoint answered ${status}.`);
    if (body.sub !== claims.sub) throw new SsoError("the userinfo endpoint names another subject than the ID token.");
    return {
      sub: claims.sub,
      email: typeof body.email === "string" ? body.email : null,
      email_verified: body.email_verified === true,
      name: claims.name ?? (typeof body.name === "string" ? body.name : null),
    };
  }

  /** The claims of an ID token whose signature, issuer, audience, expiry and nonce are right; else SsoError. */
  async verifyIdToken(token: string, nonce: string, now = Date.now()): Promise<IdClaims> {
    const parts = token.split(".");
    if (parts.length !== 3) throw new SsoError("the ID token is not a signed JWT.");
    const [h, p, s] = parts as [string, string, string];
    const header = decodePart(h, "header");
    const alg = header.alg;
    if (typeof alg !== "string" || !ALGORITHMS.has(alg)) throw new SsoError(`the ID token's algorithm ${String(alg)} is not accepted (RS256, ES256).`);
    const kid = typeof header.kid === "string" ? header.kid : null;
    const key = (await this.keyFor(alg, kid, false)) ?? (await this.keyFor(alg, kid, true));
    if (!key) throw new SsoError(`no key of the issuer's JWKS verifies ${alg} tokens with key id ${kid ?? "(none)"}.`);
    const signature = Buffer.from(s, "base64url");
    const signed = Buffer.from(`${h}.${p}`);
    const ok = alg === "ES256" ? verify("sha256", signed, { key, dsaEncoding: "ieee-p1363" }, signature) : verify("RSA-SHA256", signed, key, signature);
    if (!ok) throw new SsoError("the ID token's signature does not verify.");

    const claims = decodePart(p, "payload");
    const clientId = this.config.oidcClientId!;
    if (claims.iss !== this.issuer) throw new SsoError(`the ID token was issued by ${String(claims.iss)}, not ${this.issuer}.`);
    const aud = claims.aud;
    const audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
    if (!audiences.includes(clientId)) throw new SsoError("the ID token is for another client (aud).");
    if (audiences.length > 1 && claims.azp !== clientId) throw new SsoError("the ID token is for several clients and azp is not this one.");
    const seconds = now / 1000;
    if (typeof claims.exp !== "number" || claims.exp <= seconds) throw new SsoError("the ID token has expired.");
    if (typeof claims.iat === "number" && claims.iat > seconds + CLOCK_SKEW_SECONDS) throw new SsoError("the ID token was issued in the future (iat).");
    if (typeof claims.nonce !== "string" || claims.nonce !== nonce) throw new SsoError("the ID token's nonce is not the one this sign-in sent.");
    if (typeof claims.sub !== "string" || claims.sub === "") throw new SsoError("the ID token names no subject.");
    return {
      sub: claims.sub,
      email: typeof claims.email === "string" ? claims.email : null,
      email_verified: claims.email_verified === true,
      name: typeof claims.name === "string" ? claims.name : null,
    };
  }

  private async keyFor(alg: string, kid: string | null, refresh: boolean): Promise<KeyObject | null> {
    const kty = alg === "ES256" ? "EC" : "RSA";
    const candidates = (await this.jwks(refresh)).filter(
      (k) =>
        k.kty === kty &&
        (kty === "RSA" || k.crv === "P-256") &&
        (k.use === undefined || k.use === "sig") &&
        (k.alg === undefined || k.alg === alg) &&
        (kid === null || k.kid === kid),
    );
    // Without a kid, only an unambiguous key.
    const jwk = kid === null && candidates.length !== 1 ? undefined : candidates[0];
    if (!jwk) return null;
    try {
      return createPublicKey({ key: jwk, format: "jwk" });
    } catch {
      return null;
    }
  }
}

const clients = new WeakMap<Config, OidcClient>();

/** The app's client of the configured issuer, or null when single sign-on is not configured. */
export function oidcClient(config: Config): OidcClient | null {
  if (config.oidcIssuer === null || config.oidcClientId === null) return null;
  let client = clients.get(config);
  if (!client) clients.set(config, (client = new OidcClient(config)));
  return client;
}

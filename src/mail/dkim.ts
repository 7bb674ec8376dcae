import { createHash } from "node:crypto";
import { generateCanonicalizedHeader } from "mailauth/lib/dkim/header";
import { defaultDKIMFieldNames, formatSignatureHeaderLine, getSigningHeaderLines, parseHeaders } from "mailauth/lib/tools";

export interface DkimKey {
  domain: string;
  selector: string;
  /** PKCS#8 PEM. */
  privateKeyPem: string;
}

/** Headers signed: mailauth's default list plus RFC 8058's one-click header. */
const SIGNED_FIELDS = `${defaultDKIMFieldNames}:List-Unsubscribe-Post`;
/**
 * Headers signed once more than they occur ("oversigning"), so a relay cannot add a second
 * From, Subject, etc. without breaking the signature.
 */
const OVERSIGNED = ["From", "Subject", "Date", "Message-ID", "To", "Cc", "Reply-To", "List-Unsubscribe", "List-Unsubscribe-Post"];

const keyCache = new Map<string, Promise<CryptoKey>>();

/** The imported signing key; importing parses the PEM, so keys are kept per PEM. */
function signingKey(pem: string): Promise<CryptoKey> {
  let key = keyCache.get(pem);
  if (!key) {
    const der = Buffer.from(pem.replace(/-----[^-]+-----|\s+/g, ""), "base64");
    key = crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
    key.catch(() => keyCache.delete(pem));
    if (keyCache.size > 1000) keyCache.clear();
    keyCache.set(pem, key);
  }
  return key;
}

/** Index just past the blank line that ends the header block (or the whole length). */
export function headerEnd(raw: Buffer): number {
  const crlf = raw.indexOf("\r\n\r\n");
  const lf = raw.indexOf("\n\n");
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return crlf + 4;
  if (lf !== -1) return lf + 2;
  return raw.length;
}

/**
 * RFC 6376 §3.4.4 relaxed body canonicalization, hashed with SHA-256. A regex pass over the
 * body; the byte-wise streaming hasher is several times slower on typical messages.
 */
export function relaxedBodyHash(body: Buffer): string {
  let s = body.toString("latin1");
  if (/(?:^|[^\r])\n/.test(s)) s = s.replace(/\r?\n/g, "\r\n");
  if (/[ \t]\r\n/.test(s)) s = s.replace(/[ \t]+\r\n/g, "\r\n");
  if (/[ \t]{2}|\t/.test(s)) s = s.replace(/[ \t]{2,}|\t/g, " ");
  let end = s.length;
  while (end >= 2 && s.charCodeAt(end - 1) === 10 && s.charCodeAt(end - 2) === 13) end -= 2;
  // A trailing space on a last line without CRLF is also whitespace at the end of a line.
  while (end > 0 && s.charCodeAt(end - 1) === 32) end--;
  s = end > 0 ? s.slice(0, end) + "\r\n" : "";
  return createHash("sha256").update(s, "latin1").digest("base64");
}

/**
 * Signs a composed message with rsa-sha256, relaxed/relaxed, and returns it with the
 * DKIM-Signature header prepended. Header canonicalization is mailauth's; the RSA step runs
 * through WebCrypto, which Bun performs off the JavaScript thread, so signing does not stall
 * the event loop (RSA-2048 costs ~0.5 ms per message).
 */
export async function dkimSign(raw: Buffer, key: DkimKey, now = new Date()): Promise<Buffer> {
  const split = headerEnd(raw);
  const headers = parseHeaders(raw.subarray(0, split));
  const bodyHash = relaxedBodyHash(raw.subarray(split));
  const present = new Set(headers.parsed.map((h) => h.key));
  const lines = getSigningHeaderLines(headers.parsed, SIGNED_FIELDS);
  // The extra names in h= (oversigning) have no header line: a verifier finds no further
  // instance for them and hashes nothing, unless one was added on the way.
  const h = [lines.keys, ...OVERSIGNED.filter((f) => present.has(f.toLowerCase()))].filter(Boolean).join(": ");
  const { canonicalizedHeader, dkimHeaderOpts } = generateCanonicalizedHeader("DKIM", { keys: h, headers: lines.headers }, {
    signingDomain: key.domain,
    selector: key.selector,
    algorithm: "rsa-sha256",
    canonicalization: "relaxed/relaxed",
    bodyHash,
    signTime: now,
  });
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", await signingKey(key.privateKeyPem), new Uint8Array(canonicalizedHeader));
  dkimHeaderOpts.b = Buffer.from(signature).toString("base64");
  const header = formatSignatureHeaderLine("DKIM", dkimHeaderOpts, true);
  return Buffer.concat([Buffer.from(header + "\r\n", "latin1"), raw]);
}

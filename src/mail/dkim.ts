import { createHash, createPrivateKey, sign as boringSslSign, type KeyObject } from "node:crypto";
import { defaultDKIMFieldNames, formatRelaxedLine, getSigningHeaderLines, parseHeaders } from "mailauth/lib/tools";
import { OpensslRsa } from "./openssl-rsa.ts";

export interface DkimKey {
  domain: string;
  /** The RSA key, which always signs. */
  selector: string;
  /** PKCS#8 PEM. */
  privateKeyPem: string;
  /** The Ed25519 key (RFC 8463), set once its record has verified; absent or null: RSA alone. */
  ed25519?: { selector: string; privateKeyPem: string } | null;
}

type Algorithm = "rsa-sha256" | "ed25519-sha256";
const WEBCRYPTO: Record<Algorithm, { name: string; hash?: string }> = {
  "rsa-sha256": { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
  "ed25519-sha256": { name: "Ed25519" },
};

/** Headers signed: mailauth's default list plus RFC 8058's one-click header. */
const SIGNED_FIELDS = `${defaultDKIMFieldNames}:List-Unsubscribe-Post`;
/**
 * Headers signed once more than they occur ("oversigning"), so a relay cannot add a second
 * From, Subject, etc. without breaking the signature.
 */
const OVERSIGNED = ["From", "Subject", "Date", "Message-ID", "To", "Cc", "Reply-To", "List-Unsubscribe", "List-Unsubscribe-Post"];

const keyCache = new Map<string, Promise<CryptoKey>>();

/** The imported signing key; importing parses the PEM, so keys are kept per PEM. */
function signingKey(pem: string, algorithm: Algorithm): Promise<CryptoKey> {
  let key = keyCache.get(pem);
  if (!key) {
    const der = Buffer.from(pem.replace(/-----[^-]+-----|\s+/g, ""), "base64");
    key = crypto.subtle.importKey("pkcs8", der, WEBCRYPTO[algorithm], false, ["sign"]);
    key.catch(() => keyCache.delete(pem));
    if (keyCache.size > 1000) keyCache.clear();
    keyCache.set(pem, key);
  }
  return key;
}

/**
 * Who makes the RSA signatures: the system's OpenSSL when it is clearly the faster here (see
 * openssl-rsa.ts), otherwise WebCrypto (Bun's BoringSSL, on a thread of its pool). Chosen at the
 * first signature (undefined until then) and kept for the life of the thread.
 */
let openssl: OpensslRsa | null | undefined;

/**
 * Times a few signatures with the key at hand by each library, alternately, and keeps OpenSSL
 * only when its best time is under 80 % of BoringSSL's (the node:crypto signer runs the same
 * BoringSSL code as WebCrypto): ~2× faster where the CPU has AVX-512 IFMA, slower where it has
 * not. A few milliseconds, once.
 */
function chooseRsaLibrary(pem: string): OpensslRsa | null | undefined {
  const lib = OpensslRsa.load();
  if (!lib) return null;
  const data = new Uint8Array(256);
  // A key OpenSSL cannot read decides nothing: this signature is WebCrypto's, the next key chooses.
  if (!lib.sign(pem, data)) return undefined;
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    return lib; // one BoringSSL cannot read: WebCrypto could not sign with it either
  }
  boringSslSign("sha256", data, key);
  const best = { openssl: Infinity, boringssl: Infinity };
  for (let i = 0; i < 5; i++) {
    let t = performance.now();
    lib.sign(pem, data);
    best.openssl = Math.min(best.openssl, performance.now() - t);
    t = performance.now();
    boringSslSign("sha256", data, key);
    best.boringssl = Math.min(best.boringssl, performance.now() - t);
  }
  if (best.openssl < 0.8 * best.boringssl) return lib;
  lib.close();
  return null;
}

/** For tests and scripts/bench/dkim.ts: sign with this library from now on ("auto": measure again at the next signature). */
export function useRsaLibrary(library: "openssl" | "webcrypto" | "auto"): void {
  openssl?.close();
  if (library === "auto") openssl = undefined;
  else if (library === "webcrypto") openssl = null;
  else if (!(openssl = OpensslRsa.load())) throw new Error("libcrypto.so.3 could not be loaded");
}

/** The library the RSA signatures come from, once the first one chose it. */
export function rsaLibrary(): string | null {
  return openssl === undefined ? null : openssl ? `OpenSSL (${openssl.version})` : "WebCrypto (BoringSSL)";
}

async function rsaSha256(pem: string, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  if (openssl === undefined) openssl = chooseRsaLibrary(pem);
  return openssl?.sign(pem, data) ?? new Uint8Array(await crypto.subtle.sign(WEBCRYPTO["rsa-sha256"].name, await signingKey(pem, "rsa-sha256"), data));
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
  // A body already in canonical form but for its trailing empty lines (what composing writes: CRLF
  // lines, base64 or quoted-printable without runs of blanks) is hashed from its bytes: as a string
  // a 35 MB body was three more copies of itself.
  if (!needsRelaxing(body)) {
    let end = body.length;
    while (end >= 2 && body[end - 1] === 10 && body[end - 2] === 13) end -= 2;
    while (end > 0 && body[end - 1] === 32) end--;
    return end > 0 ? createHash("sha256").update(body.subarray(0, end)).update("\r\n").digest("base64") : createHash("sha256").digest("base64");
  }
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
 * Whether relaxed canonicalization changes anything but the trailing empty lines: a bare LF, a
 * blank before a line break, a tab, or two blanks in a row (the regular expressions of
 * relaxedBodyHash, on the bytes).
 */
function needsRelaxing(body: Buffer): boolean {
  if (body.indexOf(9) !== -1 || body.indexOf("  ", 0, "latin1") !== -1 || body.indexOf(" \r\n", 0, "latin1") !== -1) return true;
  for (let i = body.indexOf(10); i !== -1; i = body.indexOf(10, i + 1)) if (i === 0 || body[i - 1] !== 13) return true;
  return false;
}

/** Whitespace as JavaScript's \s sees it in ASCII text. */
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);

/**
 * Folds a header line of ASCII text without line breaks at 76 characters, as libmime's
 * foldLines does (mailauth folds its DKIM-Signature lines with it): a line is cut before its last
 * run of whitespace, a word longer than the line is kept whole, and the next line starts with
 * the whitespace. Unfolding gives the text back unchanged, so the relaxed form is the same.
 */
export function foldHeaderLine(text: string, lineLength = 76): string {
  let pos = 0;
  let result = "";
  while (pos < text.length) {
    let end = pos + lineLength;
    // A rest of exactly lineLength is folded too, as libmime does.
    if (end > text.length) {
      result += text.slice(pos);
      break;
    }
    // The last whitespace run in the line, if something other than whitespace ends the line after it.
    let i = end - 1;
    while (i >= pos && !isSpace(text.charCodeAt(i))) i--;
    while (i > pos && isSpace(text.charCodeAt(i - 1))) i--;
    if (i > pos) end = i;
    else while (end < text.length && !isSpace(text.charCodeAt(end))) end++;
    result += text.slice(pos, end);
    pos = end;
    if (pos < text.length) result += "\r\n";
  }
  return result;
}

/**
 * The DKIM-Signature field, tags in the order mailauth writes them. Domain names are stored in
 * ASCII (normalizeDomainName) and selectors are ours, so d= and s= need no IDNA conversion.
 */
function signatureFieldValue(t: { a: Algorithm; d: string; h: string; s: string; t: number; bh: string }): string {
  return `v=1; a=${t.a}; c=relaxed/relaxed; d=${t.d}; h=${t.h}; q=dns/txt; s=${t.s}; t=${t.t}; bh=${t.bh}; b=`;
}

/**
 * Signs a composed message, relaxed/relaxed, and returns it with the DKIM-Signature headers
 * prepended: rsa-sha256 always, and ed25519-sha256 (RFC 8463) beside it when the key has an
 * Ed25519 half. Both sign the same header list with the same body hash; neither covers the
 * other. The signed headers are canonicalized by mailauth; the signature field is written here,
 * byte for byte as mailauth's formatter writes it (its two passes through the folding were
 * ~5 % of the event loop's time per message delivered): its relaxed form, hashed with the
 * headers, is the unfolded text with b= empty, since folding only breaks before whitespace.
 * RSA-2048 signs with OpenSSL on this thread where that is the faster library (~0.3 ms per
 * message on a CPU with AVX-512 IFMA), otherwise through WebCrypto, which Bun performs off the
 * JavaScript thread (~0.5–0.7 ms of a thread of its pool); Ed25519 always through WebCrypto (a
 * tenth of RSA's cost).
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
  const signedLines = Buffer.concat(lines.headers.map((line) => formatRelaxedLine(line.line, "\r\n")));
  const t = Math.floor(now.getTime() / 1000);
  const signature = async (algorithm: Algorithm, selector: string, pem: string): Promise<string> => {
    const value = signatureFieldValue({ a: algorithm, d: key.domain, h, s: selector, t, bh: bodyHash });
    const canonicalizedHeader = Buffer.concat([signedLines, Buffer.from(`dkim-signature:${value}`, "latin1")]);
    // RFC 8463 §3: Ed25519 signs the SHA-256 hash of the header data; RSASSA hashes it itself.
    const data = algorithm === "ed25519-sha256" ? createHash("sha256").update(canonicalizedHeader).digest() : canonicalizedHeader;
    const signed =
      algorithm === "rsa-sha256"
        ? await rsaSha256(pem, new Uint8Array(data))
        : new Uint8Array(await crypto.subtle.sign(WEBCRYPTO[algorithm].name, await signingKey(pem, algorithm), new Uint8Array(data)));
    const b = Buffer.from(signed.buffer, signed.byteOffset, signed.byteLength).toString("base64");
    // b= is folded by a space every 75 characters, as mailauth does; whitespace in b= is ignored.
    return foldHeaderLine(`DKIM-Signature: ${value.slice(0, -2)}${`b=${b}`.replace(/.{75}/g, "$& ").trim()}`) + "\r\n";
  };
  const ed = key.ed25519;
  const signatures = await Promise.all([
    ...(ed ? [signature("ed25519-sha256", ed.selector, ed.privateKeyPem)] : []),
    signature("rsa-sha256", key.selector, key.privateKeyPem),
  ]);
  return Buffer.concat([Buffer.from(signatures.join(""), "latin1"), raw]);
}

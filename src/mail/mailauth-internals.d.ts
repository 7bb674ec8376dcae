// Types for the parts of mailauth's DKIM implementation that src/mail/dkim.ts reuses (the package
// ships no declarations for them).
declare module "mailauth/lib/tools" {
  export interface ParsedHeaderLine {
    key: string;
    casedKey: string;
    line: Buffer;
  }
  export function parseHeaders(buf: Buffer): { parsed: ParsedHeaderLine[]; original: Buffer };
  export function getSigningHeaderLines(
    parsed: ParsedHeaderLine[],
    fieldNames?: string,
    verify?: boolean,
  ): { keys: string; headers: ParsedHeaderLine[] };
  /** RFC 6376 relaxed header canonicalization of one header line, `suffix` appended. */
  export function formatRelaxedLine(line: Buffer, suffix?: string): Buffer;
  export function formatSignatureHeaderLine(type: "DKIM" | "ARC" | "AS", values: Record<string, unknown>, folded?: boolean): string;
  export const defaultDKIMFieldNames: string;
}

declare module "mailauth/lib/dkim/header" {
  import type { getSigningHeaderLines } from "mailauth/lib/tools";
  export function generateCanonicalizedHeader(
    type: "DKIM" | "ARC",
    signingHeaderLines: ReturnType<typeof getSigningHeaderLines>,
    options: Record<string, unknown>,
  ): { canonicalizedHeader: Buffer; signatureHeaderLine: string; dkimHeaderOpts: Record<string, unknown> };
}

declare module "mailauth/lib/dkim/body" {
  export function dkimBody(
    canonicalization: string,
    algorithm: string,
    maxBodyLength: number | false,
  ): { update(chunk: Buffer): void; digest(encoding: "base64"): string };
}

// mailauth's checks, each from its own module (src/mail/libraries.ts, the tests' DKIM verdicts):
// the index's declarations.
declare module "mailauth/lib/dkim/verify" {
  export const dkimVerify: typeof import("mailauth").dkimVerify;
}
declare module "mailauth/lib/spf" {
  export const spf: typeof import("mailauth").spf;
}
declare module "mailauth/lib/arc" {
  export const arc: typeof import("mailauth").arc;
}
declare module "mailauth/lib/dmarc" {
  export const dmarc: typeof import("mailauth").dmarc;
}

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

declare module "mailauth/lib/dkim/verify" {
  export function dkimVerify(
    input: Buffer | string,
    options?: { resolver?: (name: string, rrtype: string) => Promise<unknown>; curTime?: Date },
  ): Promise<{ results: { status: { result: string; comment?: string }; signingDomain: string; selector: string; info?: string }[] }>;
}

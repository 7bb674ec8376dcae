// mailauth's DKIM message parser, whose scans src/smtp/mailauth-scan.ts replaces (the package
// ships no declarations for it).
declare module "mailauth/lib/dkim/message-parser" {
  export const MessageParser: { prototype: Record<string, unknown> };
}

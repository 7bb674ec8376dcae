/**
 * mailparser and mailauth take ~275 ms to load, most of the binary's start-up. They are loaded
 * on first use instead, so the API answers at once and only the first message received pays it.
 */
let mailparser: Promise<typeof import("mailparser")> | null = null;
let mailauthChecks: Promise<MailauthChecks> | null = null;

/** The four checks the inbound analysis runs (src/smtp/spam.ts). */
export type MailauthChecks = Pick<typeof import("mailauth"), "dkimVerify" | "spf" | "arc" | "dmarc">;

export const loadMailparser = () => (mailparser ??= import("mailparser"));

/**
 * mailauth's checks from their own modules rather than its index, which also loads BIMI (its VMC
 * certificates' X.509 and ASN.1 schemas, SVG validation), DKIM signing and the Received parser:
 * 91 of 207 modules, ~5 MB of RSS in the analysis worker, never used here.
 */
export const loadMailauth = () =>
  (mailauthChecks ??= Promise.all([
    import("mailauth/lib/dkim/verify"),
    import("mailauth/lib/spf"),
    import("mailauth/lib/arc"),
    import("mailauth/lib/dmarc"),
  ]).then(([{ dkimVerify }, { spf }, { arc }, { dmarc }]) => ({ dkimVerify, spf, arc, dmarc })));

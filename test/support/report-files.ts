/**
 * Report files made by the tests in the formats of the RFCs: DMARC aggregate reports (RFC 7489
 * Appendix C's XML schema), TLS reports (RFC 8460 §4, its example in §4.4), the mail that carries
 * them (RFC 7489 §7.2.1.1: gzip or zip attachment; RFC 8460 §5.3: application/tlsrpt+gzip), and
 * hostile files: a zip bomb, XML entity expansion, nested zips.
 */
import { crc32, deflateRawSync, constants } from "node:zlib";
import { gzipSync, zipSync } from "fflate";
import MailComposer from "nodemailer/lib/mail-composer";

export interface DmarcRow {
  ip: string;
  count: number;
  disposition?: "none" | "quarantine" | "reject";
  dkim: "pass" | "fail";
  spf: "pass" | "fail";
  headerFrom?: string;
  envelopeFrom?: string;
  /** auth_results: the raw SPF result for the envelope domain (default: as `spf`). */
  spfAuth?: string;
  dkimDomain?: string;
}

export interface DmarcReportSpec {
  org: string;
  email?: string;
  reportId: string;
  /** Seconds since the epoch. */
  begin: number;
  end: number;
  domain: string;
  p?: string;
  sp?: string;
  pct?: number;
  rows: DmarcRow[];
  /** DMARCbis' namespace on <feedback>. */
  namespace?: boolean;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** An aggregate report as RFC 7489 Appendix C describes it. */
export function dmarcXml(r: DmarcReportSpec): string {
  const records = r.rows
    .map(
      (x) => `  <record>
    <row>
      <source_ip>${x.ip}</source_ip>
      <count>${x.count}</count>
      <policy_evaluated>
        <disposition>${x.disposition ?? "none"}</disposition>
        <dkim>${x.dkim}</dkim>
        <spf>${x.spf}</spf>
      </policy_evaluated>
    </row>
    <identifiers>
      <header_from>${esc(x.headerFrom ?? r.domain)}</header_from>
      ${x.envelopeFrom ? `<envelope_from>${esc(x.envelopeFrom)}</envelope_from>` : ""}
    </identifiers>
    <auth_results>
      <dkim>
        <domain>${esc(x.dkimDomain ?? r.domain)}</domain>
        <selector>ph1</selector>
        <result>${x.dkim}</result>
      </dkim>
      <spf>
        <domain>${esc(x.envelopeFrom ?? r.domain)}</domain>
        <scope>mfrom</scope>
        <result>${x.spfAuth ?? x.spf}</result>
      </spf>
    </auth_results>
  </record>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8" ?>
<feedback${r.namespace ? ' xmlns="urn:ietf:params:xml:ns:dmarc-2.0"' : ""}>
  <version>1.0</version>
  <report_metadata>
    <org_name>${esc(r.org)}</org_name>
    <email>${esc(r.email ?? `noreply-dmarc-support@${r.org}`)}</email>
    <extra_contact_info>https://${esc(r.org)}/dmarc</extra_contact_info>
    <report_id>${esc(r.reportId)}</report_id>
    <date_range>
      <begin>${r.begin}</begin>
      <end>${r.end}</end>
    </date_range>
  </report_metadata>
  <policy_published>
    <domain>${esc(r.domain)}</domain>
    <adkim>r</adkim>
    <aspf>r</aspf>
    <p>${r.p ?? "none"}</p>
    <sp>${r.sp ?? r.p ?? "none"}</sp>
    <pct>${r.pct ?? 100}</pct>
  </policy_published>
${records}
</feedback>
`;
}

/** RFC 8460 §4.4's example report, for `domain` and `day` (YYYY-MM-DD). */
export function rfc8460Example(domain: string, day: string, reportId = "5065427c-23d3-47ca-b6e0-946ea0e8c4be") {
  return {
    "organization-name": "Company-X",
    "date-range": { "start-datetime": `${day}T00:00:00Z`, "end-datetime": `${day}T23:59:59Z` },
    "contact-info": "sts-reporting@company-x.example",
    "report-id": reportId,
    policies: [
      {
        policy: {
          "policy-type": "sts",
          "policy-string": ["version: STSv1", "mode: testing", `mx: *.mail.${domain}`, "max_age: 86400"],
          "policy-domain": domain,
          "mx-host": [`*.mail.${domain}`],
        },
        summary: { "total-successful-session-count": 5326, "total-failure-session-count": 303 },
        "failure-details": [
          {
            "result-type": "certificate-expired",
            "sending-mta-ip": "2001:db8:abcd:0012::1",
            "receiving-mx-hostname": `mx1.mail.${domain}`,
            "failed-session-count": 100,
          },
          {
            "result-type": "starttls-not-supported",
            "sending-mta-ip": "2001:db8:abcd:0013::1",
            "receiving-mx-hostname": `mx2.mail.${domain}`,
            "receiving-ip": "203.0.113.56",
            "failed-session-count": 200,
            "additional-information": "https://reports.company-x.example/report_info?id=5065427c-23d3#StarttlsNotSupported",
          },
          {
            "result-type": "validation-failure",
            "sending-mta-ip": "198.51.100.62",
            "receiving-ip": "203.0.113.58",
            "receiving-mx-hostname": `mx-backup.mail.${domain}`,
            "failed-session-count": 3,
            "failure-reason-code": "X509_V_ERR_PROOF_OF_POSSESSION",
          },
        ],
      },
    ],
  };
}

/** A report mail: the file attached as receivers send it. */
export function reportMail(opts: { from?: string; to: string; subject?: string; filename: string; contentType: string; content: Uint8Array | string }): Promise<Buffer> {
  return new MailComposer({
    from: opts.from ?? "noreply-dmarc-support@google.com",
    to: opts.to,
    subject: opts.subject ?? `Report Domain: example Submitter: google.com Report-ID: ${Date.now()}`,
    text: "This is an aggregate report.",
    attachments: [{ filename: opts.filename, contentType: opts.contentType, content: Buffer.from(opts.content as Uint8Array) }],
  })
    .compile()
    .build();
}

export const gz = (s: string | Uint8Array) => gzipSync(typeof s === "string" ? new TextEncoder().encode(s) : s);
export const zipOf = (name: string, s: string | Uint8Array) => zipSync({ [name]: typeof s === "string" ? new TextEncoder().encode(s) : s });

/**
 * A zip of one file `name` that inflates to `gib` GiB of zeros, about 1 MB on disk: a deflate
 * stream of one 1 MiB block of zeros, full-flushed (byte-aligned, no history), repeated, then an
 * empty final block; the headers carry the true sizes and CRC.
 */
export function zipBomb(name = "report.xml", gib = 1): Buffer {
  const mib = Buffer.alloc(1 << 20);
  const block = deflateRawSync(mib, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const n = 1024 * gib;
  const data = Buffer.concat([...Array.from({ length: n }, () => block), Buffer.from([0x03, 0x00])]);
  let crc = 0;
  for (let i = 0; i < n; i++) crc = crc32(mib, crc);
  const size = n * mib.length;
  const fname = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0, 6);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(0, 10);
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(size >>> 0, 22);
  local.writeUInt16LE(fname.length, 26);
  local.writeUInt16LE(0, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(0, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(0, 12);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(size >>> 0, 24);
  central.writeUInt16LE(fname.length, 28);
  central.writeUInt32LE(0, 42);
  const cdOffset = local.length + fname.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fname.length, 12);
  end.writeUInt32LE(cdOffset, 16);
  return Buffer.concat([local, fname, data, central, fname, end]);
}

/** A "billion laughs": ten levels of entities, each ten of the one below (10^9 "lol"s if expanded). */
export function billionLaughs(): string {
  const lines = ['<?xml version="1.0"?>', "<!DOCTYPE feedback [", '  <!ENTITY lol0 "lol">'];
  for (let i = 1; i <= 9; i++) lines.push(`  <!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
  lines.push("]>", "<feedback><report_metadata><org_name>&lol9;</org_name></report_metadata></feedback>");
  return lines.join("\n");
}

/** A zip nested `levels` deep around a small report. */
export function nestedZip(inner: string, levels = 10): Uint8Array {
  let data: Uint8Array = new TextEncoder().encode(inner);
  for (let i = 0; i < levels; i++) data = zipSync({ [i === 0 ? "report.xml" : `level${i}.zip`]: data });
  return data;
}

/** XML nested far deeper than a report ever is. */
export function deepXml(depth = 100_000): string {
  return `<feedback>${"<a>".repeat(depth)}x${"</a>".repeat(depth)}</feedback>`;
}

import { t, type Static } from "elysia";

const Nullable = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Union([s, t.Null()]);
const DAY = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";

export const DeliverabilityParams = t.Object({ domainId: t.String({ maxLength: 100 }) });

export const PeriodQuery = t.Object({
  from: t.Optional(t.String({ pattern: DAY, error: "The from field must be a date (YYYY-MM-DD)." })),
  to: t.Optional(t.String({ pattern: DAY, error: "The to field must be a date (YYYY-MM-DD)." })),
});

const Counts = {
  messages: t.Integer({ description: "Messages the reports counted" }),
  spf_aligned: t.Integer({ description: "Messages whose SPF passed and aligned with the From domain (policy_evaluated spf=pass)" }),
  dkim_aligned: t.Integer({ description: "Messages with an aligned passing DKIM signature (policy_evaluated dkim=pass)" }),
  dmarc_pass: t.Integer({ description: "Messages that passed DMARC (aligned SPF or DKIM)" }),
  spf_rate: Nullable(t.Number({ description: "spf_aligned / messages (0 to 1); null with no messages" })),
  dkim_rate: Nullable(t.Number({ description: "dkim_aligned / messages" })),
  dmarc_rate: Nullable(t.Number({ description: "dmarc_pass / messages" })),
  quarantined: t.Integer({ description: "Messages the receiver quarantined (disposition quarantine)" }),
  rejected: t.Integer({ description: "Messages the receiver rejected (disposition reject)" }),
};

export const SourceSchema = t.Object({ source_ip: t.String(), ...Counts });

export const ReporterDaySchema = t.Object({
  org_name: t.String({ description: "The reporting organization (the receiver: google.com, Yahoo, Microsoft …)" }),
  ours: t.Object(Counts, { description: "Mail from Posthorn's sending addresses (our_addresses)" }),
  elsewhere: t.Object({ ...Counts, sources: t.Array(SourceSchema, { description: "Each other source IP, the most messages first" }) }, {
    description: "Mail from every other address: services sending for the domain that Posthorn does not know, or spoofing",
  }),
});

export const AdviceSchema = t.Object({
  kind: t.String({ description: "spf_fails | dkim_fails | unknown_source | tighten_policy" }),
  source_ip: Nullable(t.String()),
  messages: t.Integer({ description: "Messages the advice is about" }),
  message: t.String({ description: "What failed and the fix, in words" }),
});

export const ReportAddressesSchema = t.Object({
  dmarc: t.String({ description: "Where the domain's DMARC aggregate reports go: the rua=mailto: of its DMARC record" }),
  tls_rpt: t.String({ description: "Where its TLS reports go: the rua=mailto: of its _smtp._tls record" }),
  authorization_record: Nullable(
    t.Object(
      {
        type: t.String(),
        fqdn: t.String({ description: "<domain>._report._dmarc.<report domain>" }),
        wildcard: t.String({ description: "*._report._dmarc.<report domain>: one record for every domain" }),
        content: t.String(),
      },
      { description: "RFC 7489 §7.1: the record the operator publishes on the report domain (POSTHORN_INBOUND_DOMAIN) so receivers send reports there" },
    ),
  ),
});

const OwnSends = t.Object(
  {
    sent: t.Integer({ description: "Messages Posthorn sent from the domain (statistics: sent)" }),
    delivered: t.Integer({ description: "Recipients a receiver accepted (statistics: delivered): what the reporters' counts of our addresses are about" }),
  },
  { description: "What Posthorn itself sent from the domain in the period or that day, beside what the reports say" },
);

export const DmarcOverviewSchema = t.Object({
  domain: t.String(),
  from: t.String(),
  to: t.String(),
  reports: t.Integer({ description: "DMARC aggregate reports received for the period" }),
  policy: Nullable(t.String({ description: "The p= of the latest report's policy_published" })),
  our_addresses: t.Array(t.String(), { description: "The addresses Posthorn sends from: POSTHORN_SENDING_ADDRESSES and those outbound connections were made from" }),
  report_addresses: ReportAddressesSchema,
  total: t.Object({ ours: t.Object(Counts), elsewhere: t.Object(Counts) }),
  posthorn: OwnSends,
  days: t.Array(
    t.Object({
      date: t.String(),
      posthorn: OwnSends,
      reporters: t.Array(ReporterDaySchema),
    }),
    { description: "Each UTC day with reports or with mail Posthorn sent from the domain, oldest first" },
  ),
  advice: t.Array(AdviceSchema),
});
export type DmarcOverview = Static<typeof DmarcOverviewSchema>;

const FailureSchema = t.Object({ mx_host: t.String({ description: "The receiving MX host; empty when the report names none" }), result_type: t.String(), sessions: t.Integer() });

export const TlsOverviewSchema = t.Object({
  domain: t.String(),
  from: t.String(),
  to: t.String(),
  reports: t.Integer({ description: "TLS reports received for the period" }),
  days: t.Array(
    t.Object({
      date: t.String(),
      reporters: t.Array(
        t.Object({
          org_name: t.String(),
          policies: t.Array(
            t.Object({
              policy_type: t.String({ description: "sts | tlsa | no-policy-found" }),
              policy_domain: t.String(),
              successful: t.Integer({ description: "Sessions that negotiated TLS as the policy asks" }),
              failed: t.Integer({ description: "Sessions that failed (total-failure-session-count)" }),
              failures: t.Array(FailureSchema),
            }),
          ),
        }),
      ),
    }),
  ),
  by_mx: t.Array(
    t.Object({ mx_host: t.String(), failed: t.Integer(), result_types: t.Array(t.Object({ result_type: t.String(), sessions: t.Integer() })) }),
    { description: "Failed sessions per receiving MX host over the period, with their result types (RFC 8460 §4.3)" },
  ),
  advice: t.Array(AdviceSchema, { description: "Per MX host and result type the failed sessions and the fix, the most first; kind is the result type" }),
  own: t.Array(
    t.Object({
      date: t.String(),
      mx_host: t.Union([t.String(), t.Null()], { description: "The MX host that answered; null for attempts refused for want of TLS before any MX answered" }),
      verified_tls: t.Integer({ description: "Attempts over TLS with a certificate valid for the MX name" }),
      unverified_tls: t.Integer({ description: "Attempts over STARTTLS without a valid certificate" }),
      plaintext: t.Integer({ description: "Attempts without TLS" }),
      tls_failures: t.Integer({ description: "Attempts not made for want of TLS (enforced TLS or MTA-STS enforce; enhanced code 4.7.5)" }),
    }),
    { description: "Posthorn's own delivery attempts of the domain's mail per UTC day of the period and MX host, by the TLS they used" },
  ),
});
export type TlsOverview = Static<typeof TlsOverviewSchema>;

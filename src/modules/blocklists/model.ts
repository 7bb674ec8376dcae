import { t, type Static } from "elysia";
import { Nullable } from "../../http/schemas.ts";

export const BlocklistEntry = t.Object({
  target: t.String({ description: "A sending IP address or one of the team's verified domains" }),
  type: t.String({ description: "ip | domain" }),
  zone: t.String({ description: "The DNSBL (addresses) or URIBL/DBL (domains) zone it was looked up in" }),
  status: t.String({ description: "listed | clear | error (the list refused the query or did not answer: says nothing either way)" }),
  listed: t.Boolean(),
  code: Nullable(t.String({ description: "The answer (127.0.0.x) while listed, or a refusal's (127.255.255.254 …); null when clear" })),
  meaning: Nullable(t.String({ description: "What the list documents the answer to mean" })),
  since: t.String({ format: "date-time", description: "Since when the target has been listed, or not listed" }),
  checked_at: t.String({ format: "date-time" }),
});

export const BlocklistStatusData = t.Object({
  interval_seconds: t.Integer({ description: "Time between two checks (POSTHORN_BLOCKLIST_INTERVAL; 0: checks are off)" }),
  ip_zones: t.Array(t.String(), { description: "POSTHORN_BLOCKLIST_IP_ZONES" }),
  domain_zones: t.Array(t.String(), { description: "POSTHORN_BLOCKLIST_DOMAIN_ZONES" }),
  listed: t.Integer({ description: "Entries listed now" }),
  data: t.Array(BlocklistEntry, { description: "The server's sending addresses (shared by every team) and the team's domains, each per zone; listed first" }),
});
export type BlocklistStatusData = Static<typeof BlocklistStatusData>;

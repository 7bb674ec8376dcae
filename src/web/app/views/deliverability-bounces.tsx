/**
 * Each sending domain's bounces of the last 30 days by recipient provider family × bounce class,
 * on the Deliverability page (issue 47's "the bounce classes by provider"): POST /v1/analytics
 * filtered on the sending domain, grouped by provider_family and bounce_classification, drawn
 * with the overview's horizontal bars (chart.tsx). Shown only to a member whose role holds the
 * permission POST /v1/analytics declares (analytics:read; src/web/app/allowed.ts).
 */
import { api, type ApiBody, type ApiRequest } from "../api.ts";
import { useAllowed } from "../allowed.ts";
import { HBarChart, type HBar } from "../chart.tsx";
import { ListStatus, Section, useLoad } from "../ui.tsx";

type Analytics = ApiBody<"/v1/analytics", "post">;
type AnalyticsQuery = ApiRequest<"/v1/analytics">;

const DAY = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Series colours by bounce class, in order of first appearance. */
const PALETTE = ["#b3261e", "#e3a008", "#7b2cbf", "#17a2b8", "#1f5fbf", "#1e7a3c", "#9aa5b1", "#c2185b"];

export function DeliverabilityBounces() {
  const allowed = useAllowed();
  const domains = useLoad(() => api.get<ApiBody<"/v1/domains">>("/v1/domains", { "page[size]": 100 }), []);
  if (!allowed("POST /v1/analytics")) return null;
  return (
    <Section title="Bounces by provider (last 30 days)">
      <ListStatus list={domains} />
      {(domains.data?.data ?? []).map((d) => (
        <BouncesOf key={d.id} domain={d.domain} />
      ))}
    </Section>
  );
}

function BouncesOf({ domain }: { domain: string }) {
  const today = Date.parse(dateOf(Date.now()));
  const from = dateOf(today - 29 * DAY);
  const to = dateOf(today);
  const query: AnalyticsQuery = {
    metrics: ["hard_bounced", "soft_bounced"],
    from,
    to,
    include: ["breakdown"],
    group_by: ["provider_family", "bounce_classification"],
    filters: [
      { dimension: "sending_domain", operator: "eq", values: [domain] },
      { dimension: "bounce_classification", operator: "is_not_null" },
    ],
    limit: 200,
  };
  const res = useLoad(() => api.post<Analytics>("/v1/analytics", query), [domain, from, to]);
  const rows = res.data?.data.breakdown ?? [];
  const classes: string[] = [];
  const groups = new Map<string, HBar>();
  for (const row of rows) {
    const provider = row.dimensions.provider_family ?? "other";
    const cls = row.dimensions.bounce_classification ?? "unclassified";
    const hard = row.metrics.hard_bounced ?? 0;
    const soft = row.metrics.soft_bounced ?? 0;
    if (hard + soft === 0) continue;
    if (!classes.includes(cls)) classes.push(cls);
    const q = new URLSearchParams({ "filter[type]": "outbound", "filter[from_date]": from, "filter[to_date]": to });
    if (soft === 0) q.set("filter[status]", "hard_bounced");
    else if (hard === 0) q.set("filter[status]", "soft_bounced");
    const g = groups.get(provider) ?? { label: provider, values: {} };
    g.values[cls] = { value: hard + soft, href: `#/messages?${q}` };
    groups.set(provider, g);
  }
  const series = classes.map((key, i) => ({ key, label: key.replaceAll("_", " "), color: PALETTE[i % PALETTE.length]! }));
  return (
    <div class="domain-bounces" data-domain={domain}>
      <h3>{domain}</h3>
      <ListStatus list={res} />
      {res.data ? <HBarChart title={`Bounces of ${domain} by provider and class`} groups={[...groups.values()]} series={series} /> : null}
    </div>
  );
}

import { useState } from "preact/hooks";
import { api, ApiError, type ApiBody, type ApiRequest } from "../api.ts";
import { BarChart, HBarChart, RateChart, type HBar, type Series } from "../chart.tsx";
import { ErrorBox, Field, Loading, Section, useLoad } from "../ui.tsx";

type RouteStats = NonNullable<ApiBody<"/v1/routes/{routeId}">["statistics"]>;

/** The figures of one route's last 28 days: messages by status, and tracking hits by people and by machines. */
const figures = (s: RouteStats) => {
  const by = s.messages_by_status;
  const n = (...keys: (keyof typeof by)[]) => keys.reduce((sum, k) => sum + (by[k] ?? 0), 0);
  return {
    sent: s.messages_total,
    delivered: n("delivered", "opened", "clicked", "unsubscribed", "spam_complaint"),
    bounced: n("soft_bounced", "hard_bounced"),
    complained: n("spam_complaint"),
    opened: n("opened", "clicked"),
    opens_human: s.opens_human,
    clicks_human: s.clicks_human,
    opens_machine: s.opens_machine,
    clicks_machine: s.clicks_machine,
  };
};
type Figures = ReturnType<typeof figures>;
/** Columns and their headings: people's opens and clicks stand with the message figures, machines' are labelled apart. */
const COLUMNS: [keyof Figures, string][] = [
  ["sent", "Sent"],
  ["delivered", "Delivered"],
  ["bounced", "Bounced"],
  ["complained", "Complained"],
  ["opened", "Opened"],
  ["opens_human", "Opens"],
  ["clicks_human", "Clicks"],
  ["opens_machine", "Machine opens"],
  ["clicks_machine", "Machine clicks"],
];
const MACHINE: Partial<Record<keyof Figures, keyof Figures>> = { opens_human: "opens_machine", clicks_human: "clicks_machine" };

/** Every route's statistics at once (the project list already names the routes). */
async function loadOverview() {
  const projects = await api.get<ApiBody<"/v1/projects">>("/v1/projects", { "page[size]": 100 });
  const routes = projects.data.flatMap((project) => project.routes.map((route) => ({ project, route })));
  const stats = await Promise.all(routes.map(({ route }) => api.get<ApiBody<"/v1/routes/{routeId}">>(`/v1/routes/${route.id}`, { include: "statistics" })));
  // statistics is optional in the document: answered when asked for (include=statistics), as here.
  return routes.map((r, i) => ({ ...r, figures: figures(stats[i]!.statistics!) }));
}

/** Queue depth and dead jobs per queue, from /metrics (this server's, all teams); "refused" when /metrics does not answer this browser's address (docs/install.md). */
async function queueFigures(): Promise<{ queue: string; pending: number; dead: number }[] | "refused"> {
  let text = "";
  try {
    text = await api.text("/metrics");
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return "refused";
  }
  const out = new Map<string, { queue: string; pending: number; dead: number }>();
  for (const m of text.matchAll(/^posthorn_jobs_(pending|dead)\{[^}]*queue="([^"]+)"[^}]*\} (\d+)$/gm)) {
    const q = out.get(m[2]!) ?? { queue: m[2]!, pending: 0, dead: 0 };
    q[m[1] as "pending" | "dead"] = Number(m[3]);
    out.set(q.queue, q);
  }
  return [...out.values()];
}

export function Overview() {
  const { data, error, loading } = useLoad(loadOverview, []);
  if (loading && !data) return <Loading />;
  if (error) return <ErrorBox error={error} />;
  const rows = data!;
  const total = Object.fromEntries(COLUMNS.map(([c]) => [c, rows.reduce((sum, r) => sum + r.figures[c], 0)])) as Figures;
  return (
    <>
      <StatsCharts />
      <Section title="Last 28 days">
        <div class="tiles">
          {COLUMNS.filter(([c]) => !c.endsWith("_machine")).map(([c, label]) => {
            const machine = MACHINE[c];
            return (
              <div class="tile" key={c}>
                <span class="tile-value" data-figure={c}>
                  {total[c].toLocaleString()}
                </span>
                <span class="tile-label">{machine ? `${label} by people` : label}</span>
                {machine ? (
                  <span class="tile-note" data-figure={machine}>
                    + {total[machine].toLocaleString()} by machines
                  </span>
                ) : null}
              </div>
            );
          })}
        </div>
        <table>
          <caption>By route (opens and clicks: tracking hits on the period's messages; machines: privacy proxies, link scanners, prefetch)</caption>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Route</th>
              {COLUMNS.map(([c, label]) => (
                <th scope="col" class={`num${c.endsWith("_machine") ? " machine" : ""}`} key={c}>
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.route.id}>
                <td>{r.project.name}</td>
                <td>
                  <a href={`#/messages?filter[route_id]=${r.route.id}`}>{r.route.name}</a> <span class="muted">{r.route.route_type}</span>
                </td>
                {COLUMNS.map(([c]) => (
                  <td class={`num${c.endsWith("_machine") ? " machine" : ""}`} key={c}>
                    {r.figures[c].toLocaleString()}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Queues />
    </>
  );
}

/** The server's queues, asked for once the figures show (/metrics counts every message too, which takes a while over millions). */
function Queues() {
  const { data: queues } = useLoad(queueFigures, []);
  return (
    <Section title="Queues (this server)">
      <table>
        <thead>
          <tr>
            <th scope="col">Queue</th>
            <th scope="col" class="num">
              Depth
            </th>
            <th scope="col" class="num">
              Dead jobs
            </th>
          </tr>
        </thead>
        <tbody>
          {queues === "refused" ? (
            <tr>
              <td colSpan={3} class="muted">
                Not shown here: the server's metrics answer its own and private networks only.
              </td>
            </tr>
          ) : !queues || queues.length === 0 ? (
            <tr>
              <td colSpan={3} class="muted">
                {queues ? "Empty." : "Loading…"}
              </td>
            </tr>
          ) : (
            queues.map((q) => (
              <tr key={q.queue}>
                <td>{q.queue}</td>
                <td class="num">{q.pending}</td>
                <td class={`num${q.dead ? " bad" : ""}`}>{q.dead}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </Section>
  );
}

// ---------------------------------------------------------------------------------------------
// Charts of a period (docs/dashboard.md): GET /v1/stats for the daily volume, POST /v1/analytics
// for soft bounces, opens and clicks by verdict, the delivery rate and the breakdowns.

type Stats = ApiBody<"/v1/stats">;
type Analytics = ApiBody<"/v1/analytics", "post">;
type AnalyticsQuery = ApiRequest<"/v1/analytics">;

const DAY = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The longest window the picker offers (the analytics query's own limit). */
const MAX_DAYS = 90;
const PRESETS = [7, 30, 90] as const;

/** A period: the last n days up to today (UTC), or from..to (dates, inclusive). */
type Period = { days: number } | { from: string; to: string };
const windowOf = (p: Period): { from: string; to: string } => {
  if ("from" in p) return p;
  const today = Date.parse(dateOf(Date.now()));
  return { from: dateOf(today - (p.days - 1) * DAY), to: dateOf(today) };
};
const datesOf = (from: string, to: string): string[] => {
  const out: string[] = [];
  for (let d = Date.parse(from); d <= Date.parse(to) && out.length <= 400; d += DAY) out.push(dateOf(d));
  return out;
};

const COLORS = {
  sent: "#1f5fbf",
  delivered: "#1e7a3c",
  soft_bounced: "#e3a008",
  hard_bounced: "#b3261e",
  complained: "#7b2cbf",
  human: "#1f5fbf",
  privacy: "#17a2b8",
  machine: "#9aa5b1",
  rate: "#1e7a3c",
};

const VERDICT_METRICS = ["human_opens", "privacy_opens", "machine_opens", "human_clicks", "privacy_clicks", "machine_clicks"];
const PROVIDER_METRICS = ["sent", "delivered", "soft_bounced", "hard_bounced", "complained"];
const BOUNCE_METRICS = ["hard_bounced", "soft_bounced"];

/** The period's figures, or why the session may not see them (a role without stats:read or analytics:read). */
async function loadCharts(from: string, to: string): Promise<{ stats: Stats; series: Analytics; providers: Analytics; bounces: Analytics } | { forbidden: string }> {
  const analytics = (q: Omit<AnalyticsQuery, "from" | "to">) => api.post<Analytics>("/v1/analytics", { ...q, from, to });
  try {
    const [stats, series, providers, bounces] = await Promise.all([
      api.get<Stats>("/v1/stats", { from, to }),
      analytics({ metrics: ["soft_bounced", ...VERDICT_METRICS, "delivery_rate"], include: ["time_series"], interval: "day" }),
      analytics({ metrics: PROVIDER_METRICS, include: ["breakdown"], group_by: ["provider_family"], limit: 20 }),
      analytics({ metrics: BOUNCE_METRICS, include: ["breakdown"], group_by: ["bounce_classification"], filters: [{ dimension: "bounce_classification", operator: "is_not_null" }], limit: 20 }),
    ]);
    return { stats, series, providers, bounces };
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return { forbidden: err.message };
    throw err;
  }
}

/** The messages list of the period (outbound, created from..to) with a status, where there is one for the figure. */
const messagesLink = (from: string, to: string, status?: string) => {
  const q = new URLSearchParams({ "filter[type]": "outbound", "filter[from_date]": from, "filter[to_date]": to });
  if (status) q.set("filter[status]", status);
  return `#/messages?${q}`;
};
const STATUS_OF: Record<string, string | undefined> = { delivered: "delivered", soft_bounced: "soft_bounced", hard_bounced: "hard_bounced", complained: "spam_complaint" };

function PeriodPicker({ period, onChange }: { period: Period; onChange: (p: Period) => void }) {
  const shown = windowOf(period);
  const [from, setFrom] = useState(shown.from);
  const [to, setTo] = useState(shown.to);
  const [error, setError] = useState<string | null>(null);
  const apply = (e: Event) => {
    e.preventDefault();
    const a = Date.parse(from);
    const b = Date.parse(to);
    if (!Number.isFinite(a) || !Number.isFinite(b)) return setError("Give both dates.");
    if (b < a) return setError("The end date must not be before the start date.");
    if ((b - a) / DAY + 1 > MAX_DAYS) return setError(`A period is at most ${MAX_DAYS} days.`);
    setError(null);
    onChange({ from, to });
  };
  return (
    <form class="filters period" onSubmit={apply} aria-label="Period" style="display:flex;flex-wrap:wrap;gap:0.5rem;align-items:flex-end">
      <div role="group" aria-label="Last days" style="display:flex;gap:0.25rem">
        {PRESETS.map((n) => (
          <button
            type="button"
            key={n}
            class={"days" in period && period.days === n ? "primary small" : "small"}
            aria-pressed={"days" in period && period.days === n}
            onClick={() => {
              const w = windowOf({ days: n });
              setFrom(w.from);
              setTo(w.to);
              setError(null);
              onChange({ days: n });
            }}
          >
            {n} days
          </button>
        ))}
      </div>
      <Field label="From" type="date" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
      <Field label="To" type="date" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
      <button type="submit" class="small">
        Show
      </button>
      <ErrorBox error={error} />
    </form>
  );
}

export function StatsCharts() {
  const [period, setPeriod] = useState<Period>({ days: 30 });
  const { from, to } = windowOf(period);
  const { data, error, loading } = useLoad(() => loadCharts(from, to), [from, to]);
  const title = "days" in period ? `Last ${period.days} days` : `${from} to ${to}`;
  return (
    <Section title={`Statistics: ${title}`} actions={<PeriodPicker period={period} onChange={setPeriod} />}>
      {loading && !data ? <Loading /> : null}
      <ErrorBox error={error} />
      {data && "forbidden" in data ? (
        <p class="muted" data-stats="forbidden">
          Your role does not include the statistics permissions (stats:read, analytics:read): {data.forbidden}
        </p>
      ) : data ? (
        <Charts from={from} to={to} {...data} />
      ) : null}
    </Section>
  );
}

function Charts({ from, to, stats, series, providers, bounces }: { from: string; to: string; stats: Stats; series: Analytics; providers: Analytics; bounces: Analytics }) {
  const dates = datesOf(from, to);
  const daily = new Map(stats.daily.map((d) => [d.date, d]));
  const points = new Map((series.data.time_series ?? []).map((p) => [p.from.slice(0, 10), p.metrics]));
  const day = (key: "sent" | "delivered" | "hard_bounced" | "spam_complaints") => dates.map((d) => daily.get(d)?.[key] ?? 0);
  const metric = (m: string) => dates.map((d) => points.get(d)?.[m] ?? 0);
  const volume: Series[] = [
    { key: "sent", label: "Sent", color: COLORS.sent, values: day("sent") },
    { key: "delivered", label: "Delivered", color: COLORS.delivered, values: day("delivered") },
    { key: "soft_bounced", label: "Soft bounced (deferred)", color: COLORS.soft_bounced, values: metric("soft_bounced") },
    { key: "hard_bounced", label: "Hard bounced", color: COLORS.hard_bounced, values: day("hard_bounced") },
    { key: "complained", label: "Complaints", color: COLORS.complained, values: day("spam_complaints") },
  ];
  const verdicts = (kind: "opens" | "clicks"): Series[] => [
    { key: `human_${kind}`, label: "People", color: COLORS.human, values: metric(`human_${kind}`) },
    { key: `privacy_${kind}`, label: "Privacy proxies", color: COLORS.privacy, values: metric(`privacy_${kind}`) },
    { key: `machine_${kind}`, label: "Machines", color: COLORS.machine, values: metric(`machine_${kind}`) },
  ];
  const rate: Series[] = [{ key: "delivery_rate", label: "Delivered of final outcomes", color: COLORS.rate, values: dates.map((d) => points.get(d)?.delivery_rate ?? null) }];
  const groupsOf = (a: Analytics, dim: string, metrics: string[]): HBar[] =>
    (a.data.breakdown ?? []).map((row) => ({
      label: row.dimensions[dim] ?? "none",
      values: Object.fromEntries(metrics.map((m) => [m, { value: row.metrics[m] ?? 0, href: messagesLink(from, to, STATUS_OF[m]) }])),
    }));
  const named = (metrics: string[]) => metrics.map((m) => volume.find((s) => s.key === m)!).map(({ key, label, color }) => ({ key, label, color }));
  return (
    <>
      <BarChart title="Sent, delivered, bounced and complaints per day" dates={dates} series={volume} />
      <BarChart title="Opens by verdict (recipients' first open of each kind)" dates={dates} series={verdicts("opens")} stacked />
      <BarChart title="Clicks by verdict (recipients' first click of each kind)" dates={dates} series={verdicts("clicks")} stacked />
      <RateChart title="Deliverability rate" dates={dates} series={rate} />
      <HBarChart title="By recipient provider" groups={groupsOf(providers, "provider_family", PROVIDER_METRICS)} series={named(PROVIDER_METRICS)} />
      <HBarChart title="Bounces by reason" groups={groupsOf(bounces, "bounce_classification", BOUNCE_METRICS)} series={named(BOUNCE_METRICS)} />
      <p class="muted">
        A bar opens the period's outbound messages with that outcome; the messages list does not filter by provider or bounce reason, so it lists every
        provider's (every reason's) messages of that status. Days and periods are UTC; figures count recipients, by the time each event happened.
      </p>
    </>
  );
}

import { api, type ApiBody } from "../api.ts";
import { ErrorBox, Loading, Section, useLoad } from "../ui.tsx";

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

/** Queue depth and dead jobs per queue, from /metrics (this server's, all teams). */
async function queueFigures(): Promise<{ queue: string; pending: number; dead: number }[]> {
  const text = await api.text("/metrics").catch(() => "");
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
          {!queues || queues.length === 0 ? (
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

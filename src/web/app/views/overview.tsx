import { api, type Page } from "../api.ts";
import { ErrorBox, Loading, Section, useLoad } from "../ui.tsx";

interface Project {
  id: string;
  name: string;
}
interface RouteRow {
  id: string;
  name: string;
  slug: string;
  route_type: string;
}
interface RouteStats {
  messages_total: number;
  messages_by_status: Record<string, number>;
  deliverability: number;
}

/** The figures of one route's last 28 days, from its message statuses. */
const figures = (s: RouteStats) => {
  const by = s.messages_by_status;
  const n = (...keys: string[]) => keys.reduce((sum, k) => sum + (by[k] ?? 0), 0);
  return {
    sent: s.messages_total,
    delivered: n("delivered", "opened", "clicked", "unsubscribed", "spam_complaint"),
    bounced: n("soft_bounced", "hard_bounced"),
    complained: n("spam_complaint"),
    opened: n("opened", "clicked"),
  };
};
type Figures = ReturnType<typeof figures>;
const COLUMNS: (keyof Figures)[] = ["sent", "delivered", "bounced", "complained", "opened"];

async function loadOverview() {
  const projects = await api.get<Page<Project>>("/v1/projects", { "page[size]": 100 });
  const rows: { project: Project; route: RouteRow; figures: Figures }[] = [];
  for (const project of projects.data) {
    const routes = await api.get<Page<RouteRow>>(`/v1/projects/${project.id}/routes`, { "page[size]": 100 });
    const stats = await Promise.all(routes.data.map((r) => api.get<{ statistics: RouteStats }>(`/v1/routes/${r.id}`, { include: "statistics" })));
    routes.data.forEach((route, i) => rows.push({ project, route, figures: figures(stats[i]!.statistics) }));
  }
  return { rows, queues: await queueFigures() };
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
  const { rows, queues } = data!;
  const total = Object.fromEntries(COLUMNS.map((c) => [c, rows.reduce((sum, r) => sum + r.figures[c], 0)])) as Figures;
  return (
    <>
      <Section title="Last 28 days">
        <div class="tiles">
          {COLUMNS.map((c) => (
            <div class="tile" key={c}>
              <span class="tile-value" data-figure={c}>
                {total[c].toLocaleString()}
              </span>
              <span class="tile-label">{c}</span>
            </div>
          ))}
        </div>
        <table>
          <caption>By route</caption>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Route</th>
              {COLUMNS.map((c) => (
                <th scope="col" class="num" key={c}>
                  {c}
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
                {COLUMNS.map((c) => (
                  <td class="num" key={c}>
                    {r.figures[c].toLocaleString()}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
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
            {queues.length === 0 ? (
              <tr>
                <td colSpan={3} class="muted">
                  Empty.
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
    </>
  );
}

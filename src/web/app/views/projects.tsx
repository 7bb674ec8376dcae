import { useState } from "preact/hooks";
import { useAllowed } from "../allowed.ts";
import { api, type ApiBody, type ApiItem, type ApiRequest } from "../api.ts";
import { type Actions, Field, go, ListStatus, Section, ShownOnce, useActions, useLoad } from "../ui.tsx";

type Project = ApiItem<"/v1/projects">;
type RouteRow = ApiItem<"/v1/projects/{projectId}/routes">;
type RouteType = ApiRequest<"/v1/projects/{projectId}/routes">["route_type"];

/** Every route of every project, for pickers. */
export async function allRoutes(): Promise<(RouteRow & { project_name: string })[]> {
  const projects = await api.get<ApiBody<"/v1/projects">>("/v1/projects", { "page[size]": 100 });
  const out: (RouteRow & { project_name: string })[] = [];
  for (const p of projects.data) {
    const routes = await api.get<ApiBody<"/v1/projects/{projectId}/routes">>(`/v1/projects/${p.id}/routes`, { "page[size]": 100 });
    out.push(...routes.data.map((r) => ({ ...r, project_name: p.name })));
  }
  return out;
}

export function Projects() {
  const list = useLoad(() => api.get<ApiBody<"/v1/projects">>("/v1/projects", { "page[size]": 100 }), []);
  const [name, setName] = useState("");
  const [token, setToken] = useState<{ label: string; value: string } | null>(null);
  const { error, run: act } = useActions(list.reload);
  // Each action only with the permission its operation declares (src/web/app/allowed.ts).
  const allowed = useAllowed();
  const create = (e: Event) => {
    e.preventDefault();
    return act(async () => {
      const res = await api.post<ApiBody<"/v1/projects", "post">>("/v1/projects", { name } satisfies ApiRequest<"/v1/projects">);
      setToken({ label: `Sending token of ${res.data.name}`, value: res.token });
      setName("");
    });
  };
  return (
    <Section title="Projects and routes">
      {allowed("POST /v1/projects") ? (
        <form class="inline" onSubmit={create} aria-label="Create a project">
          <Field label="New project name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" class="primary">
            Create project
          </button>
        </form>
      ) : null}
      {token ? <ShownOnce label={token.label} value={token.value} /> : null}
      <ListStatus list={list} error={error} />
      {(list.data?.data ?? []).map((p) => (
        <ProjectCard key={p.id} project={p} act={act} onToken={(value) => setToken({ label: `New sending token of ${p.name}`, value })} />
      ))}
    </Section>
  );
}

function ProjectCard({ project, act, onToken }: { project: Project; act: Actions["run"]; onToken: (t: string) => void }) {
  const routes = useLoad(() => api.get<ApiBody<"/v1/projects/{projectId}/routes">>(`/v1/projects/${project.id}/routes`, { "page[size]": 100 }), [project.id]);
  const rotate = () =>
    act(async () => {
      if (!confirm(`Replace the sending token of ${project.name}? The old one stops working at once.`)) return;
      onToken((await api.post<ApiBody<"/v1/projects/{projectId}/rotate-token", "post">>(`/v1/projects/${project.id}/rotate-token`)).new_token);
    });
  const smtp = (on: boolean) => act(async () => void (await api.put(`/v1/projects/${project.id}`, { smtp_enabled: on })));
  const [route, setRoute] = useState({ name: "", route_type: "transactional" as RouteType, slug: "" });
  const allowed = useAllowed();
  const createRoute = (e: Event) => {
    e.preventDefault();
    return act(async () => {
      const body: ApiRequest<"/v1/projects/{projectId}/routes"> = { name: route.name, route_type: route.route_type, ...(route.slug ? { slug: route.slug } : {}) };
      const res = await api.post<ApiBody<"/v1/projects/{projectId}/routes", "post">>(`/v1/projects/${project.id}/routes`, body);
      go(`/routes/${res.data.id}`);
    });
  };
  return (
    <article class="card">
      <div class="section-head">
        <h3>{project.name}</h3>
        <div class="actions">
          <label class="switch">
            <input type="checkbox" checked={project.smtp_enabled} disabled={!allowed("PUT /v1/projects/{projectId}")} onChange={(e) => smtp(e.currentTarget.checked)} /> SMTP submission
          </label>
          {allowed("POST /v1/projects/{projectId}/rotate-token") ? (
            <button type="button" onClick={rotate}>
              Rotate token
            </button>
          ) : null}
        </div>
      </div>
      <table>
        <thead>
          <tr>
            <th scope="col">Route</th>
            <th scope="col">Slug</th>
            <th scope="col">Type</th>
            <th scope="col">Inbound address</th>
            <th scope="col">Tracking</th>
            <th scope="col">
              <span class="sr-only">Settings</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(routes.data?.data ?? []).map((r) => (
            <tr key={r.id}>
              <td>
                <a href={`#/messages?filter[route_id]=${r.id}`}>{r.name}</a> {r.is_default ? <span class="muted">default</span> : null}
              </td>
              <td>
                <code>{r.slug}</code>
              </td>
              <td>{r.route_type}</td>
              <td>{r.inbound_address ?? "—"}</td>
              <td>{r.route_type === "inbound" ? "—" : [r.track_opens ? "opens" : "", r.track_clicks ? "clicks" : ""].filter(Boolean).join(", ") || "off"}</td>
              <td>
                <a href={`#/routes/${r.id}`} aria-label={`Settings of ${r.name}`}>
                  Settings
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {allowed("POST /v1/projects/{projectId}/routes") ? (
        <form class="inline" onSubmit={createRoute} aria-label={`Create a route in ${project.name}`}>
          <Field label="New route name" required maxLength={255} value={route.name} onInput={(e) => setRoute({ ...route, name: e.currentTarget.value })} />
          <Field label="Type">
            <select value={route.route_type} onChange={(e) => setRoute({ ...route, route_type: e.currentTarget.value as RouteType })}>
              <option value="transactional">transactional</option>
              <option value="broadcast">broadcast</option>
              <option value="inbound">inbound</option>
            </select>
          </Field>
          <Field
            label="Slug (optional)"
            hint="From the name when empty"
            pattern="[a-z0-9]([a-z0-9_\-]*[a-z0-9])?"
            maxLength={64}
            value={route.slug}
            onInput={(e) => setRoute({ ...route, slug: e.currentTarget.value })}
          />
          <button type="submit">Create route</button>
        </form>
      ) : null}
    </article>
  );
}

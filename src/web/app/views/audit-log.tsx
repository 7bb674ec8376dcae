import { useState } from "preact/hooks";
import { api, type ApiBody } from "../api.ts";
import { Field, fmtDate, go, ListStatus, Pager, Section, type Route, useLoad } from "../ui.tsx";

/** One row of GET /v1/team/audit-log (docs/access.md "Audit log"). */
type AuditPage = ApiBody<"/v1/team/audit-log">;
type AuditEntry = AuditPage["data"][number];

const ACTOR_KINDS: Record<AuditEntry["actor"]["kind"], string> = { user: "User", team_token: "Team token", named_token: "Token", cli: "Command line" };
const actorOf = (a: AuditEntry["actor"]) => `${ACTOR_KINDS[a.kind]}${a.name ? ` ${a.name}` : ""}${a.kind === "user" && a.id ? ` ${a.id}` : ""}`;
const fieldsOf = (c: Record<string, unknown>) =>
  Object.entries(c)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");

/** The team's audit log: who changed what, when and from where; filtered by actor, target and operation (needs audit:read). */
export function AuditLog({ route }: { route: Route }) {
  const q = route.query;
  const list = useLoad(() => api.get<AuditPage>("/v1/team/audit-log", { ...Object.fromEntries(q.entries()), "page[size]": 50 }), [q.toString()]);
  const [actor, setActor] = useState(q.get("filter[actor]") ?? "");
  const [target, setTarget] = useState(q.get("filter[target]") ?? "");
  const filter = (e: Event) => {
    e.preventDefault();
    const next = new URLSearchParams();
    if (actor.trim()) next.set("filter[actor]", actor.trim());
    if (target.trim()) next.set("filter[target]", target.trim());
    go(`/audit-log${next.size ? `?${next}` : ""}`);
  };
  const page = (cursor: string | null) => {
    const next = new URLSearchParams(q);
    if (cursor) next.set("page[cursor]", cursor);
    else next.delete("page[cursor]");
    go(`/audit-log?${next}`);
  };
  return (
    <Section title="Audit log">
      <form class="inline" onSubmit={filter} aria-label="Filter the audit log">
        <Field label="Actor (user or token id, or kind)" type="search" value={actor} onInput={(e) => setActor(e.currentTarget.value)} />
        <Field label="Target id" type="search" value={target} onInput={(e) => setTarget(e.currentTarget.value)} />
        <button type="submit">Filter</button>
      </form>
      <ListStatus list={list} />
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Operation</th>
            <th scope="col">Targets</th>
            <th scope="col">Changed fields</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((r) => (
            <tr key={r.id}>
              <td>{fmtDate(r.created_at)}</td>
              <td>{actorOf(r.actor)}</td>
              <td>
                <code>{r.operation}</code>
              </td>
              <td>{Object.values(r.target_ids).join(", ")}</td>
              <td>{fieldsOf(r.changes)}</td>
              <td title={r.user_agent ?? undefined}>{r.ip ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data ? <Pager next={list.data.next_cursor} prev={list.data.prev_cursor} onPage={page} /> : null}
    </Section>
  );
}

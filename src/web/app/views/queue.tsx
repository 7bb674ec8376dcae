import { useState } from "preact/hooks";
import { useAllowed } from "../allowed.ts";
import { api, type ApiBody, type ApiItem } from "../api.ts";
import { ErrorBox, Field, fmtDate, go, ListStatus, Notice, Pager, Section, Status, type Route, useActions, useLoad } from "../ui.tsx";
import { allRoutes } from "./projects.tsx";

type QueuedMessage = ApiItem<"/v1/queue">;
type Destination = ApiItem<"/v1/queue/destinations">;
type Reply = QueuedMessage["last_response"];

const replyText = (r: Reply | Destination["last_reply"]) => (r ? [r.code, r.enhanced_code, r.message].filter((x) => x !== null && x !== "").join(" ") : "");
/** The queue's statuses as the Status filter names them (the API's filter[status] values). */
const STATUS_LABELS: Record<string, string> = {
  scheduled: "Scheduled",
  pending: "Pending",
  queued: "Queued",
  processed: "Being delivered",
  soft_bounced: "Deferred",
};
/** An ISO time as a datetime-local input's value, in the browser's zone (seconds kept). */
const localInput = (iso: string | null) => {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};
/** Why a message waits although nothing failed (its domain's warm-up cap; GET /v1/queue's held_reason), or null. */
const heldReason = (m: QueuedMessage) => (m as QueuedMessage & { held_reason?: string | null }).held_reason ?? null;
/** "now / of at most", or "no limit". */
const limit = (now: number | null, max: number | null) => (now === null ? "no limit" : `${now}${max !== null && max !== now ? ` of ${max}` : ""}`);

/** The team's outbound mail not final yet: filters, retry or cancel one or all that match, and where it is going. */
export function Queue({ route }: { route: Route }) {
  const q = route.query;
  const filters = { "filter[domain]": q.get("filter[domain]") ?? "", "filter[route_id]": q.get("filter[route_id]") ?? "", "filter[status]": q.get("filter[status]") ?? "" };
  const list = useLoad(() => api.get<ApiBody<"/v1/queue">>("/v1/queue", { ...Object.fromEntries(q.entries()), "page[size]": 50 }), [q.toString()]);
  const routes = useLoad(allRoutes, []);
  const [draft, setDraft] = useState(filters);
  const { error, notice, run: act } = useActions(list.reload);
  // Each action only with the permission its operation declares (src/web/app/allowed.ts).
  const allowed = useAllowed();
  const apply = (e: Event) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [k, v] of Object.entries(draft)) if (v.trim()) next.set(k, v.trim());
    // The same filters again ask for a fresh look (the hash does not change, so nothing else would).
    if (next.toString() === q.toString()) list.reload();
    else go(`/queue?${next}`);
  };
  const page = (cursor: string | null) => {
    const next = new URLSearchParams(q);
    if (cursor) next.set("page[cursor]", cursor);
    else next.delete("page[cursor]");
    go(`/queue?${next}`);
  };
  const routeName = (id: string | null) => routes.data?.find((r) => r.id === id)?.name ?? (id ? "a route" : "no route");
  // The bulk actions name what they will touch: the applied filters, never the unsubmitted draft.
  const scope = [
    filters["filter[domain]"] ? `to ${filters["filter[domain]"]}` : "",
    filters["filter[route_id]"] ? `on ${routeName(filters["filter[route_id]"])}` : "",
    filters["filter[status]"] ? `with status ${(STATUS_LABELS[filters["filter[status]"]] ?? filters["filter[status]"]).toLowerCase()}` : "",
  ].filter(Boolean);
  const applied = Object.fromEntries(Object.entries(filters).filter(([, v]) => v));
  const bulk = (action: "retry" | "cancel") =>
    act(async () => {
      const what = scope.length ? `every queued message ${scope.join(" ")}` : "every queued message of the team";
      const question =
        (action === "retry" ? `Attempt ${what} now?` : `Cancel ${what}? Their remaining recipients fail with reason "cancelled"; this cannot be undone.`) +
        " Scheduled messages are left to their time: reschedule or cancel them one by one.";
      if (!confirm(question)) return "Nothing was changed.";
      const path = `/v1/queue/${action}?${new URLSearchParams(applied)}`;
      return (await api.post<ApiBody<"/v1/queue/retry" | "/v1/queue/cancel", "post">>(path)).message;
    });
  const one = (m: QueuedMessage, action: "retry" | "cancel") =>
    act(async () => {
      if (action === "cancel" && !confirm(`Cancel "${m.subject || "(no subject)"}"? Its remaining recipients fail with reason "cancelled".`)) return "Nothing was changed.";
      const path = `/v1/messages/${m.id}/${action === "cancel" ? "cancel-delivery" : "retry"}`;
      return (await api.post<ApiBody<"/v1/messages/{messageId}/retry" | "/v1/messages/{messageId}/cancel-delivery", "post">>(path)).message;
    });
  // A scheduled message is moved or canceled through the service's own calls, as an API client would.
  const [moving, setMoving] = useState<{ id: string; when: string } | null>(null);
  const reschedule = (m: QueuedMessage, when: string) =>
    act(async () => {
      const at = new Date(when);
      if (!when || Number.isNaN(at.getTime())) throw new Error("Pick the date and time to send it at.");
      const res = await api.patch<ApiBody<"/v1/messages/{messageId}", "patch">>(`/v1/messages/${m.id}`, { scheduled_at: at.toISOString() });
      setMoving(null);
      return `"${m.subject || "(no subject)"}" will go out ${fmtDate(res.scheduled_at)}.`;
    });
  const cancelScheduled = (m: QueuedMessage) =>
    act(async () => {
      if (!confirm(`Cancel the scheduled "${m.subject || "(no subject)"}"? It will not be sent; this cannot be undone.`)) return "Nothing was changed.";
      await api.post<ApiBody<"/v1/messages/{messageId}/cancel", "post">>(`/v1/messages/${m.id}/cancel`);
      return `"${m.subject || "(no subject)"}" is canceled: it will not be sent.`;
    });

  return (
    <>
      <Section
        title="Queue"
        actions={
          <>
            {allowed("POST /v1/queue/retry") ? (
              <button type="button" onClick={() => bulk("retry")}>
                Retry all matching
              </button>
            ) : null}
            {allowed("POST /v1/queue/cancel") ? (
              <button type="button" class="danger" onClick={() => bulk("cancel")}>
                Cancel all matching
              </button>
            ) : null}
          </>
        }
      >
        <form class="filters" onSubmit={apply} aria-label="Filter the queue">
          <Field
            label="Recipient domain"
            type="search"
            value={draft["filter[domain]"]}
            onInput={(e) => setDraft({ ...draft, "filter[domain]": e.currentTarget.value })}
          />
          <Field label="Route">
            <select value={draft["filter[route_id]"]} onChange={(e) => setDraft({ ...draft, "filter[route_id]": e.currentTarget.value })}>
              <option value="">Any</option>
              {(routes.data ?? [])
                .filter((r) => r.route_type !== "inbound")
                .map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.project_name} · {r.name}
                  </option>
                ))}
            </select>
          </Field>
          <Field label="Status">
            <select value={draft["filter[status]"]} onChange={(e) => setDraft({ ...draft, "filter[status]": e.currentTarget.value })}>
              <option value="">Any</option>
              {Object.entries(STATUS_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
          <div class="field">
            <button type="submit" class="primary">
              Filter
            </button>
          </div>
        </form>
        <Notice notice={notice} />
        <ListStatus list={list} error={error} />
        {list.data ? (
          <>
            <table class="queue">
              <thead>
                <tr>
                  <th scope="col">Subject</th>
                  <th scope="col">Recipients waiting</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">
                    Attempts
                  </th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Last reply</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.length === 0 ? (
                  <tr>
                    <td colSpan={7} class="muted">
                      Nothing queued{scope.length ? ` ${scope.join(" ")}` : ""}.
                    </td>
                  </tr>
                ) : (
                  list.data.data.map((m) => (
                    <tr key={m.id}>
                      <td>
                        <a href={`#/messages/${m.id}`}>{m.subject || "(no subject)"}</a>
                        <div class="muted">
                          {m.from_email} · {routeName(m.route_id)} · {fmtDate(m.created_at)}
                        </div>
                      </td>
                      <td>
                        {m.recipients.map((r) => (
                          <div key={r.email}>
                            {r.email} <Status status={r.status} />
                          </div>
                        ))}
                      </td>
                      <td>
                        <Status status={m.status} />
                      </td>
                      <td class="num">{m.attempts}</td>
                      <td>{m.status === "scheduled" ? <span class="scheduled-at">goes out {fmtDate(m.scheduled_at)}</span> : fmtDate(m.next_attempt_at)}</td>
                      <td>
                        <div class="reply">{replyText(m.last_response)}</div>
                        {heldReason(m) && <div class="held-reason muted">{heldReason(m)}</div>}
                      </td>
                      {m.status === "scheduled" ? (
                        <td class="row-actions">
                          {moving?.id === m.id ? (
                            <form
                              class="reschedule"
                              onSubmit={(e) => {
                                e.preventDefault();
                                void reschedule(m, moving.when);
                              }}
                            >
                              <input
                                type="datetime-local"
                                step={1}
                                aria-label={`New time: ${m.subject}`}
                                value={moving.when}
                                onInput={(e) => setMoving({ id: m.id, when: e.currentTarget.value })}
                              />
                              <button type="submit" class="small primary" aria-label={`Save the new time: ${m.subject}`}>
                                Save
                              </button>
                              <button type="button" class="small" onClick={() => setMoving(null)}>
                                Keep
                              </button>
                            </form>
                          ) : allowed("PATCH /v1/messages/{messageId}") ? (
                            <button type="button" class="small" onClick={() => setMoving({ id: m.id, when: localInput(m.scheduled_at) })} aria-label={`Reschedule: ${m.subject}`}>
                              Reschedule
                            </button>
                          ) : null}
                          {allowed("POST /v1/messages/{messageId}/cancel") ? (
                            <button type="button" class="small danger" onClick={() => cancelScheduled(m)} aria-label={`Cancel: ${m.subject}`}>
                              Cancel
                            </button>
                          ) : null}
                        </td>
                      ) : (
                        <td class="row-actions">
                          {allowed("POST /v1/messages/{messageId}/retry") ? (
                            <button type="button" class="small" onClick={() => one(m, "retry")} aria-label={`Retry now: ${m.subject}`}>
                              Retry now
                            </button>
                          ) : null}
                          {allowed("POST /v1/messages/{messageId}/cancel-delivery") ? (
                            <button type="button" class="small danger" onClick={() => one(m, "cancel")} aria-label={`Cancel: ${m.subject}`}>
                              Cancel
                            </button>
                          ) : null}
                        </td>
                      )}
                    </tr>
                  ))
                )}
              </tbody>
            </table>
            <Pager next={list.data.next_cursor} prev={list.data.prev_cursor} onPage={page} />
          </>
        ) : null}
      </Section>
      <Destinations />
    </>
  );
}

/** Where mail is going and how fast each destination takes it (the server's, the same for every team). */
function Destinations() {
  const list = useLoad(() => api.get<ApiBody<"/v1/queue/destinations">>("/v1/queue/destinations"), []);
  return (
    <Section title="Destinations (this server)">
      <ErrorBox error={list.error} />
      <table class="destinations">
        <thead>
          <tr>
            <th scope="col">Destination</th>
            <th scope="col">Domains</th>
            <th scope="col">State</th>
            <th scope="col">Connections</th>
            <th scope="col">Per minute</th>
            <th scope="col">Last reply</th>
          </tr>
        </thead>
        <tbody>
          {!list.data || list.data.data.length === 0 ? (
            <tr>
              <td colSpan={6} class="muted">
                {list.data ? "No destination has been shaped yet." : "Loading…"}
              </td>
            </tr>
          ) : (
            list.data.data.map((d) => (
              <tr key={d.name}>
                <td>
                  <code>{d.name}</code>
                </td>
                <td>{d.domains.join(", ")}</td>
                <td>
                  {d.paused ? <Status status="paused" /> : <Status status="open" />}
                  {d.paused && d.paused_until ? <div class="muted">until {fmtDate(d.paused_until)}</div> : null}
                  {d.strikes ? <div class="muted">{d.strikes === 1 ? "1 rate reply" : `${d.strikes} rate replies in a row`}</div> : null}
                </td>
                <td>{limit(d.concurrency, d.max_concurrency)}</td>
                <td>{limit(d.per_minute, d.max_per_minute)}</td>
                <td>
                  <div class="reply">{replyText(d.last_reply)}</div>
                  {d.throttled_at ? <div class="muted">rate reply {fmtDate(d.throttled_at)}</div> : null}
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </Section>
  );
}

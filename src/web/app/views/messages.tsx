import { useEffect, useState } from "preact/hooks";
import { api, type ApiBody } from "../api.ts";
import { ErrorBox, Field, fmtDate, go, Loading, Pager, Section, Status, useLoad, type Route } from "../ui.tsx";

const STATUSES = [
  "pending", "queued", "quarantined", "processed", "delivered", "soft_bounced", "hard_bounced", "failed", "suppressed",
  "opened", "clicked", "spam_complaint", "unsubscribed", "policy_rejected",
];
const SORTS: [string, string][] = [
  ["-created_at", "Newest first"],
  ["created_at", "Oldest first"],
  ["-status_changed_at", "Status changed, newest"],
  ["status", "Status"],
  ["subject", "Subject"],
  ["from_email", "Sender"],
  ["type", "Type"],
];
/** The list's query keys, all of the API's filters. */
const FILTERS = ["subject", "from_email", "status", "type", "tag", "route_id", "domain_id", "from_date", "to_date"] as const;

export function Messages({ route }: { route: Route }) {
  const q = route.query;
  const query = Object.fromEntries([...q.entries()]);
  const list = useLoad(() => api.get<ApiBody<"/v1/messages">>("/v1/messages", { ...query, "page[size]": query["page[size]"] ?? 50 }), [q.toString()]);
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(FILTERS.map((f) => [f, q.get(`filter[${f}]`) ?? ""])));
  const [sort, setSort] = useState(q.get("sort") ?? "-created_at");
  // The form shows the filters of the list shown, also after a link or Back changed them.
  useEffect(() => {
    setDraft(Object.fromEntries(FILTERS.map((f) => [f, q.get(`filter[${f}]`) ?? ""])));
    setSort(q.get("sort") ?? "-created_at");
  }, [q.toString()]);

  const apply = (e: Event) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const f of FILTERS) if (draft[f]) next.set(`filter[${f}]`, draft[f]!);
    if (sort !== "-created_at") next.set("sort", sort);
    go(`/messages?${next}`);
  };
  const page = (cursor: string | null) => {
    const next = new URLSearchParams(q);
    if (cursor) next.set("page[cursor]", cursor);
    else next.delete("page[cursor]");
    go(`/messages?${next}`);
  };
  const set = (f: string) => (e: { currentTarget: { value: string } }) => setDraft({ ...draft, [f]: e.currentTarget.value });

  return (
    <Section title="Messages">
      <p>
        <a href="#/messages?filter[status]=quarantined">Held inbound mail</a> <span class="muted">(quarantined as spam, waiting to be released or left)</span>
      </p>
      <form class="filters" onSubmit={apply} aria-label="Filter messages">
        <Field label="Subject contains" type="search" value={draft.subject} onInput={set("subject")} />
        <Field label="Sender contains" type="search" value={draft.from_email} onInput={set("from_email")} />
        <Field label="Status">
          <select value={draft.status} onChange={set("status")}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace(/_/g, " ")}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Type">
          <select value={draft.type} onChange={set("type")}>
            <option value="">Any</option>
            <option value="outbound">outbound</option>
            <option value="inbound">inbound</option>
          </select>
        </Field>
        <Field label="Tag" value={draft.tag} onInput={set("tag")} />
        <Field label="Route ID" value={draft.route_id} onInput={set("route_id")} />
        <Field label="Domain ID" value={draft.domain_id} onInput={set("domain_id")} />
        <Field label="From date" type="date" value={draft.from_date} onInput={set("from_date")} />
        <Field label="To date" type="date" value={draft.to_date} onInput={set("to_date")} />
        <Field label="Sort">
          <select value={sort} onChange={(e) => setSort(e.currentTarget.value)}>
            {SORTS.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <div class="field">
          <button type="submit" class="primary">
            Search
          </button>
        </div>
      </form>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data ? (
        <>
          <table class="messages">
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.length === 0 ? (
                <tr>
                  <td colSpan={5} class="muted">
                    No messages.
                  </td>
                </tr>
              ) : (
                list.data.data.map((m) => (
                  <tr key={m.id}>
                    <td>
                      <a href={`#/messages/${m.id}`}>{m.subject || "(no subject)"}</a>
                      {m.tag ? <span class="tag">{m.tag}</span> : null}
                    </td>
                    <td>{m.from_email}</td>
                    <td>{m.to.map((a) => a.email).join(", ")}</td>
                    <td>
                      <Status status={m.status} />
                    </td>
                    <td>{fmtDate(m.created_at)}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
          <Pager next={list.data.next_cursor} prev={list.data.prev_cursor} onPage={page} />
        </>
      ) : null}
    </Section>
  );
}

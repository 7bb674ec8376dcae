import { useState } from "preact/hooks";
import { useAllowed } from "../allowed.ts";
import { api, type ApiBody, type ApiItem, type ApiRequest } from "../api.ts";
import { Field, fmtDate, go, ListStatus, messageOf, Notice, Pager, Section, type Route, useLoad } from "../ui.tsx";

type Suppression = ApiItem<"/v1/suppressions">;

export function Suppressions({ route }: { route: Route }) {
  const q = route.query;
  const list = useLoad(() => api.get<ApiBody<"/v1/suppressions">>("/v1/suppressions", { ...Object.fromEntries(q.entries()), "page[size]": 50 }), [q.toString()]);
  const [search, setSearch] = useState(q.get("filter[value]") ?? "");
  const [bulk, setBulk] = useState("");
  const [type, setType] = useState<"email" | "domain" | "extension">("email");
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Each action only with the permission its operation declares (src/web/app/allowed.ts).
  const allowed = useAllowed();

  const find = (e: Event) => {
    e.preventDefault();
    go(search ? `/suppressions?filter[value]=${encodeURIComponent(search.trim())}` : "/suppressions");
  };
  const add = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const values = bulk.split(/[\s,;]+/).filter(Boolean);
    // Addresses as the spec's emails; domains and extensions as values with their type.
    const body: ApiRequest<"/v1/suppressions"> = type === "email" ? { emails: values, scope: "team", reason: "manual" } : { type, values, scope: "team", reason: "manual" };
    try {
      const res = await api.post<ApiBody<"/v1/suppressions", "post">>("/v1/suppressions", body);
      setNotice(res.message);
      setBulk("");
      list.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const remove = async (s: Suppression) => {
    setError(null);
    try {
      await api.del(`/v1/suppressions/${s.id}`);
      setNotice(`${s.value} is no longer suppressed.`);
      list.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const page = (cursor: string | null) => {
    const next = new URLSearchParams(q);
    if (cursor) next.set("page[cursor]", cursor);
    else next.delete("page[cursor]");
    go(`/suppressions?${next}`);
  };
  return (
    <Section title="Suppressions">
      <form class="inline" onSubmit={find} aria-label="Search suppressions">
        <Field label="Address, domain or extension" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        <button type="submit">Search</button>
      </form>
      {allowed("POST /v1/suppressions") ? (
        <form onSubmit={add} aria-label="Suppress addresses">
          <Field label="What to suppress">
            <select value={type} onChange={(e) => setType(e.currentTarget.value as typeof type)}>
              <option value="email">Addresses</option>
              <option value="domain">Domains (every address at exactly that domain)</option>
              <option value="extension">Extensions (every domain ending in .ru, .co.uk, …)</option>
            </select>
          </Field>
          <Field label="Suppress for the whole team (one per line, up to 1,000)">
            <textarea rows={3} value={bulk} onInput={(e) => setBulk(e.currentTarget.value)} required />
          </Field>
          <button type="submit" class="primary">
            Add
          </button>
        </form>
      ) : null}
      <Notice notice={notice} />
      <ListStatus list={list} error={error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Suppressed</th>
            <th scope="col">Type</th>
            <th scope="col">Scope</th>
            <th scope="col">Reason</th>
            <th scope="col">Since</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((s) => (
            <tr key={s.id}>
              <td>{s.value}</td>
              <td>{s.type}</td>
              <td>{s.scope}</td>
              <td>{s.reason.replace(/_/g, " ")}</td>
              <td>{fmtDate(s.created_at)}</td>
              <td>
                {allowed("DELETE /v1/suppressions/{suppressionId}") ? (
                  <button type="button" class="small" onClick={() => remove(s)} aria-label={`Remove ${s.value}`}>
                    Remove
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data ? <Pager next={list.data.next_cursor} prev={list.data.prev_cursor} onPage={page} /> : null}
    </Section>
  );
}

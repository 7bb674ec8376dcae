import { useState } from "preact/hooks";
import { useAllowed } from "../allowed.ts";
import { api, type ApiBody, type ApiRequest } from "../api.ts";
import { CopyButton, ErrorBox, Field, fmtDate, go, ListStatus, Loading, messageOf, Section, Status, useActions, useLoad } from "../ui.tsx";

type Domain = ApiBody<"/v1/domains/{domainId}">;
type VerifyResult = ApiBody<"/v1/domains/{domainId}/dns-records/verify", "post">;

export function Domains() {
  const list = useLoad(() => api.get<ApiBody<"/v1/domains">>("/v1/domains", { "page[size]": 100 }), []);
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  // Each action only with the permission its operation declares (src/web/app/allowed.ts); the API refuses the rest anyway.
  const allowed = useAllowed();
  const canDelete = allowed("DELETE /v1/domains/{domainId}");
  const remove = async (d: { id: string; domain: string }) => {
    if (!confirm(`Delete ${d.domain}? Its DKIM key is deleted and mail from it is no longer signed or sent.`)) return;
    setError(null);
    try {
      await api.del(`/v1/domains/${d.id}`);
      list.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const add = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const d = await api.post<ApiBody<"/v1/domains", "post">>("/v1/domains", { domain: name } satisfies ApiRequest<"/v1/domains">);
      go(`/domains/${d.id}`);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <Section title="Domains">
      {allowed("POST /v1/domains") ? (
        <form class="inline" onSubmit={add} aria-label="Add a domain">
          <Field label="Domain" placeholder="example.com" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" class="primary">
            Add domain
          </button>
        </form>
      ) : null}
      <ListStatus list={list} error={error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Domain</th>
            <th scope="col">Status</th>
            <th scope="col">Projects</th>
            <th scope="col">Added</th>
            {canDelete ? (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((d) => (
            <tr key={d.id}>
              <td>
                <a href={`#/domains/${d.id}`}>{d.domain}</a>
              </td>
              <td>
                <Status status={d.sending_status} />
              </td>
              <td>{d.projects.map((p) => p.name).join(", ") || "—"}</td>
              <td>{fmtDate(d.created_at)}</td>
              {canDelete ? (
                <td>
                  <button type="button" class="small danger" onClick={() => remove(d)} aria-label={`Delete ${d.domain}`}>
                    Delete
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

export function DomainDetail({ id }: { id: string }) {
  const domain = useLoad(() => api.get<Domain>(`/v1/domains/${id}`), [id]);
  const [result, setResult] = useState<VerifyResult | null>(null);
  const { busy, error, run } = useActions(domain.reload);
  const allowed = useAllowed();
  const verify = () => run(async () => setResult(await api.post<VerifyResult>(`/v1/domains/${id}/dns-records/verify`)));
  if (domain.loading && !domain.data) return <Loading />;
  if (domain.error) return <ErrorBox error={domain.error} />;
  const d = domain.data!;
  const failed = new Map((result?.failed ?? []).map((f) => [f.id, f]));
  const rotate = async () => {
    if (!confirm(`Make new DKIM keys for ${d.domain}? Publish the two new records; signing switches once both verify, and the old records must stay published 7 more days.`)) return;
    setResult(null);
    await run(async () => void (await api.post(`/v1/domains/${id}/dkim/rotate`)));
  };
  return (
    <Section
      title={d.domain}
      actions={
        <>
          {allowed("POST /v1/domains/{domainId}/dkim/rotate") ? (
            <button type="button" onClick={rotate} disabled={busy}>
              Rotate DKIM keys
            </button>
          ) : null}
          {allowed("POST /v1/domains/{domainId}/dns-records/verify") ? (
            <button type="button" class="primary" onClick={verify} disabled={busy}>
              {busy ? "Checking…" : "Verify now"}
            </button>
          ) : null}
        </>
      }
    >
      <p>
        <Status status={d.sending_status} /> {result ? <span role="status">{result.message}</span> : null}
      </p>
      <ErrorBox error={error} />
      <table class="records">
        <caption>Records to publish</caption>
        <thead>
          <tr>
            <th scope="col">Purpose</th>
            <th scope="col">Type</th>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {d.dns_records.map((r) => {
            const f = failed.get(r.id);
            return (
              <tr key={r.id} data-record={r.kind} data-key-state={r.key_state ?? undefined}>
                <td>
                  {r.kind}
                  {r.key_state === "next" ? <div class="muted">next key: publish it; it signs once both new records verify</div> : null}
                  {r.key_state === "retiring" ? <div class="muted">retiring: keep it published until {fmtDate(r.keep_until)}</div> : null}
                </td>
                <td>{r.type}</td>
                <td>
                  <code>{r.fqdn}</code> <CopyButton text={r.fqdn} label="Copy name" />
                </td>
                <td class="value">
                  <code>{r.content}</code> <CopyButton text={r.content} label="Copy value" />
                </td>
                <td>
                  <Status status={r.status} />
                  {f ? (
                    <div class="reason">
                      {f.reason}
                      {f.found && (Array.isArray(f.found) ? f.found.length : true) ? <div class="muted">found: {Array.isArray(f.found) ? f.found.join(" | ") : f.found}</div> : null}
                    </div>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Section>
  );
}

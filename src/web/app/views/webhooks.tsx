import { useState } from "preact/hooks";
import { useAllowed } from "../allowed.ts";
import { api, type ApiBody, type ApiRequest } from "../api.ts";
import { ErrorBox, Field, fmtDate, go, ListStatus, Loading, messageOf, Notice, Section, ShownOnce, useActions, useLoad } from "../ui.tsx";
import { allRoutes } from "./projects.tsx";

type Webhook = ApiBody<"/v1/webhooks/{id}">;

type EventKind = ApiRequest<"/v1/webhooks">["events"][number];
/** The kinds a webhook subscribes to, in the form's order: each one the API accepts (a type error otherwise), */
export const EVENT_KINDS = [
  "message.created", "message.scheduled", "message.rescheduled", "message.canceled", "message.sent", "message.delivered", "message.soft_bounced", "message.hard_bounced", "message.bounced",
  "message.failed", "message.suppressed", "message.opened", "message.clicked", "message.spam_complaint", "message.unsubscribed",
  "message.auto_replied", "message.inbound", "message.policy_rejected", "domain.dns_record_failed", "suppression.added",
  "suppression.removed", "deliverability.listed", "deliverability.delisted", "webhook.test",
] as const satisfies readonly EventKind[];
/** and every one it accepts is offered: a kind added to the API and not here is a type error. */
const everyKind: [Exclude<EventKind, (typeof EVENT_KINDS)[number]>] extends [never] ? true : never = true;
void everyKind;

export function Webhooks() {
  const list = useLoad(() => api.get<ApiBody<"/v1/webhooks">>("/v1/webhooks", { "page[size]": 100 }), []);
  const routes = useLoad(allRoutes, []);
  const [form, setForm] = useState({ name: "", url: "https://", route_id: "" });
  const [events, setEvents] = useState<EventKind[]>(["message.delivered", "message.bounced"]);
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Each action only with the permission its operation declares (src/web/app/allowed.ts).
  const allowed = useAllowed();
  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const route_id = form.route_id || routes.data?.[0]?.id || "";
      const body: ApiRequest<"/v1/webhooks"> = { ...form, route_id, events };
      const res = await api.post<ApiBody<"/v1/webhooks", "post">>("/v1/webhooks", body);
      setSecret(res.data.secret);
      list.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const toggle = (kind: EventKind) => setEvents(events.includes(kind) ? events.filter((k) => k !== kind) : [...events, kind]);
  return (
    <Section title="Webhooks">
      {allowed("POST /v1/webhooks") ? (
        <form onSubmit={create} aria-label="Create a webhook">
          <div class="grid">
            <Field label="Name" required value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
            <Field label="URL (https)" type="url" required value={form.url} onInput={(e) => setForm({ ...form, url: e.currentTarget.value })} />
            <Field label="Route">
              <select value={form.route_id} onChange={(e) => setForm({ ...form, route_id: e.currentTarget.value })}>
                {(routes.data ?? []).map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.project_name} / {r.name}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <fieldset>
            <legend>Events</legend>
            <div class="checks">
              {EVENT_KINDS.map((k) => (
                <label key={k}>
                  <input type="checkbox" checked={events.includes(k)} onChange={() => toggle(k)} /> {k}
                </label>
              ))}
            </div>
          </fieldset>
          <button type="submit" class="primary">
            Create webhook
          </button>
        </form>
      ) : null}
      {secret ? <ShownOnce label="Signing secret" value={secret} /> : null}
      <ListStatus list={list} error={error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">State</th>
            <th scope="col">Last called</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((w) => (
            <tr key={w.id}>
              <td>
                <a href={`#/webhooks/${w.id}`}>{w.name}</a>
              </td>
              <td>{w.url}</td>
              <td>{w.events.length}</td>
              <td>{w.enabled ? "enabled" : `disabled${w.disabled_reason ? `: ${w.disabled_reason}` : ""}`}</td>
              <td>{fmtDate(w.last_called_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

export function WebhookDetail({ id }: { id: string }) {
  const hook = useLoad(() => api.get<Webhook>(`/v1/webhooks/${id}`), [id]);
  const deliveries = useLoad(() => api.get<ApiBody<"/v1/webhooks/{id}/deliveries">>(`/v1/webhooks/${id}/deliveries`, { "page[size]": 50 }), [id]);
  const [secret, setSecret] = useState<string | null>(null);
  const { error, notice, run: act } = useActions(() => {
    deliveries.reload();
    hook.reload();
  });
  const allowed = useAllowed();
  const test = () => act(async () => (await api.post<ApiBody<"/v1/webhooks/{id}/test", "post">>(`/v1/webhooks/${id}/test`)).message);
  const redeliver = (deliveryId: string) => act(async () => (await api.post<ApiBody<"/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver", "post">>(`/v1/webhooks/${id}/deliveries/${deliveryId}/redeliver`)).message);
  const rotate = () => act(async () => setSecret((await api.post<ApiBody<"/v1/webhooks/{id}/regenerate-secret", "post">>(`/v1/webhooks/${id}/regenerate-secret`)).data.secret));
  const remove = () =>
    act(async () => {
      if (!confirm("Delete this webhook?")) return;
      await api.del(`/v1/webhooks/${id}`);
      go("/webhooks");
    });
  if (hook.loading && !hook.data) return <Loading />;
  if (hook.error) return <ErrorBox error={hook.error} />;
  const w = hook.data!;
  return (
    <Section
      title={w.name}
      actions={
        <>
          {allowed("POST /v1/webhooks/{id}/test") ? (
            <button type="button" class="primary" onClick={test}>
              Send test
            </button>
          ) : null}
          {allowed("POST /v1/webhooks/{id}/regenerate-secret") ? (
            <button type="button" onClick={rotate}>
              New secret
            </button>
          ) : null}
          {allowed("DELETE /v1/webhooks/{id}") ? (
            <button type="button" class="danger" onClick={remove}>
              Delete
            </button>
          ) : null}
        </>
      }
    >
      <p>
        <code>{w.url}</code> — {w.events.join(", ")}
      </p>
      <Notice notice={notice} />
      {secret ? <ShownOnce label="New signing secret" value={secret} /> : null}
      <ErrorBox error={error ?? deliveries.error} />
      <table class="deliveries">
        <caption>Delivery log</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col" class="num">
              Attempt
            </th>
            <th scope="col">Outcome</th>
            <th scope="col">Response</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(deliveries.data?.data ?? []).map((d) => (
            <tr key={d.id}>
              <td>{fmtDate(d.created_at)}</td>
              <td>
                {d.event} <span class="muted">{d.event_id}</span>
              </td>
              <td class="num">{d.attempt}</td>
              <td>
                <span class={`status status-${d.outcome}`}>{d.outcome}</span> {d.status_code ?? ""} <span class="muted">{d.duration_ms} ms</span>
                {d.next_attempt_at ? <div class="muted">next try {fmtDate(d.next_attempt_at)}</div> : null}
              </td>
              <td>
                {d.error ? <div class="reason">{d.error}</div> : null}
                {d.response_excerpt ? (
                  <details>
                    <summary>Body</summary>
                    <pre>{d.response_excerpt}</pre>
                  </details>
                ) : null}
              </td>
              <td>
                {allowed("POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver") ? (
                  <button type="button" class="small" onClick={() => redeliver(d.id)} aria-label={`Redeliver ${d.event} ${d.event_id} (attempt ${d.attempt})`}>
                    Redeliver
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

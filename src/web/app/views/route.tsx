import { useEffect, useState } from "preact/hooks";
import { useAllowed } from "../allowed.ts";
import { api, type ApiBody, type ApiRequest } from "../api.ts";
import { CopyButton, ErrorBox, Field, go, Loading, Notice, Section, useActions, useLoad } from "../ui.tsx";

type Route = ApiBody<"/v1/routes/{routeId}">;
/** inline | url: what PUT takes (the route's answer declares a plain string). */
type AttachmentDelivery = NonNullable<NonNullable<ApiRequest<"/v1/routes/{routeId}", "put">["inbound_settings"]>["attachment_delivery"]>;

/** An outbound route's settings (docs/sending.md, Route settings), as GET shows and PUT takes them. */
type OutboundSettings = {
  track_opens: boolean;
  track_clicks: boolean;
  generate_plaintext_fallback: boolean;
  suppress_auto_responders: boolean;
  suppress_disposable_recipients: boolean;
  tls: "opportunistic" | "enforced";
  redact_email_content: boolean;
  disable_hosted_unsubscribe?: boolean;
};
type SettingsBody = ApiRequest<"/v1/routes/{routeId}", "put"> & { settings?: OutboundSettings };

/** The on/off settings of an outbound route: label and what it does, shown beside the checkbox. */
const SWITCHES: [keyof OutboundSettings, string, string][] = [
  ["generate_plaintext_fallback", "Plain-text fallback", "HTML-only mail gets a text part made from the HTML"],
  ["suppress_auto_responders", "Suppress auto-responders", "X-Auto-Response-Suppress on its mail; auto-replies are recorded, not sent to webhooks"],
  ["suppress_disposable_recipients", "Skip disposable addresses", "Recipients at disposable domains are suppressed at acceptance"],
  ["redact_email_content", "Redact content", "Bodies, source and attachments are dropped once every recipient is final"],
  ["disable_hosted_unsubscribe", "No hosted unsubscribe", "No List-Unsubscribe link or page is added; the sender may set its own"],
];

/** The form's values: what PUT /v1/routes/{id} takes, as the inputs hold them. */
const formOf = (r: Route) => ({
  name: r.name,
  track_opens: r.track_opens,
  track_clicks: r.track_clicks,
  settings: (r as Route & { settings?: Partial<OutboundSettings> }).settings ?? {},
  inbound_domain: r.inbound_domain ?? "",
  inbound_spam_threshold: r.inbound_spam_threshold === null ? "" : String(r.inbound_spam_threshold),
  attachment_delivery: r.attachment_delivery as AttachmentDelivery,
});

/** A route's settings: name, tracking (outbound) or inbound domain, spam threshold and attachments (inbound). */
export function RouteSettings({ id }: { id: string }) {
  const loaded = useLoad(() => api.get<Route>(`/v1/routes/${id}`, { include: "project" }), [id]);
  const [form, setForm] = useState<ReturnType<typeof formOf> | null>(null);
  const { busy, error, notice, run } = useActions(loaded.reload);
  // Each action only with the permission its operation declares (src/web/app/allowed.ts).
  const allowed = useAllowed();
  useEffect(() => {
    if (loaded.data) setForm(formOf(loaded.data));
  }, [loaded.data]);

  if (loaded.loading && !loaded.data) return <Loading />;
  if (!loaded.data || !form) return <ErrorBox error={loaded.error} />;
  const r = loaded.data;
  const inbound = r.route_type === "inbound";

  const save = (e: Event) => {
    e.preventDefault();
    const body: SettingsBody = inbound
      ? {
          name: form.name,
          inbound_settings: {
            inbound_domain: form.inbound_domain.trim() || null,
            ...(form.inbound_spam_threshold === "" ? {} : { inbound_spam_threshold: Number(form.inbound_spam_threshold) }),
            attachment_delivery: form.attachment_delivery,
          },
        }
      : { name: form.name, settings: { ...(form.settings as OutboundSettings), track_opens: form.track_opens, track_clicks: form.track_clicks } };
    return run(async () => (await api.put<ApiBody<"/v1/routes/{routeId}", "put">>(`/v1/routes/${id}`, body)).message);
  };
  const verify = () => run(async () => (await api.post<ApiBody<"/v1/routes/{routeId}/verify-inbound-domain", "post">>(`/v1/routes/${id}/verify-inbound-domain`)).data.message);
  const remove = async () => {
    if (!confirm(`Delete the route ${r.name}? Its webhooks and route suppressions go with it; its messages stay.`)) return;
    await run(async () => {
      await api.del(`/v1/routes/${id}`);
      go("/projects");
    });
  };
  const set = (patch: Partial<typeof form>) => setForm({ ...form, ...patch });
  const setting = (patch: Partial<OutboundSettings>) => set({ settings: { ...form.settings, ...patch } });

  return (
    <Section
      title={`Route ${r.name}`}
      actions={
        <a href={`#/messages?filter[route_id]=${r.id}`} class="small">
          Messages of this route
        </a>
      }
    >
      <dl class="facts">
        <dt>Project</dt>
        <dd>{r.project?.name ?? "—"}</dd>
        <dt>Slug</dt>
        <dd>
          <code>{r.slug}</code>
        </dd>
        <dt>Type</dt>
        <dd>
          {r.route_type}
          {r.is_default ? " (the project's default)" : ""}
        </dd>
        {inbound ? (
          <>
            <dt>Inbound address</dt>
            <dd>
              <code>{r.inbound_address ?? "—"}</code> {r.inbound_address ? <CopyButton text={r.inbound_address} label="Copy address" /> : null}
            </dd>
          </>
        ) : null}
        <dt>Webhooks</dt>
        <dd>{r.webhooks_count}</dd>
        <dt>Suppressed addresses</dt>
        <dd>{r.suppressed_recipients_count}</dd>
      </dl>
      <form onSubmit={save} aria-label="Route settings" class="settings">
        <div class="grid">
          <Field label="Name" required maxLength={255} value={form.name} onInput={(e) => set({ name: e.currentTarget.value })} />
          {inbound ? (
            <>
              <Field
                label="Custom inbound domain"
                hint="Empty: only the address above. Changing it asks for verification again."
                maxLength={253}
                value={form.inbound_domain}
                onInput={(e) => set({ inbound_domain: e.currentTarget.value })}
              />
              <Field
                label="Spam threshold"
                hint="Inbound mail scoring this or more is rejected (0–100)"
                type="number"
                min={0}
                max={100}
                step="any"
                value={form.inbound_spam_threshold}
                onInput={(e) => set({ inbound_spam_threshold: e.currentTarget.value })}
              />
              <Field label="Attachments in webhooks">
                <select value={form.attachment_delivery} onChange={(e) => set({ attachment_delivery: e.currentTarget.value as AttachmentDelivery })}>
                  <option value="inline">inline (base64 in the payload)</option>
                  <option value="url">url (signed, expiring links)</option>
                </select>
              </Field>
            </>
          ) : null}
        </div>
        {inbound ? null : (
          <fieldset>
            <legend>Tracking</legend>
            <label class="check">
              <input type="checkbox" checked={form.track_opens} onChange={(e) => set({ track_opens: e.currentTarget.checked })} /> Track opens
            </label>
            <label class="check">
              <input type="checkbox" checked={form.track_clicks} onChange={(e) => set({ track_clicks: e.currentTarget.checked })} /> Track clicks
            </label>
          </fieldset>
        )}
        {inbound ? null : (
          <fieldset>
            <legend>Delivery and content</legend>
            {SWITCHES.filter(([key]) => key in form.settings).map(([key, label, hint]) => (
              <label class="check" key={key} title={hint}>
                <input type="checkbox" checked={form.settings[key] === true} onChange={(e) => setting({ [key]: e.currentTarget.checked })} /> {label}
                <small class="muted">{hint}</small>
              </label>
            ))}
            <Field label="TLS policy">
              <select value={form.settings.tls ?? "opportunistic"} onChange={(e) => setting({ tls: e.currentTarget.value as OutboundSettings["tls"] })}>
                <option value="opportunistic">opportunistic (STARTTLS when offered)</option>
                <option value="enforced">enforced (verified TLS or no delivery)</option>
              </select>
            </Field>
          </fieldset>
        )}
        <div class="actions">
          {allowed("PUT /v1/routes/{routeId}") ? (
            <button type="submit" class="primary" disabled={busy}>
              Save settings
            </button>
          ) : null}
          {r.is_default || !allowed("DELETE /v1/routes/{routeId}") ? null : (
            <button type="button" class="danger" onClick={remove}>
              Delete route
            </button>
          )}
        </div>
      </form>
      <ErrorBox error={error} />
      <Notice notice={notice} />
      {r.inbound_domain ? (
        <>
          <h3>
            Records for {r.inbound_domain}{" "}
            <span class={`status status-${r.inbound_domain_verified_at ? "active" : "pending"}`}>{r.inbound_domain_verified_at ? "verified" : "not verified"}</span>
          </h3>
          <table class="records">
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {(r.inbound_domain_records ?? []).map((rec) => (
                <tr key={rec.purpose}>
                  <td>{rec.type}</td>
                  <td>
                    <code>{rec.fqdn}</code> <CopyButton text={rec.fqdn} label="Copy name" />
                  </td>
                  <td>
                    <code>{rec.content}</code> <CopyButton text={rec.content} label="Copy value" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {allowed("POST /v1/routes/{routeId}/verify-inbound-domain") ? (
            <button type="button" onClick={verify} disabled={busy}>
              Verify inbound domain
            </button>
          ) : null}
        </>
      ) : null}
    </Section>
  );
}

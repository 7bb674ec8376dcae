/**
 * Deliverability: the blocklist status of the server's sending addresses and the team's domains,
 * and each domain's warm-up with its progress (docs/deliverability.md, Blocklists and Warm-up).
 */
import { useState } from "preact/hooks";
import { useAllowed } from "../allowed.ts";
import { api, type ApiBody } from "../api.ts";
import { ErrorBox, Field, fmtDate, ListStatus, Notice, Section, Status, useActions, useLoad } from "../ui.tsx";
import { DeliverabilityBounces } from "./deliverability-bounces.tsx";
import { DeliverabilityReports } from "./deliverability-reports.tsx";

type BlocklistStatus = ApiBody<"/v1/deliverability/blocklists">;
type Warmup = ApiBody<"/v1/domains/{domainId}/warmup">;

export function Deliverability() {
  return (
    <>
      <DeliverabilityReports />
      <DeliverabilityBounces />
      <Blocklists />
      <Warmups />
    </>
  );
}

function Blocklists() {
  const list = useLoad(() => api.get<BlocklistStatus>("/v1/deliverability/blocklists"), []);
  const s = list.data;
  const hours = s ? s.interval_seconds / 3600 : 0;
  return (
    <Section title="Blocklists">
      <ListStatus list={list} />
      {s ? (
        <p class="muted blocklist-summary">
          {s.interval_seconds === 0
            ? "Blocklist checks are off (POSTHORN_BLOCKLIST_INTERVAL=0)."
            : `${s.listed === 0 ? "Not listed anywhere" : `Listed in ${s.listed} ${s.listed === 1 ? "place" : "places"}`}. Checked every ${hours >= 1 ? `${hours} h` : `${s.interval_seconds} s`} against ${[...s.ip_zones, ...s.domain_zones].join(", ") || "no zones"}.`}
        </p>
      ) : null}
      <table class="blocklists">
        <thead>
          <tr>
            <th scope="col">Address or domain</th>
            <th scope="col">List</th>
            <th scope="col">Status</th>
            <th scope="col">Answer</th>
            <th scope="col">Since</th>
            <th scope="col">Checked</th>
          </tr>
        </thead>
        <tbody>
          {s && s.data.length === 0 ? (
            <tr>
              <td colSpan={6} class="muted">
                Nothing checked yet.
              </td>
            </tr>
          ) : null}
          {(s?.data ?? []).map((e) => (
            <tr key={`${e.target} ${e.zone}`}>
              <td>{e.target}</td>
              <td>{e.zone}</td>
              <td>
                <Status status={e.status} />
              </td>
              <td>{[e.code, e.meaning].filter(Boolean).join(" — ") || "—"}</td>
              <td>{fmtDate(e.since)}</td>
              <td>{fmtDate(e.checked_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function Warmups() {
  const domains = useLoad(() => api.get<ApiBody<"/v1/domains">>("/v1/domains", { "page[size]": 100 }), []);
  return (
    <Section title="Warm-up">
      <ListStatus list={domains} />
      {(domains.data?.data ?? []).map((d) => (
        <WarmupOf key={d.id} id={d.id} />
      ))}
    </Section>
  );
}

function WarmupOf({ id }: { id: string }) {
  const w = useLoad(() => api.get<Warmup>(`/v1/domains/${id}/warmup`), [id]);
  const { busy, error, notice, run } = useActions(w.reload);
  const [schedule, setSchedule] = useState<string | null>(null);
  // The controls only with the permission the operation declares (src/web/app/allowed.ts); a cast until api-types.ts has the endpoint.
  const allowed = useAllowed();
  const data = w.data;
  if (!data) return <ListStatus list={w} />;
  const shown = schedule ?? data.schedule.join(", ");
  const save = (enabled: boolean) =>
    run(async () => {
      const caps = shown.split(/[\s,]+/).filter(Boolean).map(Number);
      await api.put(`/v1/domains/${id}/warmup`, { enabled, schedule: caps });
      setSchedule(null);
      return enabled ? `Warm-up of ${data.domain} on.` : `Warm-up of ${data.domain} off.`;
    });
  const state = !data.enabled ? "off" : data.complete ? "complete" : `day ${data.day} of ${data.schedule.length}`;
  return (
    <div class="warmup" data-domain={data.domain}>
      <h3>
        {data.domain} <Status status={data.enabled ? (data.complete ? "complete" : "warming_up") : "off"} />
      </h3>
      <p class="warmup-progress">
        {data.enabled && !data.complete
          ? `Warm-up ${state}: ${data.sent_today} of ${data.cap_today} recipients today (broadcast up to ${data.broadcast_cap_today}); ${data.held} held until ${fmtDate(data.next_release_at)}.`
          : `Warm-up ${state}.`}
      </p>
      {data.days.length > 0 ? (
        <table class="warmup-days">
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Cap</th>
              <th scope="col">Sent</th>
            </tr>
          </thead>
          <tbody>
            {data.days.map((d) => (
              <tr key={d.date}>
                <td>{d.date}</td>
                <td class="num">{d.cap ?? "—"}</td>
                <td class="num">{d.sent}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {allowed("PUT /v1/domains/{domainId}/warmup") ? (
      <form class="inline" onSubmit={(e) => (e.preventDefault(), void save(true))} aria-label={`Warm-up of ${data.domain}`}>
        <Field label="Daily caps" hint="Recipients per UTC day, day 1 first" value={shown} onInput={(e) => setSchedule(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={busy}>
          {data.enabled ? "Save schedule" : "Start warm-up"}
        </button>
        {data.enabled ? (
          <button type="button" disabled={busy} onClick={() => void save(false)}>
            Stop warm-up
          </button>
        ) : null}
      </form>
      ) : null}
      <ErrorBox error={error} />
      <Notice notice={notice} />
    </div>
  );
}

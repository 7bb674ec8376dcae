import { useState } from "preact/hooks";
import { useAllowed } from "../allowed.ts";
import { api, type ApiBody, type ApiItem } from "../api.ts";
import { ErrorBox, fmtDate, Loading, Notice, Section, Status, useActions, useLoad } from "../ui.tsx";

type Message = ApiBody<"/v1/messages/{messageId}">;
type MessageEvent = ApiItem<"/v1/messages/{messageId}/events">;

/** Every event, page after page (a message's history is short). */
async function allEvents(id: string): Promise<MessageEvent[]> {
  const out: MessageEvent[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 20; i++) {
    const page: ApiBody<"/v1/messages/{messageId}/events"> = await api.get(`/v1/messages/${id}/events`, { "page[size]": 100, "page[cursor]": cursor });
    out.push(...page.data);
    if (!(cursor = page.next_cursor)) break;
  }
  return out;
}

/** The header block of a MIME source, unfolded: one [name, value] per header. */
export function headersOf(source: string): [string, string][] {
  const end = source.search(/\r?\n\r?\n/);
  const block = (end === -1 ? source : source.slice(0, end)).replace(/\r?\n[ \t]+/g, " ");
  return block
    .split(/\r?\n/)
    .map((line) => {
      const i = line.indexOf(":");
      return [line.slice(0, i), line.slice(i + 1).trim()] as [string, string];
    })
    .filter(([name]) => name.length > 0);
}

/** The remote server's reply an event carries, when it does. */
function replyOf(data: Record<string, unknown>): string | null {
  const r = (data.response ?? data.reply ?? data.smtp_response) as { code?: number; enhanced_code?: string; message?: string } | string | undefined;
  if (!r) return typeof data.reason === "string" ? data.reason : null;
  if (typeof r === "string") return r;
  return [r.code, r.enhanced_code, r.message].filter(Boolean).join(" ");
}

export function MessageDetail({ id }: { id: string }) {
  const message = useLoad(() => api.get<Message>(`/v1/messages/${id}`), [id]);
  const events = useLoad(() => allEvents(id), [id]);
  const recipients = useLoad(() => api.get<ApiBody<"/v1/messages/{messageId}/recipients">>(`/v1/messages/${id}/recipients`), [id]);
  const [tab, setTab] = useState<"html" | "headers" | "source">("html");
  const [images, setImages] = useState(false);
  const source = useLoad(() => (tab === "html" ? Promise.resolve(null) : api.text(`/v1/messages/${id}/source`)), [id, tab === "html"]);
  // Releasing held (quarantined) inbound mail to its route's webhooks; then the status and timeline are read again.
  // Each action only with the permission its operation declares (src/web/app/allowed.ts).
  const allowed = useAllowed();
  const held = useActions(() => {
    message.reload();
    events.reload();
  });
  const release = () =>
    held.run(async () => {
      const r = await api.post<ApiBody<"/v1/messages/{messageId}/process", "post">>(`/v1/messages/${id}/process`);
      const n = r.data.webhook_target_count;
      return `Released: queued for ${n} webhook${n === 1 ? "" : "s"} of its route.`;
    });

  if (message.loading && !message.data) return <Loading />;
  if (message.error) return <ErrorBox error={message.error} />;
  const m = message.data!;
  return (
    <>
      <Section title={m.subject || "(no subject)"}>
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <Status status={m.status} /> <span class="muted">since {fmtDate(m.status_changed_at)}</span>
            {m.status === "quarantined" && allowed("POST /v1/messages/{messageId}/process") ? (
              <>
                {" "}
                <button type="button" class="small" disabled={held.busy} onClick={release}>
                  Release
                </button>{" "}
                <span class="muted">held as spam: releasing hands it to the route's webhooks as message.inbound</span>
              </>
            ) : null}
            <ErrorBox error={held.error} />
            <Notice notice={held.notice} />
          </dd>
          <dt>From</dt>
          <dd>{m.from_name ? `${m.from_name} <${m.from_email}>` : m.from_email}</dd>
          <dt>To</dt>
          <dd>{m.to.map((a) => a.email).join(", ") || "—"}</dd>
          {m.cc.length ? (
            <>
              <dt>Cc</dt>
              <dd>{m.cc.map((a) => a.email).join(", ")}</dd>
            </>
          ) : null}
          <dt>Type</dt>
          <dd>{m.type}</dd>
          <dt>Created</dt>
          <dd>{fmtDate(m.created_at)}</dd>
          {m.tag ? (
            <>
              <dt>Tag</dt>
              <dd>{m.tag}</dd>
            </>
          ) : null}
          {m.tags.length ? (
            <>
              <dt>Tags</dt>
              <dd>{m.tags.map((t) => `${t.name}=${t.value}`).join(", ")}</dd>
            </>
          ) : null}
          <dt>ID</dt>
          <dd>
            <code>{m.id}</code>
          </dd>
        </dl>
      </Section>

      <Section title="Recipients">
        <ErrorBox error={recipients.error} />
        <table>
          <tbody>
            {(recipients.data?.data ?? []).map((r) => (
              <tr key={r.email}>
                <td>{r.email}</td>
                <td>
                  <Status status={r.status} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>

      <Section title="Timeline">
        <ErrorBox error={events.error} />
        <ol class="timeline">
          {(events.data ?? []).map((e) => {
            const reply = replyOf(e.data);
            return (
              <li key={e.id}>
                <time>{fmtDate(e.created_at)}</time> <strong>{e.kind}</strong> {e.recipient ? <span>{e.recipient}</span> : null}{" "}
                {e.status ? <Status status={e.status} /> : null}
                {reply ? <div class="reply">{reply}</div> : null}
                <details>
                  <summary>Data</summary>
                  <pre>{JSON.stringify(e.data, null, 2)}</pre>
                </details>
              </li>
            );
          })}
        </ol>
      </Section>

      {m.attachments.length ? (
        <Section title="Attachments">
          <ul>
            {m.attachments.map((a) => (
              <li key={a.filename}>
                {a.filename} <span class="muted">({a.content_type}, {a.size.toLocaleString()} bytes)</span>
              </li>
            ))}
          </ul>
        </Section>
      ) : null}

      {m.type === "inbound" ? (
        <Section title={`Spam score ${m.spam_score ?? "—"}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Symbol</th>
                <th scope="col" class="num">
                  Score
                </th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {m.spam_symbols.map((s) => (
                <tr key={s.name}>
                  <td>{s.name}</td>
                  <td class="num">{s.score}</td>
                  <td>
                    {s.description} {s.options.length ? <span class="muted">({s.options.join(", ")})</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      ) : null}

      <Section title="Content">
        <div role="tablist" class="tabs">
          {(["html", "headers", "source"] as const).map((t) => (
            <button type="button" role="tab" aria-selected={tab === t} key={t} onClick={() => setTab(t)}>
              {t === "html" ? "HTML" : t === "headers" ? "Headers" : "Source"}
            </button>
          ))}
        </div>
        {tab === "html" ? (
          <div>
            <p class="muted">
              Shown in a sandbox: no scripts, no remote content.{" "}
              {images ? null : (
                <button type="button" class="small" onClick={() => setImages(true)}>
                  Load images
                </button>
              )}
            </p>
            {/* The API answers the HTML with its own CSP (no scripts; remote images only with images=1); the frame is sandboxed too. */}
            <iframe
              class="mail"
              title="Message HTML"
              sandbox=""
              referrerpolicy="no-referrer"
              src={`/v1/messages/${m.id}/html${images ? "?images=1" : ""}`}
            />
          </div>
        ) : source.error ? (
          <ErrorBox error={source.error} />
        ) : source.data === null ? (
          <Loading />
        ) : tab === "headers" ? (
          <table class="headers">
            <tbody>
              {headersOf(source.data).map(([name, value], i) => (
                <tr key={i}>
                  <th scope="row">{name}</th>
                  <td>{value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <pre class="source">{source.data}</pre>
        )}
      </Section>
    </>
  );
}

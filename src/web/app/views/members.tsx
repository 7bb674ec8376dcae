import { useState } from "preact/hooks";
import { useAccess } from "../allowed.ts";
import { api, type ApiBody, type ApiItem, type Session, type ApiRequest } from "../api.ts";
import { Field, fmtDate, ListStatus, messageOf, Section, ShownOnce, useLoad } from "../ui.tsx";

type Member = ApiItem<"/v1/team/members">;
type Role = NonNullable<ApiRequest<"/v1/team/members">["role"]>;

export function Members({ session }: { session: Session }) {
  const list = useLoad(() => api.get<ApiBody<"/v1/team/members">>("/v1/team/members", { "page[size]": 100 }), []);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [link, setLink] = useState<{ label: string; url: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Each action only with the permission its operation declares (src/web/app/allowed.ts); the roles to give are read with them, afresh.
  const { allowed, roles } = useAccess({ fresh: true });
  const invite = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const res = await api.post<ApiBody<"/v1/team/members", "post">>("/v1/team/members", { email, role } satisfies ApiRequest<"/v1/team/members">);
      setLink(
        res.password_url
          ? { label: `Password link for ${email} (valid 7 days; setting the password accepts the invitation)`, url: res.password_url }
          : res.invitation_url
            ? { label: `Invitation link for ${email}, who has an account already (valid 7 days; they accept it signed in)`, url: res.invitation_url }
            : null,
      );
      setEmail("");
      list.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const remove = async (m: Member) => {
    if (!confirm(m.status === "pending" ? `Revoke the invitation of ${m.user.email}?` : `Remove ${m.user.email} from the team?`)) return;
    setError(null);
    try {
      await api.del(`/v1/team/members/${m.id}`);
      list.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const signOutEverywhere = async () => {
    await api.post("/v1/auth/sign-out-everywhere");
    location.reload();
  };
  return (
    <>
    <Section title="Team members" actions={<button type="button" onClick={signOutEverywhere}>Sign out everywhere</button>}>
      {allowed("POST /v1/team/members") ? (
        <form class="inline" onSubmit={invite} aria-label="Invite a member">
          <Field label="Email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <Field label="Role">
            <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              {(roles ?? [])
                .filter((r) => r.assignable)
                .map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name}
                  </option>
                ))}
            </select>
          </Field>
          <button type="submit" class="primary">
            Invite
          </button>
        </form>
      ) : (
        <p class="muted">Your role does not allow inviting or removing members (members:manage).</p>
      )}
      {link ? <ShownOnce label={link.label} value={link.url} /> : null}
      <ListStatus list={list} error={error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Joined</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((m) => (
            <tr key={m.id}>
              <td>{m.user.name}</td>
              <td>{m.user.email}</td>
              <td>{m.role}</td>
              <td>{m.status === "pending" || m.joined_at === null ? <span class="muted">invited, not yet accepted</span> : fmtDate(m.joined_at)}</td>
              <td>
                {allowed("DELETE /v1/team/members/{memberId}") && m.user.id !== session.user.id ? (
                  <button type="button" class="small danger" onClick={() => remove(m)} aria-label={`${m.status === "pending" ? "Revoke the invitation of" : "Remove"} ${m.user.email}`}>
                    {m.status === "pending" ? "Revoke" : "Remove"}
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
    <Tokens />
    </>
  );
}

/** GET /v1/team/tokens (never a secret). */
type Token = ApiItem<"/v1/team/tokens">;

/** The team's named API tokens (docs/access.md): listed, made with a role, rotated and revoked, as the member's permissions allow. */
export function Tokens() {
  const { allowed, roles } = useAccess({ fresh: true });
  const mayList = allowed("GET /v1/team/tokens");
  const list = useLoad(() => (mayList ? api.get<{ data: Token[] }>("/v1/team/tokens") : Promise.resolve({ data: [] as Token[] })), [mayList]);
  const [name, setName] = useState("");
  const [role, setRole] = useState("member");
  const [secret, setSecret] = useState<{ label: string; token: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const act = async (fn: () => Promise<void>) => {
    setError(null);
    try {
      await fn();
      list.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const create = (e: Event) => {
    e.preventDefault();
    return act(async () => {
      const res = await api.post<{ token: string }>("/v1/team/tokens", { name, role_id: role });
      setSecret({ label: `Token ${name}`, token: res.token });
      setName("");
    });
  };
  const rotate = (t: Token) =>
    act(async () => {
      if (!confirm(`Rotate ${t.name}? Its current secret stops working at once.`)) return;
      const res = await api.post<{ token: string }>(`/v1/team/tokens/${t.id}/rotate`);
      setSecret({ label: `New secret of ${t.name}`, token: res.token });
    });
  const revoke = (t: Token) =>
    act(async () => {
      if (!confirm(`Revoke ${t.name}? It stops working at once.`)) return;
      await api.del(`/v1/team/tokens/${t.id}`);
    });
  if (!roles || !mayList) return null;
  return (
    <Section title="API tokens">
      {allowed("POST /v1/team/tokens") ? (
        <form class="inline" onSubmit={create} aria-label="Create an API token">
          <Field label="Token name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <Field label="Token role">
            <select value={role} onChange={(e) => setRole(e.currentTarget.value)}>
              {roles
                .filter((r) => r.assignable)
                .map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name}
                  </option>
                ))}
            </select>
          </Field>
          <button type="submit" class="primary">
            Create token
          </button>
        </form>
      ) : null}
      {secret ? <ShownOnce label={secret.label} value={secret.token} /> : null}
      <ListStatus list={list} error={error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Projects</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((t) => (
            <tr key={t.id}>
              <td>{t.name}</td>
              <td>{t.role_id ?? `${t.permissions.length} permission(s)`}</td>
              <td>{t.project_access.scope === "all" ? "all" : t.project_access.projects.map((p) => p.name).join(", ")}</td>
              <td>{t.expires_at ? fmtDate(t.expires_at) : "never"}</td>
              <td>{t.last_used_at ? `${fmtDate(t.last_used_at)}${t.last_used_ip ? ` from ${t.last_used_ip}` : ""}` : "never"}</td>
              <td>
                {allowed("POST /v1/team/tokens/{tokenId}/rotate") ? (
                  <button type="button" class="small" onClick={() => rotate(t)} aria-label={`Rotate ${t.name}`}>
                    Rotate
                  </button>
                ) : null}
                {allowed("DELETE /v1/team/tokens/{tokenId}") ? (
                  <button type="button" class="small danger" onClick={() => revoke(t)} aria-label={`Revoke ${t.name}`}>
                    Revoke
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

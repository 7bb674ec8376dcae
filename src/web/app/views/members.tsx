import { useState } from "preact/hooks";
import { api, type ApiBody, type ApiItem, type Session, type ApiRequest } from "../api.ts";
import { Field, fmtDate, ListStatus, messageOf, Section, ShownOnce, useLoad } from "../ui.tsx";

type Member = ApiItem<"/v1/team/members">;
type Role = NonNullable<ApiRequest<"/v1/team/members">["role"]>;
/** GET /v1/team/roles (Lettermint's TeamRoleData). */
type TeamRole = ApiItem<"/v1/team/roles">;

export function Members({ session }: { session: Session }) {
  const list = useLoad(() => api.get<ApiBody<"/v1/team/members">>("/v1/team/members", { "page[size]": 100 }), []);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [link, setLink] = useState<{ label: string; url: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  // What the signed-in member may do is their role's permissions (docs/access.md); the API refuses the rest anyway.
  const roles = useLoad(() => api.get<{ data: TeamRole[] }>("/v1/team/roles"), []);
  const mine = roles.data?.data.find((r) => r.id === session.team.role);
  const canManage = mine ? mine.permissions.includes("members:manage") : false;
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
      {canManage ? (
        <form class="inline" onSubmit={invite} aria-label="Invite a member">
          <Field label="Email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <Field label="Role">
            <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              {(roles.data?.data ?? [])
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
                {canManage && m.user.id !== session.user.id ? (
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
    <Tokens session={session} />
    </>
  );
}

/** GET /v1/team/tokens (never a secret). */
type Token = ApiItem<"/v1/team/tokens">;

/** The team's named API tokens (docs/access.md): listed, made with a role, rotated and revoked, as the member's permissions allow. */
export function Tokens({ session }: { session: Session }) {
  const roles = useLoad(() => api.get<{ data: TeamRole[] }>("/v1/team/roles"), []);
  const may = (p: string) => roles.data?.data.find((r) => r.id === session.team.role)?.permissions.includes(p) ?? false;
  const list = useLoad(() => (may("team_tokens:read") ? api.get<{ data: Token[] }>("/v1/team/tokens") : Promise.resolve({ data: [] as Token[] })), [roles.data]);
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
  if (!roles.data || !may("team_tokens:read")) return null;
  return (
    <Section title="API tokens">
      {may("team_tokens:manage") ? (
        <form class="inline" onSubmit={create} aria-label="Create an API token">
          <Field label="Token name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <Field label="Token role">
            <select value={role} onChange={(e) => setRole(e.currentTarget.value)}>
              {roles.data.data
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
                {may("team_tokens:rotate") ? (
                  <button type="button" class="small" onClick={() => rotate(t)} aria-label={`Rotate ${t.name}`}>
                    Rotate
                  </button>
                ) : null}
                {may("team_tokens:revoke") ? (
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

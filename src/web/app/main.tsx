/** The Posthorn dashboard: a client of the /v1 API, signed in with a session cookie. */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { signedInAs } from "./allowed.ts";
import { api, setCsrfToken, whenSignedOut, type Session } from "./api.ts";
import { Loading, useRoute } from "./ui.tsx";
import { Deliverability } from "./views/deliverability.tsx";
import { DomainDetail, Domains } from "./views/domains.tsx";
import { Members } from "./views/members.tsx";
import { AuditLog } from "./views/audit-log.tsx";
import { MessageDetail } from "./views/message.tsx";
import { Messages } from "./views/messages.tsx";
import { Overview } from "./views/overview.tsx";
import { Projects } from "./views/projects.tsx";
import { Queue } from "./views/queue.tsx";
import { Security, twoFactorOf } from "./views/security.tsx";
import { RouteSettings } from "./views/route.tsx";
import { AcceptInvitation, SetPassword, SignIn } from "./views/signin.tsx";
import { Suppressions } from "./views/suppressions.tsx";
import { WebhookDetail, Webhooks } from "./views/webhooks.tsx";
import "./style.css";

const NAV: [string, string][] = [
  ["", "Overview"],
  ["messages", "Messages"],
  ["queue", "Queue"],
  ["domains", "Domains"],
  ["deliverability", "Deliverability"],
  ["webhooks", "Webhooks"],
  ["suppressions", "Suppressions"],
  ["projects", "Projects"],
  ["members", "Team"],
  ["security", "Security"],
  ["audit-log", "Audit log"],
];

function App() {
  const route = useRoute();
  // undefined: still asking who is signed in; null: nobody.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const signedIn = (s: Session | null) => {
    setCsrfToken(s?.csrf_token ?? null);
    signedInAs(s);
    setSession(s);
  };
  useEffect(() => {
    whenSignedOut(() => signedIn(null));
    api.session().then(signedIn);
  }, []);

  if (route.parts[0] === "set-password" && route.parts[1]) return <SetPassword token={route.parts[1]} />;
  if (session === undefined) return <Loading />;
  const signOut = async () => {
    await api.post("/v1/auth/sign-out").catch(() => undefined);
    signedIn(null);
  };
  if (route.parts[0] === "accept-invitation" && route.parts[1]) {
    return <AcceptInvitation token={route.parts[1]} session={session} onAccepted={signedIn} onSignOut={signOut} />;
  }
  if (session === null) return <SignIn onSignedIn={signedIn} />;
  const reloadSession = () => api.session().then(signedIn);
  // The team requires two-factor sign-in and this session has none: set-up is all it can do.
  if (twoFactorOf(session).must_enrol) {
    return (
      <main class="signin enrol" id="main">
        <h1>Posthorn</h1>
        <Security session={session} onChanged={reloadSession} />
        <button type="button" class="small" onClick={signOut}>
          Sign out
        </button>
      </main>
    );
  }

  const [section = "", id] = route.parts;
  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById("main")?.focus())}>
        Skip to content
      </a>
      <header>
        <strong class="brand">Posthorn</strong>
        <nav aria-label="Sections">
          {NAV.map(([path, label]) => (
            <a key={path} href={`#/${path}`} aria-current={section === path || (path === "projects" && section === "routes") ? "page" : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <div class="who">
          <span title={session.user.email}>
            {session.user.email} · {session.team.name}
          </span>
          <button type="button" class="small" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {section === "" ? <Overview /> : null}
        {section === "messages" ? id ? <MessageDetail id={id} /> : <Messages route={route} /> : null}
        {section === "queue" ? <Queue route={route} /> : null}
        {section === "domains" ? id ? <DomainDetail id={id} /> : <Domains /> : null}
        {section === "deliverability" ? <Deliverability /> : null}
        {section === "webhooks" ? id ? <WebhookDetail id={id} /> : <Webhooks /> : null}
        {section === "suppressions" ? <Suppressions route={route} /> : null}
        {section === "projects" ? <Projects /> : null}
        {section === "routes" && id ? <RouteSettings id={id} /> : null}
        {section === "members" ? <Members session={session} /> : null}
        {section === "security" ? <Security session={session} onChanged={reloadSession} /> : null}
        {section === "audit-log" ? <AuditLog route={route} /> : null}
      </main>
    </div>
  );
}

render(<App />, document.getElementById("app")!);

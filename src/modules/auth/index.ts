import { Elysia, t } from "elysia";
import { authenticateSession, signIn } from "../../auth/sessions.ts";
import type { Deps } from "../../context.ts";
import { authPlugin, clientIp, trustedProxies, type IpServer } from "../../http/auth.ts";
import { auditAs } from "../../http/audit.ts";
import { Envelope, errorResponses, MessageBody } from "../../http/schemas.ts";
import { AppError, UnauthenticatedError, ValidationError } from "../../errors.ts";
import { changesState, clearedSessionCookie, CSRF_HEADER, secureCookies, sessionCookie, sessionTokenOf } from "../../http/session-cookie.ts";
import type { SessionPrincipal } from "../../auth/sessions.ts";
import { confirmEnrolment, disableTwoFactor, renewRecoveryCodes, setTeamRequirement, startEnrolment } from "../../auth/two-factor.ts";
import { AcceptInvitationBody, SsoCallbackQuery, SsoData, CodeBody, EnrolmentData, RecoveryCodesData, RequirementBody, SessionData, SetPasswordBody, SignInBody } from "./model.ts";
import { acceptInvitationAsSession, acceptInvitationWithPassword, finishSso, sessionData, setPasswordWithToken, signOut, signOutEverywhere, ssoFailureOf, ssoFailureValue, startSso } from "./service.ts";
import { oidcClient, SSO_REQUEST_TTL_MS } from "../../auth/oidc.ts";

const sessionSecurity = [{ sessionCookie: [] }];

type Headers = Record<string, string | undefined>;
/**
 * The session of a request that a session which must still enrol in two-factor sign-in may make
 * (reading itself, signing out, the two-factor set-up): checked in `transform`, before the body,
 * as the auth plugin checks every other route's.
 */
const enrolmentSessions = new WeakMap<Request, SessionPrincipal>();
const enrolmentSession = (deps: Deps) => ({
  async transform({ headers, request }: { headers: Headers; request: Request }) {
    const cookie = headers.authorization === undefined ? sessionTokenOf(headers.cookie) : null;
    if (cookie === null) throw new UnauthenticatedError();
    enrolmentSessions.set(request, auditAs(request, await authenticateSession(deps, cookie, { changes: changesState(request.method), csrf: headers[CSRF_HEADER], enrolment: true })));
  },
});
/** The cookie that ties a single sign-on's answer to the browser that started it (Lax: the provider's redirect back is a cross-site navigation). */
const SSO_COOKIE = "posthorn_sso";
const ssoCookie = (value: string, maxAge: number, secure: boolean) =>
  `${SSO_COOKIE}=${value}; Path=/v1/auth/sso; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}; Max-Age=${maxAge}`;
function cookieOf(cookieHeader: string | undefined, name: string): string | null {
  for (const part of (cookieHeader ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}
const ssoStateOf = (cookieHeader: string | undefined) => cookieOf(cookieHeader, SSO_COOKIE);
/** Why a browser's single sign-on was refused, from the callback to the sign-in page (GET /v1/auth/sso reads it once). */
const SSO_FAILURE_COOKIE = "posthorn_sso_failure";
const ssoFailureCookie = (value: string, maxAge: number, secure: boolean) =>
  `${SSO_FAILURE_COOKIE}=${value}; Path=/v1/auth/sso; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}; Max-Age=${maxAge}`;
const SSO_FAILURE_TTL_SECONDS = 300;
/** A browser's navigation (the provider's redirect back) asks for HTML; an API client does not. */
const isNavigation = (accept: string | undefined) => /\btext\/html\b/i.test(accept ?? "");

const sessionOf = (request: Request): SessionPrincipal => {
  const session = enrolmentSessions.get(request);
  if (!session) throw new UnauthenticatedError();
  return session;
};

/**
 * The dashboard's sign-in: a team member's email and password open a session (cookie
 * posthorn_session), which every management endpoint then accepts like the team token.
 */
export const authController = (deps: Deps) =>
  new Elysia({ tags: ["Dashboard sessions"] })
    .use(authPlugin(deps))
    .post(
      "/v1/auth/sign-in",
      async ({ body, headers, request, server, set }) => {
        const signedIn = await signIn(
          deps,
          { email: body.email, password: body.password, teamId: body.team_id?.toLowerCase(), code: body.code },
          { ip: clientIp(server as IpServer, request, trustedProxies(deps.config)), userAgent: headers["user-agent"] ?? null, previousToken: sessionTokenOf(headers.cookie) },
        );
        set.status = 201;
        set.headers["set-cookie"] = sessionCookie(signedIn.token, secureCookies(request, deps.config.publicUrl));
        set.headers["cache-control"] = "no-store";
        return { data: await sessionData(deps, signedIn.principal, signedIn.teams), message: "Signed in." };
      },
      {
        body: SignInBody,
        detail: {
          summary: "Sign in to the dashboard",
          description:
            "Opens a session for a team member: sets the HttpOnly cookie posthorn_session (SameSite=Strict; Secure under https) and answers the session, whose csrf_token must accompany every request that changes something (X-CSRF-Token). A cookie the client still sends is ended (the session is rotated). When the user has two-factor sign-in on, a right password without `code` is a 401 whose error is two_factor_required (send the request again with the code), and a wrong, expired or replayed code a 401 two_factor_invalid, counted like a wrong password. Failed sign-ins are limited per address (5 in 15 minutes) and per client IP (POSTHORN_AUTH_FAILURE_LIMIT, 10 a minute, counted with failed API tokens and SMTP AUTH), then 429 with Retry-After.",
          security: [],
        },
        response: { 201: Envelope(SessionData), ...errorResponses(401, 422, 429) },
      },
    )
    .get("/v1/auth/session", async ({ request, set }) => {
      set.headers["cache-control"] = "no-store";
      return { data: await sessionData(deps, sessionOf(request)) };
    }, {
      ...enrolmentSession(deps),
      detail: { summary: "The current dashboard session (who is signed in, the CSRF token)", security: sessionSecurity },
      response: { 200: t.Object({ data: SessionData }), ...errorResponses(401) },
    })
    .post(
      "/v1/auth/sign-out",
      async ({ request, set }) => {
        await signOut(deps, sessionOf(request));
        set.headers["set-cookie"] = clearedSessionCookie(secureCookies(request, deps.config.publicUrl));
        return { message: "Signed out." };
      },
      { ...enrolmentSession(deps), detail: { summary: "Sign out (this session)", security: sessionSecurity }, response: { 200: MessageBody, ...errorResponses(401, 403) } },
    )
    .post(
      "/v1/auth/sign-out-everywhere",
      async ({ request, set }) => {
        const ended = await signOutEverywhere(deps, sessionOf(request));
        set.headers["set-cookie"] = clearedSessionCookie(secureCookies(request, deps.config.publicUrl));
        return { message: `Signed out everywhere (${ended} session${ended === 1 ? "" : "s"} ended).` };
      },
      {
        ...enrolmentSession(deps),
        detail: { summary: "Sign out every session of this user, on every device and team", security: sessionSecurity },
        response: { 200: MessageBody, ...errorResponses(401, 403) },
      },
    )
    .post(
      "/v1/auth/password",
      async ({ body }) => {
        await setPasswordWithToken(deps, body);
        return { message: "Password set. Sign in with it." };
      },
      {
        body: SetPasswordBody,
        detail: {
          summary: "Set a password with a one-time link (an invitation)",
          description:
            "The token comes from the password_url of an invitation (POST /v1/team/members), which is given only for an address that had no account on this server. It works once, for 7 days, while the invitation stands (removing the pending member revokes it), and only sets a first password: never that of a user who has one or who is an active member of another team. Setting the password accepts the invitation and ends the user's sessions.",
          security: [],
        },
        response: { 200: MessageBody, ...errorResponses(422) },
      },
    )
    .post(
      "/v1/auth/invitations/accept",
      async ({ body, headers, request, server, set }) => {
        const client = { ip: clientIp(server as IpServer, request, trustedProxies(deps.config)), userAgent: headers["user-agent"] ?? null, previousToken: sessionTokenOf(headers.cookie) };
        let accepted;
        if (body.code !== undefined && body.password === undefined) throw ValidationError.field("code", "A code goes with a password; with a session, accept without one.");
        if (body.password !== undefined) {
          accepted = await acceptInvitationWithPassword(deps, { token: body.token, password: body.password, code: body.code }, client);
        } else {
          const cookie = sessionTokenOf(headers.cookie);
          if (cookie === null) throw new UnauthenticatedError();
          const principal = await authenticateSession(deps, cookie, { changes: true, csrf: headers[CSRF_HEADER] });
          accepted = await acceptInvitationAsSession(deps, principal, body.token, client);
        }
        // Logged in the team just joined, as its new member's change (with a session or a password alike).
        auditAs(request, accepted.principal);
        set.headers["set-cookie"] = sessionCookie(accepted.token, secureCookies(request, deps.config.publicUrl));
        set.headers["cache-control"] = "no-store";
        return { data: await sessionData(deps, accepted.principal), message: `Invitation accepted: you are a member of ${accepted.team.name}.` };
      },
      {
        body: AcceptInvitationBody,
        detail: {
          summary: "Accept an invitation to a team",
          description:
            "The token comes from the invitation_url of an invitation (POST /v1/team/members). The invited user accepts it as themselves: with their session (cookie posthorn_session and X-CSRF-Token, as every state-changing request), or, without one, with their own password (throttled like a sign-in of that address; with two-factor sign-in on, `code` too, else 401 two_factor_required). A session of another user is a 403; an unknown, used, revoked or expired token a 422. The invitation works once, for 7 days. The answer is a new session in the team just joined (the cookie is replaced).",
          security: [{ sessionCookie: [] }, {}],
        },
        response: { 200: Envelope(SessionData), ...errorResponses(401, 403, 422, 429) },
      },
    )
    .post(
      "/v1/auth/two-factor/enrol",
      async ({ request, set }) => {
        const enrolment = await startEnrolment(deps, sessionOf(request), `Posthorn (${new URL(deps.config.publicUrl).host})`);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return { data: { secret: enrolment.secret, otpauth_uri: enrolment.otpauthUri }, message: "Add the secret to your authenticator app, then confirm with a code of it." };
      },
      {
        ...enrolmentSession(deps),
        detail: {
          summary: "Start two-factor sign-in: a new TOTP secret",
          description:
            "Answers a new TOTP secret (RFC 6238: SHA1, 6 digits, 30 seconds) as base32 and as an otpauth:// URI, shown this once. It takes effect only when POST /v1/auth/two-factor/confirm sends a code of it; starting again replaces it. 409 two_factor_enabled when two-factor sign-in is on already. A session that must enrol (the team requires it) may call this.",
          security: sessionSecurity,
        },
        response: { 201: Envelope(EnrolmentData), ...errorResponses(401, 403, 409) },
      },
    )
    .post(
      "/v1/auth/two-factor/confirm",
      async ({ body, request, server }) => {
        const codes = await confirmEnrolment(deps, sessionOf(request), body.code, clientIp(server as IpServer, request, trustedProxies(deps.config)));
        return { data: { recovery_codes: codes }, message: "Two-factor sign-in is on. Keep the recovery codes somewhere safe: they are shown this once." };
      },
      {
        ...enrolmentSession(deps),
        body: CodeBody,
        detail: {
          summary: "Confirm two-factor sign-in with a code",
          description:
            "A code of the secret from /enrol turns two-factor sign-in on: the answer holds 10 single-use recovery codes, shown this once (kept only as SHA-256). This session counts as signed in with two factors; the user's other sessions end. A wrong, expired or used code is a 422 on `code`, throttled like a password (5 per user in 15 minutes, and the client IP's limit); 409 two_factor_not_enrolling without /enrol first.",
          security: sessionSecurity,
        },
        response: { 200: Envelope(RecoveryCodesData), ...errorResponses(401, 403, 409, 422, 429) },
      },
    )
    .post(
      "/v1/auth/two-factor/disable",
      async ({ body, request, server }) => {
        await disableTwoFactor(deps, sessionOf(request), body.code, clientIp(server as IpServer, request, trustedProxies(deps.config)));
        return { message: "Two-factor sign-in is off." };
      },
      {
        ...enrolmentSession(deps),
        body: CodeBody,
        detail: {
          summary: "Turn two-factor sign-in off with a code",
          description:
            "Needs a current TOTP code or a recovery code (used up; a wrong one is a 422 on `code`, throttled like a password). The secret and the recovery codes are deleted. 409 two_factor_required_by_team while the team requires it; 409 two_factor_not_enabled when it is off.",
          security: sessionSecurity,
        },
        response: { 200: MessageBody, ...errorResponses(401, 403, 409, 422, 429) },
      },
    )
    .post(
      "/v1/auth/two-factor/recovery-codes",
      async ({ body, request, server }) => {
        const codes = await renewRecoveryCodes(deps, sessionOf(request), body.code, clientIp(server as IpServer, request, trustedProxies(deps.config)));
        return { data: { recovery_codes: codes }, message: "New recovery codes: the old ones no longer work." };
      },
      {
        ...enrolmentSession(deps),
        body: CodeBody,
        detail: { summary: "New recovery codes (the old ones stop working), for a code", security: sessionSecurity },
        response: { 200: Envelope(RecoveryCodesData), ...errorResponses(401, 403, 409, 422, 429) },
      },
    )
    .put(
      "/v1/auth/two-factor/requirement",
      async ({ body, session }) => {
        await setTeamRequirement(deps, session, body.required);
        return { message: body.required ? "Every member must now sign in with two factors." : "Two-factor sign-in is no longer required." };
      },
      {
        session: true,
        permission: "security:manage",
        body: RequirementBody,
        detail: {
          summary: "Require two-factor sign-in of every member of the team (security:manage: owners)",
          description:
            "With required true, a member's session opened without a second factor can only set it up (every other request with it is a 403 two_factor_enrolment_required) and the dashboard sends them to enrolment. The owner must have it on first (409 two_factor_not_enabled). Sessions opened through single sign-on count as two-factor (the identity provider's own factors).",
          security: sessionSecurity,
        },
        response: { 200: MessageBody, ...errorResponses(401, 403, 409, 422) },
      },
    )
    .get(
      "/v1/auth/sso",
      async ({ headers, request, set }) => {
        const cookie = cookieOf(headers.cookie, SSO_FAILURE_COOKIE);
        if (cookie !== null) set.headers["set-cookie"] = ssoFailureCookie("", 0, secureCookies(request, deps.config.publicUrl));
        set.headers["cache-control"] = "no-store";
        return { data: { enabled: oidcClient(deps.config) !== null, failure: await ssoFailureOf(deps, cookie) } };
      },
      {
        detail: {
          summary: "Whether single sign-on (OpenID Connect) is configured",
          description:
            "The sign-in page shows \"Sign in with SSO\" when it is, and `failure`: why this browser's last single sign-on was refused (carried from the callback by the cookie posthorn_sso_failure, signed by Posthorn, read once).",
          security: [],
        },
        response: { 200: t.Object({ data: SsoData }) },
      },
    )
    .get(
      "/v1/auth/sso/start",
      async ({ request, server }) => {
        const started = await startSso(deps, clientIp(server as IpServer, request, trustedProxies(deps.config)));
        const headers = new Headers({ location: started.url, "cache-control": "no-store" });
        headers.append("set-cookie", ssoCookie(started.state, SSO_REQUEST_TTL_MS / 1000, secureCookies(request, deps.config.publicUrl)));
        return new Response(null, { status: 303, headers });
      },
      {
        detail: {
          summary: "Start single sign-on: redirects to the identity provider",
          description:
            "303 to the configured issuer's authorization endpoint (authorization code with PKCE S256, a fresh state and nonce, scope openid email profile); the state is also kept in the cookie posthorn_sso (HttpOnly, SameSite=Lax, 10 minutes), which the callback requires. A client IP may start 30 in 10 minutes, then 429. 404 when single sign-on is not configured.",
          security: [],
        },
        response: { ...errorResponses(404, 429) },
      },
    )
    .get(
      "/v1/auth/sso/callback",
      async ({ query, headers, request, server }) => {
        const client = { ip: clientIp(server as IpServer, request, trustedProxies(deps.config)), userAgent: headers["user-agent"] ?? null, previousToken: sessionTokenOf(headers.cookie) };
        const secure = secureCookies(request, deps.config.publicUrl);
        let opened;
        try {
          opened = await finishSso(deps, { ...query, cookieState: ssoStateOf(headers.cookie) }, client);
        } catch (err) {
          // A browser is taken to the sign-in page, which says why; an API client gets the error as JSON. Not configured stays a 404.
          if (!(err instanceof AppError) || err.status === 404 || err.status >= 500 || !isNavigation(headers.accept)) throw err;
          const out = new Headers({ location: `${deps.config.publicUrl}/#/`, "cache-control": "no-store" });
          out.append("set-cookie", ssoCookie("", 0, secure));
          out.append("set-cookie", ssoFailureCookie(await ssoFailureValue(deps, err.message), SSO_FAILURE_TTL_SECONDS, secure));
          return new Response(null, { status: 303, headers: out });
        }
        const out = new Headers({ location: `${deps.config.publicUrl}/#/`, "cache-control": "no-store" });
        out.append("set-cookie", sessionCookie(opened.token, secure));
        out.append("set-cookie", ssoCookie("", 0, secure));
        return new Response(null, { status: 303, headers: out });
      },
      {
        query: SsoCallbackQuery,
        detail: {
          summary: "The identity provider's redirect back (single sign-on)",
          description:
            "Checks the state against the browser's posthorn_sso cookie and the sign-in it names (used once, 10 minutes; else 422 on state), redeems the code with the PKCE verifier, and checks the ID token: RS256 or ES256 signature by a key of the issuer's JWKS, iss, aud (azp), exp and the nonce (else 401 sso_failed). The provider must vouch for the address (email_verified); a user with that address signs in, else one is created in the configured team with the default role (403 sso_no_team when there is none; 403 sso_domain_not_allowed outside POSTHORN_OIDC_ALLOWED_DOMAINS). Success: a session (cookie posthorn_session, counted as two-factor) and 303 to the dashboard. A refusal creates no user and no session; the error is the answer for an API client, while a browser (Accept: text/html) is sent 303 to the dashboard's sign-in page, which shows the same message (GET /v1/auth/sso's failure).",
          security: [],
        },
        response: { ...errorResponses(401, 403, 404, 422) },
      },
    );

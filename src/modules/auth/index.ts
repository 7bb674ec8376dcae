import { Elysia, t } from "elysia";
import { authenticateSession, signIn } from "../../auth/sessions.ts";
import type { Deps } from "../../context.ts";
import { authPlugin, clientIp, trustedProxies, type IpServer } from "../../http/auth.ts";
import { Envelope, errorResponses, MessageBody } from "../../http/schemas.ts";
import { UnauthenticatedError } from "../../errors.ts";
import { clearedSessionCookie, CSRF_HEADER, secureCookies, sessionCookie, sessionTokenOf } from "../../http/session-cookie.ts";
import { AcceptInvitationBody, SessionData, SetPasswordBody, SignInBody } from "./model.ts";
import { acceptInvitationAsSession, acceptInvitationWithPassword, sessionData, setPasswordWithToken, signOut, signOutEverywhere } from "./service.ts";

const sessionSecurity = [{ sessionCookie: [] }];

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
          { email: body.email, password: body.password, teamId: body.team_id?.toLowerCase() },
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
            "Opens a session for a team member: sets the HttpOnly cookie posthorn_session (SameSite=Strict; Secure under https) and answers the session, whose csrf_token must accompany every request that changes something (X-CSRF-Token). A cookie the client still sends is ended (the session is rotated). Failed sign-ins are limited per address (5 in 15 minutes) and per client IP (POSTHORN_AUTH_FAILURE_LIMIT, 10 a minute, counted with failed API tokens and SMTP AUTH), then 429 with Retry-After.",
          security: [],
        },
        response: { 201: Envelope(SessionData), ...errorResponses(401, 422, 429) },
      },
    )
    .get("/v1/auth/session", async ({ session, set }) => {
      set.headers["cache-control"] = "no-store";
      return { data: await sessionData(deps, session) };
    }, {
      session: true,
      detail: { summary: "The current dashboard session (who is signed in, the CSRF token)", security: sessionSecurity },
      response: { 200: t.Object({ data: SessionData }), ...errorResponses(401) },
    })
    .post(
      "/v1/auth/sign-out",
      async ({ session, request, set }) => {
        await signOut(deps, session);
        set.headers["set-cookie"] = clearedSessionCookie(secureCookies(request, deps.config.publicUrl));
        return { message: "Signed out." };
      },
      { session: true, detail: { summary: "Sign out (this session)", security: sessionSecurity }, response: { 200: MessageBody, ...errorResponses(401, 403) } },
    )
    .post(
      "/v1/auth/sign-out-everywhere",
      async ({ session, request, set }) => {
        const ended = await signOutEverywhere(deps, session);
        set.headers["set-cookie"] = clearedSessionCookie(secureCookies(request, deps.config.publicUrl));
        return { message: `Signed out everywhere (${ended} session${ended === 1 ? "" : "s"} ended).` };
      },
      {
        session: true,
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
        if (body.password !== undefined) {
          accepted = await acceptInvitationWithPassword(deps, { token: body.token, password: body.password }, client);
        } else {
          const cookie = sessionTokenOf(headers.cookie);
          if (cookie === null) throw new UnauthenticatedError();
          const principal = await authenticateSession(deps, cookie, { changes: true, csrf: headers[CSRF_HEADER] });
          accepted = await acceptInvitationAsSession(deps, principal, body.token, client);
        }
        set.headers["set-cookie"] = sessionCookie(accepted.token, secureCookies(request, deps.config.publicUrl));
        set.headers["cache-control"] = "no-store";
        return { data: await sessionData(deps, accepted.principal), message: `Invitation accepted: you are a member of ${accepted.team.name}.` };
      },
      {
        body: AcceptInvitationBody,
        detail: {
          summary: "Accept an invitation to a team",
          description:
            "The token comes from the invitation_url of an invitation (POST /v1/team/members). The invited user accepts it as themselves: with their session (cookie posthorn_session and X-CSRF-Token, as every state-changing request), or, without one, with their own password (throttled like a sign-in of that address). A session of another user is a 403; an unknown, used, revoked or expired token a 422. The invitation works once, for 7 days. The answer is a new session in the team just joined (the cookie is replaced).",
          security: [{ sessionCookie: [] }, {}],
        },
        response: { 200: Envelope(SessionData), ...errorResponses(401, 403, 422, 429) },
      },
    );

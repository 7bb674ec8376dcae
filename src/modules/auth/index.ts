import { Elysia, t } from "elysia";
import { signIn } from "../../auth/sessions.ts";
import type { Deps } from "../../context.ts";
import { authPlugin, clientIp, trustedProxies, type IpServer } from "../../http/auth.ts";
import { Envelope, errorResponses, MessageBody } from "../../http/schemas.ts";
import { clearedSessionCookie, secureCookies, sessionCookie, sessionTokenOf } from "../../http/session-cookie.ts";
import { SessionData, SetPasswordBody, SignInBody } from "./model.ts";
import { sessionData, setPasswordWithToken, signOut, signOutEverywhere } from "./service.ts";

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
          description: "The token comes from the password_url of an invitation (POST /v1/team/members). It works once, for 7 days. Setting a password ends the user's sessions.",
          security: [],
        },
        response: { 200: MessageBody, ...errorResponses(422) },
      },
    );

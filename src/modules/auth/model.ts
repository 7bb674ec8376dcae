import { t, type Static } from "elysia";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../auth/passwords.ts";
import { uuidString } from "../../http/schemas.ts";

export const SignInBody = t.Object({
  email: t.String({ minLength: 1, maxLength: 320, error: "The email field must be an email address.", examples: ["owner@example.com"] }),
  // Any length a user may have set is accepted here; what is too long simply does not match.
  password: t.String({ minLength: 1, maxLength: 1000, error: "The password field is required." }),
  team_id: t.Optional(uuidString("team_id", "The team to sign in to, when the user belongs to several; default the first they joined")),
});

export const SetPasswordBody = t.Object({
  token: t.String({ minLength: 1, maxLength: 200, error: "The token field is required.", description: "The one-time token of the link (after #/set-password/)" }),
  password: t.String({
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: PASSWORD_MAX_LENGTH,
    error: `The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long.`,
  }),
});

export const AcceptInvitationBody = t.Object({
  token: t.String({ minLength: 1, maxLength: 200, error: "The token field is required.", description: "The one-time token of the invitation_url (after #/accept-invitation/)" }),
  password: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 1000,
      error: "The password field must be a string.",
      description: "The invited user's own password, instead of a session (for a user who is active in no team yet)",
    }),
  ),
});

const TeamRef = t.Object({ id: t.String(), name: t.String(), role: t.String({ examples: ["owner", "member"] }) });

export const SessionData = t.Object({
  user: t.Object({ id: t.String(), name: t.String(), email: t.String() }),
  team: TeamRef,
  teams: t.Array(TeamRef, { description: "Every team the user belongs to (sign in again with team_id to switch)" }),
  csrf_token: t.String({ description: "Send it in the X-CSRF-Token header of every request that changes something" }),
  expires_at: t.String({ format: "date-time", description: "When the session ends if it stays idle; every use moves it on, up to 30 days after sign-in" }),
});
export type SessionData = Static<typeof SessionData>;

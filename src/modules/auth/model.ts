import { t, type Static } from "elysia";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../auth/passwords.ts";
import { uuidString } from "../../http/schemas.ts";

export const SignInBody = t.Object({
  email: t.String({ minLength: 1, maxLength: 320, error: "The email field must be an email address.", examples: ["owner@example.com"] }),
  // Any length a user may have set is accepted here; what is too long simply does not match.
  password: t.String({ minLength: 1, maxLength: 1000, error: "The password field is required." }),
  team_id: t.Optional(uuidString("team_id", "The team to sign in to, when the user belongs to several; default the first they joined")),
  code: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 40,
      error: "The code field must be a 6-digit code or a recovery code.",
      description: "The 6-digit code of the user's authenticator app, or one of their recovery codes: needed when two-factor sign-in is on (a sign-in without it is a 401 whose error is two_factor_required)",
    }),
  ),
});

/** A TOTP code (six digits) or a recovery code (xxxxx-xxxxx). */
export const CodeBody = t.Object({
  code: t.String({ minLength: 1, maxLength: 40, error: "The code field must be a 6-digit code or a recovery code.", examples: ["123456"] }),
});

export const RequirementBody = t.Object({
  required: t.Boolean({ error: "The required field must be true or false.", description: "Whether every member must sign in with two factors" }),
});

export const EnrolmentData = t.Object({
  secret: t.String({ description: "The TOTP secret (base32), shown this once: type it into an authenticator app, or use otpauth_uri" }),
  otpauth_uri: t.String({ description: "otpauth://totp/... for a QR code (SHA1, 6 digits, 30 seconds)" }),
});

export const RecoveryCodesData = t.Object({
  recovery_codes: t.Array(t.String(), { description: "Single-use codes that stand in for the authenticator, shown this once" }),
});

export const TwoFactorStatus = t.Object({
  enabled: t.Boolean({ description: "The user signs in with a TOTP code (or a recovery code) after the password" }),
  required: t.Boolean({ description: "The team requires two-factor sign-in of every member" }),
  must_enrol: t.Boolean({ description: "This session may only set up two-factor sign-in (the team requires it and the sign-in had no second factor); every other request is a 403 two_factor_enrolment_required" }),
  recovery_codes_left: t.Integer(),
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
  code: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 40,
      error: "The code field must be a 6-digit code or a recovery code.",
      description: "With password, for a user with two-factor sign-in on: a TOTP code or a recovery code (as at sign-in)",
    }),
  ),
});

const TeamRef = t.Object({ id: t.String(), name: t.String(), role: t.String({ examples: ["owner", "member"] }) });

export const SessionData = t.Object({
  user: t.Object({ id: t.String(), name: t.String(), email: t.String() }),
  team: TeamRef,
  teams: t.Array(TeamRef, { description: "Every team the user belongs to (sign in again with team_id to switch)" }),
  two_factor: TwoFactorStatus,
  csrf_token: t.String({ description: "Send it in the X-CSRF-Token header of every request that changes something" }),
  expires_at: t.String({ format: "date-time", description: "When the session ends if it stays idle; every use moves it on, up to 30 days after sign-in" }),
});
export type SessionData = Static<typeof SessionData>;

export const SsoData = t.Object({
  enabled: t.Boolean({ description: "Single sign-on is configured (POSTHORN_OIDC_ISSUER)" }),
  failure: t.Union([t.String(), t.Null()], {
    description: "Why this browser's last single sign-on was refused, once, for the sign-in page to show (a browser's refused callback leads there); null when there is none",
  }),
});

/** What the identity provider sends back (RFC 6749 §4.1.2, RFC 9207's iss); other parameters it adds are left alone. */
export const SsoCallbackQuery = t.Object(
  {
    state: t.Optional(t.String({ maxLength: 200 })),
    code: t.Optional(t.String({ maxLength: 4000 })),
    error: t.Optional(t.String({ maxLength: 200 })),
    error_description: t.Optional(t.String({ maxLength: 2000 })),
    iss: t.Optional(t.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);

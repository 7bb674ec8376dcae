import { t } from "elysia";

const Nullable = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Union([s, t.Null()]);

export const ProjectParams = t.Object({ projectId: t.String({ maxLength: 100, description: "Project ID (UUID)" }) });

/** Lettermint's ReportForwardingResource. */
export const ReportForwardingResource = t.Object({
  destination: Nullable(t.String({ description: "Where the project's DMARC and TLS reports are forwarded; null when forwarding is off" })),
  verified: t.Boolean({ description: "The destination proved it receives mail (the code mailed to it was given back); reports are forwarded only then" }),
  verified_at: Nullable(t.String({ format: "date-time" })),
});

export const ReportForwardingEnvelope = t.Object({ data: ReportForwardingResource });

export const ReportForwardingBody = t.Object({
  destination: t.String({ maxLength: 320, error: "The destination field is required and must be an email address of at most 320 characters." }),
});

export const VerifyForwardingBody = t.Object({
  code: t.String({ maxLength: 32, error: "The code field is required and must be a string." }),
});

/** Limits of the send endpoints (spec "Limits", plus the ones the spec leaves out). */
export const LIMITS = {
  batch: 500,
  subject: 998,
  tag: 33,
  /** Name-value tags of one message, the legacy tag counted among them (as Lettermint does). */
  tags: 20,
  bodyMin: 3,
  /** Distinct recipients (to + cc + bcc) of one message. */
  recipients: 500,
  replyTo: 50,
  attachments: 100,
  headers: 100,
  headerName: 100,
  headerValue: 2000,
  metadataKeys: 50,
  metadataKey: 100,
  metadataValue: 2000,
  idempotencyKey: 255,
  /** Idempotency keys are kept this long. */
  idempotencyTtlMs: 24 * 3600 * 1000,
} as const;

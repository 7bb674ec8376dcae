import { createHmac } from "node:crypto";

/**
 * X-Service-Signature: `t=<unix seconds>,v1=<lowercase hex HMAC-SHA256>` over `${t}.${body}`,
 * keyed with the whole secret as issued (whsec_ prefix included, not decoded). `body` must be
 * the exact bytes that are sent.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac("sha256", secret).update(`${unixSeconds}.`).update(body).digest("hex");
  return `t=${unixSeconds},v1=${digest}`;
}

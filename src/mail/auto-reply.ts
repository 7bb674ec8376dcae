/**
 * Automatic replies (vacation notices, out-of-office, autoresponders) to mail we sent. Told apart
 * by the headers of RFC 3834 and the de-facto ones that common responders add, and as a last
 * resort by the subject. Callers check for DSNs and ARF reports first: those are automatic too.
 */

export interface AutoReplyVerdict {
  /** Which signal decided it, e.g. "auto-submitted: auto-replied" or "subject". */
  reason: string;
}

const SUBJECT =
  /^(?:(?:re|aw|sv|fw|fwd)\s*:\s*)*(?:auto(?:matic)?[ -]?(?:reply|response|answer)|out of (?:the )?office|vacation|away from (?:the )?office|abwesenheit|automatische antwort|r[ée]ponse automatique|absence|fuera de la oficina|respuesta autom[áa]tica|afwezig|automatisch antwoord)\b/i;

/**
 * `header(name)` returns the first value of a header (case-insensitive name) or undefined.
 * Null when nothing marks the message as an automatic reply.
 */
export function detectAutoReply(header: (name: string) => string | undefined, subject: string): AutoReplyVerdict | null {
  const autoSubmitted = header("auto-submitted")?.trim().toLowerCase();
  if (autoSubmitted && autoSubmitted !== "no") return { reason: `auto-submitted: ${autoSubmitted.split(/[\s;]/)[0]}` };
  for (const name of ["x-autoreply", "x-autorespond", "x-autoresponder", "x-auto-reply"]) {
    const v = header(name)?.trim().toLowerCase();
    if (v !== undefined && v !== "no" && v !== "false") return { reason: name };
  }
  const precedence = header("precedence")?.trim().toLowerCase();
  if (precedence === "auto_reply") return { reason: "precedence: auto_reply" };
  if (header("x-precedence")?.trim().toLowerCase() === "auto_reply") return { reason: "x-precedence: auto_reply" };
  if (SUBJECT.test(subject.trim())) return { reason: "subject" };
  return null;
}

/**
 * The bytes of signed message copies that outbound delivery holds at once (POSTHORN_DELIVERY_MEMORY_MB).
 *
 * An attempt at a message composes and signs its copies (with tracking or a broadcast's
 * unsubscribe link, one per recipient, each as large as the message) and hands each, per
 * transaction, to the SMTP agent, which holds its own copy until the remote answers. Unbounded,
 * one 25 MiB message to 20 tracked recipients held 20 copies at once in the server and in the
 * agent, and the garbage of composing them: the server passed 20 GB (docs/security.md).
 *
 * Each attempt enters the gate for what it will hold (its content while composing, its shared copy
 * if it has one, and one copy per transaction in flight), waits its turn first come first served,
 * and runs as many transactions at once as what it was given allows, at least one: an attempt
 * asking more than the whole limit is given the whole limit and goes alone, one copy at a time.
 * Large mail is not let to stop small mail: an attempt asks at most half the limit unless one copy
 * needs more (largeShare), and a small ask (a 64th of the limit or less) that fits goes in at once
 * even past large ones waiting, which get in as soon as half the limit is free, as small mail
 * never holds it for long.
 */
export class DeliveryMemory {
  private inside = 0;
  private readonly waiting: { bytes: number; admit: () => void }[] = [];

  constructor(readonly limit: number) {}

  /** Bytes held now (for tests and metrics). */
  get held(): number {
    return this.inside;
  }

  /**
   * Resolves, in turn, once `bytes` (at most the limit) fit, to what was given and the function
   * that gives it back (calling it again does nothing).
   */
  enter(bytes: number): Promise<{ bytes: number; leave: () => void }> {
    const want = Math.max(1, Math.min(this.limit, Math.ceil(bytes)));
    return new Promise((resolve) => {
      const admit = () => {
        this.inside += want;
        let left = false;
        resolve({
          bytes: want,
          leave: () => {
            if (left) return;
            left = true;
            this.inside -= want;
            this.admitWaiting();
          },
        });
      };
      if ((this.waiting.length === 0 || want <= this.limit / 64) && this.inside + want <= this.limit) admit();
      else this.waiting.push({ bytes: want, admit });
    });
  }

  /**
   * What an attempt asks: `fixed` (content, a shared copy) and a copy per transaction, as many as
   * it has, but no more than half the limit once one copy fits (the other half stays for others).
   */
  ask(fixed: number, copyBytes: number, transactions: number): number {
    return Math.min(fixed + copyBytes * transactions, Math.max(fixed + copyBytes, this.limit / 2));
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.inside + this.waiting[0]!.bytes <= this.limit) this.waiting.shift()!.admit();
  }
}

/**
 * What a signed copy of a message will weigh, before it is composed: attachments in base64 (4/3,
 * and a CRLF every 76 characters), the HTML and text parts quoted-printable or base64 (at most
 * ~1.4 times their size; 1.5 for HTML too large to have been read yet, whose links are not
 * counted), tracking URLs in place of links, and the headers and signatures.
 */
export function estimateCopyBytes(p: { html: string | null; htmlBytes: number; textBytes: number; attachmentBytes: number }): number {
  const links = p.html ? (p.html.match(/<a\s/gi)?.length ?? 0) : 0;
  const html = p.html !== null || p.htmlBytes === 0 ? p.htmlBytes * 1.4 : p.htmlBytes * 1.5;
  return Math.ceil(p.attachmentBytes * (4 / 3) * (78 / 76) + html + p.textBytes * 1.4) + links * 200 + 16 * 1024;
}

/**
 * A full garbage collection once `stepBytes` of message copies have been let go. A large copy
 * leaves large garbage (its bytes, and composing's or the IPC's buffers of the same size) that
 * JSC counts little towards its next collection: 24 copies of 8 MB, one at a time, still took the
 * SMTP agent ~250 MB above its rest. Copies under 1 MiB are not counted: small mail's garbage is
 * in the JS heap, which JSC (and src/memory/heap-collector.ts) collect as it grows.
 */
export function collectAfterBytes(stepBytes: number): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    if (bytes < 1024 * 1024) return;
    since += bytes;
    if (since < stepBytes) return;
    since = 0;
    Bun.gc(true);
  };
}

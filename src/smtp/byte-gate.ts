/**
 * Bounds the bytes held in memory at once, in two ways over one count: `take(n)` takes them now or
 * refuses (the SMTP listeners: a message that would go over is drained and answered 452), and
 * `enter(n)` waits its turn, first come first served, resolving to the function that gives them
 * back (the inbound jobs: a large piece at the head is not overtaken). When nothing is held, any
 * amount fits, so one piece larger than the limit still passes alone.
 */
export class ByteGate {
  private inside = 0;
  private readonly waiting: { bytes: number; admit: () => void }[] = [];

  constructor(readonly limit: number) {}

  /** Takes `bytes` if they fit now and nothing waits; false otherwise. Give them back with give(). */
  take(bytes: number): boolean {
    if (this.waiting.length > 0 || !this.fits(bytes)) return false;
    this.inside += bytes;
    return true;
  }

  /** Gives back bytes taken with take(). */
  give(bytes: number): void {
    this.inside = Math.max(0, this.inside - bytes);
    this.admitWaiting();
  }

  /** Resolves once `bytes` fit, to the function that gives them back (calling it again does nothing). */
  enter(bytes: number): Promise<() => void> {
    return new Promise((resolve) => {
      const admit = () => {
        this.inside += bytes;
        let left = false;
        resolve(() => {
          if (left) return;
          left = true;
          this.give(bytes);
        });
      };
      if (this.waiting.length === 0 && this.fits(bytes)) admit();
      else this.waiting.push({ bytes, admit });
    });
  }

  private fits(bytes: number): boolean {
    return this.inside === 0 || this.inside + bytes <= this.limit;
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.bytes)) this.waiting.shift()!.admit();
  }
}

/**
 * Bounds the bytes of work in flight, first come first served: `enter(n)` resolves once `n` more
 * bytes fit under the limit (or nothing else is inside, so one piece larger than the limit still
 * passes alone), and the function it resolves to gives them back. Unlike DataBudget (which refuses
 * at once, for SMTP), a piece waits its turn; a large one at the head is not overtaken.
 */
export class ByteGate {
  private inside = 0;
  private entries = 0;
  private readonly waiting: { bytes: number; admit: () => void }[] = [];

  constructor(readonly limit: number) {}

  enter(bytes: number): Promise<() => void> {
    return new Promise((resolve) => {
      const admit = () => {
        this.inside += bytes;
        this.entries++;
        let left = false;
        resolve(() => {
          if (left) return;
          left = true;
          this.inside -= bytes;
          this.entries--;
          this.admitWaiting();
        });
      };
      if (this.waiting.length === 0 && this.fits(bytes)) admit();
      else this.waiting.push({ bytes, admit });
    });
  }

  private fits(bytes: number): boolean {
    return this.entries === 0 || this.inside + bytes <= this.limit;
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.bytes)) this.waiting.shift()!.admit();
  }
}

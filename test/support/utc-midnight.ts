/**
 * Tests of the warm-up that read the real clock's UTC day in two places (the outbound stage that
 * counts and holds, and the API that shows the day's count and the release at the next midnight)
 * would flake if a UTC midnight fell between those reads. The API reads Date.now() (it has no
 * injectable clock; OutboundOptions.now moves the outbound stage's only), so such a test calls this
 * first: with less than `needMs` left before the next UTC midnight it waits until just after it
 * (at most `needMs`, once a day), and says so; otherwise it returns at once.
 */
const DAY_MS = 86_400_000;

/** Milliseconds from `now` to the next UTC midnight. */
export const msToUtcMidnight = (now = Date.now()): number => DAY_MS - (now % DAY_MS);

export async function clearOfUtcMidnight(needMs: number, what: string): Promise<void> {
  const left = msToUtcMidnight();
  if (left >= needMs) return;
  console.warn(`${what}: ${Math.ceil(left / 1000)} s before a UTC midnight, less than the ${needMs / 1000} s it needs on one UTC day: waiting for the new day`);
  await Bun.sleep(left + 1000);
}

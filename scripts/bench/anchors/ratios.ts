/** How the benches print a ratio measured over several rounds, and whether it meets its target. */
export function range(xs: number[], digits = 2): string {
  const lo = Math.min(...xs).toFixed(digits);
  const hi = Math.max(...xs).toFixed(digits);
  return lo === hi ? lo : `${lo}–${hi}`;
}

export const mark = (ok: boolean): string => (ok ? "meets" : "MISSES");

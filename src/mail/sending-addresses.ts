/**
 * The addresses Posthorn sends from, learned from its outbound connections: each MX connection's
 * local address is noted (smtp-pool.ts) and written to sending_addresses at most once an hour per
 * address and process, so DMARC reports can tell mail sent by Posthorn from other sources
 * (docs/deliverability.md). A relay's connection is not noted: receivers see the relay's address.
 */
import type { Deps } from "../context.ts";

const REFRESH_MS = 3_600_000;
const noted = new WeakMap<object, Map<string, number>>();

export function noteSendingAddress(deps: Pick<Deps, "store" | "log">, ip: string, now = Date.now()): void {
  let seen = noted.get(deps.store);
  if (!seen) noted.set(deps.store, (seen = new Map()));
  const last = seen.get(ip);
  if (last !== undefined && now - last < REFRESH_MS) return;
  seen.set(ip, now);
  void deps.store
    .detached(() => deps.store.write((tx) => tx.deliverabilityReports.noteSendingAddress(ip, now)))
    .catch((err: unknown) => {
      seen.delete(ip);
      deps.log.warn("sending address not recorded", { ip, error: String(err) });
    });
}

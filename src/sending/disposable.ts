/**
 * Disposable addresses for the route setting suppress_disposable_recipients: the list of the
 * disposable-email-domains-js package (updated with it), read once, the first time a route asks.
 * A subdomain of a listed domain counts as listed (mx.mailinator.com as mailinator.com).
 */
import { disposableEmailBlocklistSet } from "disposable-email-domains-js";

let listed: Set<string> | null = null;

/** Whether the domain, or a domain it is under, is on the list. */
export function isDisposableDomain(domain: string): boolean {
  listed ??= disposableEmailBlocklistSet();
  let d = domain.trim().toLowerCase().replace(/\.$/, "");
  for (;;) {
    if (listed.has(d)) return true;
    const dot = d.indexOf(".");
    // Stop before the last label: a top-level domain alone is never listed.
    if (dot < 0 || d.indexOf(".", dot + 1) < 0) return false;
    d = d.slice(dot + 1);
  }
}

/** Whether the address's domain is disposable. */
export const isDisposableAddress = (email: string): boolean => isDisposableDomain(email.slice(email.lastIndexOf("@") + 1));

/**
 * Tells people from machines for one open or click hit (docs/tracking.md, Every hit is an observation). Pure: no
 * storage, no clock, no network; the caller passes what it knows about the hit.
 *
 * Rules are tried in RULE_ORDER, first match wins, each with a stable reason code:
 *
 *   1. head_request             method HEAD
 *   2. privacy_proxy            a mail provider's image proxy, by user agent
 *   3. link_scanner             a security gateway, crawler or headless browser, by user agent
 *   4. non_browser_client       an HTTP library or CLI, or no user agent at all
 *   5. before_delivery          the hit came before the 250 was recorded (or there is no 250)
 *   6. too_soon_after_delivery  the hit came less than 10 s after the 250
 *   7. link_burst               3+ distinct links of this recipient's copy clicked within 1 s
 *
 * Who-it-was rules (1–4) come before when-it-was rules (5–7), so that a proxy's hit at delivery
 * time is reported as the proxy, which is the more useful reason.
 *
 * Apple Mail Privacy Protection: Apple does not document it, but ESPs consistently observe that
 * MPP fetches images through Apple's relays with the bare user agent `Mozilla/5.0` and nothing
 * else, while Apple Mail itself (MPP off) sends a full WebKit user agent ("Mozilla/5.0
 * (Macintosh; …) AppleWebKit/605.1.15 (KHTML, like Gecko)"). Apple's relay address ranges would
 * be a second signal, but we have no such list offline, so an open is counted as MPP exactly when
 * its user agent is `Mozilla/5.0`: Apple Mail users who turned MPP off are counted as people, and
 * other clients sending that bare string are machines anyway. The cost is the other way round:
 * an MPP user who really reads the message is never counted (MPP fetched the pixel for them),
 * which nobody can tell apart. A click with the bare `Mozilla/5.0` is not MPP (it proxies images,
 * not links) and is reported as non_browser_client.
 *
 * Not detected (no reliable user agent): Microsoft Defender Safe Links detonations and other
 * scanners that send a real browser's user agent from their own networks; rules 5–7 catch those
 * that act at delivery time or in bursts. A burst is only visible from its third click on, so
 * the first two clicks of a scanner burst that comes later than 10 s after delivery pass as human
 * when they arrive; the tracking service re-judges their records once the burst shows (the
 * statistics are corrected, a status they moved stays).
 * Outlook.com's image proxy has no known distinctive user agent and is not listed.
 */

export interface RecentHit {
  at: number;
  /** The link index of a click, null for an open. */
  link: number | null;
}

export interface Hit {
  kind: "open" | "click";
  /** The HTTP method, any case. */
  method: string;
  userAgent: string | null;
  /** Kept for a future rule on provider address ranges; no rule reads it today. */
  ip: string | null;
  /** When the hit arrived (ms). */
  at: number;
  /** When the receiving server answered 250 for this recipient (ms), null if not (yet) recorded. */
  deliveredAt: number | null;
  /** Earlier hits on the same message by the same recipient (any order; the current hit may be included). */
  recentHits: readonly RecentHit[];
  /** The link index of a click. */
  link?: number;
}

export const MACHINE_REASONS = {
  head_request: "The request was a HEAD: link checkers and scanners use HEAD, a browser opening a link or loading an image uses GET.",
  privacy_proxy:
    "Fetched by a mail provider's image proxy, not the reader's device: Google's image proxy (GoogleImageProxy, ggpht.com) or Gmail's prefetcher, Yahoo's (YahooMailProxy), or Apple Mail Privacy Protection (an open with the bare user agent \"Mozilla/5.0\"), which load images whether or not anyone reads the message.",
  link_scanner:
    "A security gateway or crawler following links to inspect them: Microsoft (BingPreview, Office discovery requests), Proofpoint, Mimecast, Barracuda, a headless browser, or a user agent with a bot, crawler, spider, scanner or preview token.",
  non_browser_client:
    "Not a browser: an HTTP library or command-line client (curl, Wget, python-requests, Go-http-client, Java, okhttp, node-fetch, axios, …), a missing or empty user agent, or a click with the bare user agent \"Mozilla/5.0\".",
  before_delivery: "The hit arrived before the receiving server's 250 was recorded for this recipient: nobody can have read the message yet (gateways scan during delivery).",
  too_soon_after_delivery: "The hit arrived less than 10 seconds after the receiving server's 250: gateways open and click at delivery, people take longer.",
  link_burst: "This recipient's copy had clicks on 3 or more different links within 1 second: scanners follow every link, people do not click that fast.",
} as const satisfies Record<string, string>;

export type MachineReason = keyof typeof MACHINE_REASONS;

export interface Verdict {
  machine: boolean;
  reason: MachineReason | null;
}

/** The order in which the rules are tried; the first that matches gives the reason. */
export const RULE_ORDER: readonly MachineReason[] = [
  "head_request",
  "privacy_proxy",
  "link_scanner",
  "non_browser_client",
  "before_delivery",
  "too_soon_after_delivery",
  "link_burst",
];

/** A hit less than this long after the 250 is a machine's. */
export const TOO_SOON_AFTER_DELIVERY_MS = 10_000;
/** Clicks on at least BURST_MIN_LINKS distinct links within BURST_WINDOW_MS are a machine's. */
export const BURST_WINDOW_MS = 1_000;
export const BURST_MIN_LINKS = 3;

const HUMAN: Verdict = { machine: false, reason: null };
const machine = (reason: MachineReason): Verdict => ({ machine: true, reason });

/** The bare user agent Apple's MPP relays send (and nothing that is a browser). */
const BARE_MOZILLA = /^mozilla\/5\.0$/i;

const PRIVACY_PROXY = [
  /GoogleImageProxy/i,
  /ggpht\.com/i,
  // Gmail's prefetcher, as observed: an Edge 12 user agent with " Mozilla/5.0" appended.
  /Edge\/12\.246 Mozilla\/5\.0$/,
  /YahooMailProxy/i,
];

const SCANNER_NAMES = [
  /BingPreview/i,
  /Microsoft Office (?:Existence|Protocol) Discovery/i,
  /Proofpoint/i,
  /Mimecast/i,
  /Barracuda/i,
  /HeadlessChrome/i,
  /PhantomJS/i,
];
/** Words that mark a bot, alone or as the end of a longer word (Googlebot, Baiduspider, BingPreview). */
const BOT_WORD = /(?:bot|crawler|spider|scanner|preview)$/;
/** Words that end like a bot marker but are real devices (CUBOT Android phones). */
const NOT_BOT_WORDS = new Set(["cubot"]);

const NON_BROWSER = /(?:^|[\s;(])(?:curl|wget|python-requests|python-urllib|python-httpx|aiohttp|go-http-client|java|okhttp|node-fetch|undici|axios|libwww-perl|postmanruntime|apache-httpclient|httpie|bun|deno)\//i;
const NON_BROWSER_EXACT = /^(?:node|undici|node-fetch|axios)$/i;

function isPrivacyProxy(kind: Hit["kind"], ua: string): boolean {
  return (kind === "open" && BARE_MOZILLA.test(ua)) || PRIVACY_PROXY.some((p) => p.test(ua));
}

function isLinkScanner(ua: string): boolean {
  if (SCANNER_NAMES.some((p) => p.test(ua))) return true;
  for (const word of ua.toLowerCase().split(/[^a-z]+/)) {
    if (word && BOT_WORD.test(word) && !NOT_BOT_WORDS.has(word)) return true;
  }
  return false;
}

function isNonBrowser(kind: Hit["kind"], ua: string): boolean {
  return ua === "" || NON_BROWSER.test(ua) || NON_BROWSER_EXACT.test(ua) || (kind === "click" && BARE_MOZILLA.test(ua));
}

function isLinkBurst(hit: Hit): boolean {
  if (hit.kind !== "click") return false;
  const links = new Set<number>();
  if (typeof hit.link === "number") links.add(hit.link);
  for (const h of hit.recentHits) {
    if (h.link !== null && Math.abs(hit.at - h.at) <= BURST_WINDOW_MS) links.add(h.link);
  }
  return links.size >= BURST_MIN_LINKS;
}

/** Whether one hit is a machine's, and by which rule (see the module comment for the order). */
export function classifyHit(hit: Hit): Verdict {
  if (hit.method.toUpperCase() === "HEAD") return machine("head_request");
  const ua = (hit.userAgent ?? "").trim();
  if (isPrivacyProxy(hit.kind, ua)) return machine("privacy_proxy");
  if (isLinkScanner(ua)) return machine("link_scanner");
  if (isNonBrowser(hit.kind, ua)) return machine("non_browser_client");
  if (hit.deliveredAt === null || hit.at < hit.deliveredAt) return machine("before_delivery");
  if (hit.at - hit.deliveredAt < TOO_SOON_AFTER_DELIVERY_MS) return machine("too_soon_after_delivery");
  if (isLinkBurst(hit)) return machine("link_burst");
  return HUMAN;
}

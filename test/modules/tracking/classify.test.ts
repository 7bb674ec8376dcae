import { describe, expect, test } from "bun:test";
import {
  BURST_MIN_LINKS,
  BURST_WINDOW_MS,
  MACHINE_REASONS,
  RULE_ORDER,
  TOO_SOON_AFTER_DELIVERY_MS,
  classifyHit,
  type Hit,
} from "../../../src/modules/tracking/classify.ts";

const DELIVERED = 1_750_000_000_000;
const LATER = DELIVERED + 3_600_000; // an hour after the 250
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/** A hit a person would make: GET, a desktop browser, an hour after delivery, nothing before it. */
const hit = (over: Partial<Hit> = {}): Hit => ({
  kind: "open",
  method: "GET",
  userAgent: CHROME,
  ip: "203.0.113.7",
  at: LATER,
  deliveredAt: DELIVERED,
  recentHits: [],
  ...over,
});
const human = { machine: false, reason: null };
const because = (reason: keyof typeof MACHINE_REASONS) => ({ machine: true, reason });

/** Real browsers and mail clients' user agents: all people, for opens and clicks. */
const BROWSERS: [string, string][] = [
  ["Chrome, Windows", CHROME],
  ["Chrome, macOS", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"],
  ["Chrome, Linux", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"],
  ["Chrome, Android", "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.104 Mobile Safari/537.36"],
  ["Chrome, iOS", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1"],
  ["Chrome on a CUBOT phone", "Mozilla/5.0 (Linux; Android 9; CUBOT P30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36"],
  ["Firefox, Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"],
  ["Firefox, macOS", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0"],
  ["Firefox, Linux", "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"],
  ["Firefox, Android", "Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0"],
  ["Firefox, iOS", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15"],
  ["Safari, macOS", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15"],
  ["Safari, iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"],
  ["Safari, iPad", "Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1"],
  ["Edge, Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0"],
  ["Edge, macOS", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0"],
  ["Edge, Android", "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 EdgA/131.0.0.0"],
  ["Samsung Internet", "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36"],
  ["Opera, Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0"],
  ["Android WebView (Gmail app)", "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.107 Mobile Safari/537.36"],
  ["Thunderbird, Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Thunderbird/128.5.0"],
  ["Thunderbird, Linux", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Thunderbird/128.5.0"],
  [
    "Outlook desktop (embedded IE engine)",
    "Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 10.0; WOW64; Trident/7.0; .NET4.0C; .NET4.0E; .NET CLR 2.0.50727; .NET CLR 3.0.30729; .NET CLR 3.5.30729; Microsoft Outlook 16.0.17928; ms-office; MSOffice 16)",
  ],
  ["Outlook desktop, older", "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.5422; Pro)"],
  ["Apple Mail, macOS, MPP off", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)"],
  ["Apple Mail, iPhone, MPP off", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"],
];

/** Machines' user agents and the reason each must get (opens unless said). */
const MACHINES: [string, string, keyof typeof MACHINE_REASONS, Hit["kind"]?][] = [
  ["Google image proxy", "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)", "privacy_proxy"],
  ["Google image proxy, name only", "GoogleImageProxy", "privacy_proxy"],
  [
    "Gmail's prefetcher",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/42.0.2311.135 Safari/537.36 Edge/12.246 Mozilla/5.0",
    "privacy_proxy",
  ],
  ["Yahoo's proxy", "YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html", "privacy_proxy"],
  ["Apple MPP", "Mozilla/5.0", "privacy_proxy"],
  ["Apple MPP, padded", "  Mozilla/5.0 ", "privacy_proxy"],
  ["a bare Mozilla/5.0 clicking", "Mozilla/5.0", "non_browser_client", "click"],
  ["BingPreview", "Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/534+ (KHTML, like Gecko) BingPreview/1.0b", "link_scanner", "click"],
  ["Office existence discovery", "Microsoft Office Existence Discovery", "link_scanner", "click"],
  ["Office protocol discovery", "Microsoft Office Protocol Discovery", "link_scanner", "click"],
  ["Proofpoint", "Mozilla/5.0 (compatible; Proofpoint URL Defense)", "link_scanner", "click"],
  ["Mimecast", "Mimecast URL Protect/1.0", "link_scanner", "click"],
  ["Barracuda", "Mozilla/5.0 (Barracuda Email Protection LinkProtect)", "link_scanner", "click"],
  ["headless Chrome", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36", "link_scanner", "click"],
  ["Googlebot", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "link_scanner", "click"],
  ["bingbot", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "link_scanner", "click"],
  ["Slackbot", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "link_scanner", "click"],
  ["a spider", "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)", "link_scanner"],
  ["a crawler", "SomeCrawler/1.0", "link_scanner"],
  ["a scanner", "Mozilla/5.0 (compatible; Link Scanner 3.1)", "link_scanner"],
  ["a preview", "Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5", "link_scanner", "click"],
  ["BOT in capitals", "SECURITY-BOT", "link_scanner"],
  ["curl", "curl/8.5.0", "non_browser_client", "click"],
  ["Wget", "Wget/1.21.4", "non_browser_client", "click"],
  ["python-requests", "python-requests/2.31.0", "non_browser_client", "click"],
  ["python-urllib", "Python-urllib/3.11", "non_browser_client", "click"],
  ["aiohttp", "Python/3.11 aiohttp/3.9.1", "non_browser_client", "click"],
  ["Go", "Go-http-client/2.0", "non_browser_client", "click"],
  ["Java", "Java/17.0.2", "non_browser_client", "click"],
  ["okhttp", "okhttp/4.12.0", "non_browser_client", "click"],
  ["node-fetch", "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)", "non_browser_client", "click"],
  ["node-fetch, bare", "node-fetch", "non_browser_client", "click"],
  ["undici", "undici", "non_browser_client", "click"],
  ["Node's fetch", "node", "non_browser_client", "click"],
  ["axios", "axios/1.7.7", "non_browser_client", "click"],
  ["libwww-perl", "libwww-perl/6.72", "non_browser_client", "click"],
  ["Postman", "PostmanRuntime/7.42.0", "non_browser_client", "click"],
  ["Bun's fetch", "Bun/1.4.5", "non_browser_client", "click"],
  ["Apache HttpClient", "Apache-HttpClient/4.5.14 (Java/17.0.2)", "non_browser_client", "click"],
];

describe("people", () => {
  for (const [name, ua] of BROWSERS) {
    test(`${name} is a person, opening and clicking`, () => {
      expect(classifyHit(hit({ userAgent: ua }))).toEqual(human);
      expect(classifyHit(hit({ kind: "click", link: 0, userAgent: ua }))).toEqual(human);
    });
  }

  test("the table is real and long enough", () => expect(BROWSERS.length).toBeGreaterThanOrEqual(12));
});

describe("machines by user agent", () => {
  for (const [name, ua, reason, kind = "open"] of MACHINES) {
    test(`${name}: ${reason}`, () => {
      expect(classifyHit(hit({ kind, link: kind === "click" ? 0 : undefined, userAgent: ua }))).toEqual(because(reason));
    });
  }
});

describe("each rule, both ways", () => {
  test("head_request: HEAD in any case, never GET", () => {
    expect(classifyHit(hit({ method: "HEAD" }))).toEqual(because("head_request"));
    expect(classifyHit(hit({ method: "head", kind: "click", link: 1 }))).toEqual(because("head_request"));
    expect(classifyHit(hit({ method: "GET" }))).toEqual(human);
    expect(classifyHit(hit({ method: "get" }))).toEqual(human);
  });

  test("privacy_proxy: Apple's bare Mozilla/5.0 only, not Apple Mail or Safari", () => {
    expect(classifyHit(hit({ userAgent: "Mozilla/5.0" }))).toEqual(because("privacy_proxy"));
    expect(classifyHit(hit({ userAgent: "mozilla/5.0" }))).toEqual(because("privacy_proxy"));
    expect(classifyHit(hit({ userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)" }))).toEqual(human);
    expect(classifyHit(hit({ userAgent: "Mozilla/5.01" }))).toEqual(human);
    // An Edge 12 user agent without Gmail's appended token is not the prefetcher.
    expect(
      classifyHit(hit({ userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/42.0.2311.135 Safari/537.36 Edge/12.246" })),
    ).toEqual(human);
  });

  test("link_scanner: marker words match whole words or word endings, not the middle of words", () => {
    expect(classifyHit(hit({ userAgent: "MyBot/1.0" }))).toEqual(because("link_scanner"));
    expect(classifyHit(hit({ userAgent: "Mozilla/5.0 (compatible; bot)" }))).toEqual(because("link_scanner"));
    for (const ua of [
      "Mozilla/5.0 (Linux; Android 12; CUBOT KingKong 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
      "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0 Botanica/1.0",
      "Mozilla/5.0 (Windows NT 10.0) Spiderman-Edition Chrome/131.0.0.0 Safari/537.36",
      "Mozilla/5.0 (Windows NT 10.0; ms-office; MSOffice 16)",
    ])
      expect(classifyHit(hit({ userAgent: ua }))).toEqual(human);
  });

  test("non_browser_client: no user agent, an empty one, or only spaces", () => {
    for (const ua of [null, "", "   ", "\t"]) {
      expect(classifyHit(hit({ userAgent: ua }))).toEqual(because("non_browser_client"));
      expect(classifyHit(hit({ kind: "click", link: 0, userAgent: ua }))).toEqual(because("non_browser_client"));
    }
    // Library names inside a word or without a version are not library user agents.
    for (const ua of [`${CHROME} curly/1.0`, `${CHROME} Javascript/1.0`, "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 bunny"])
      expect(classifyHit(hit({ userAgent: ua }))).toEqual(human);
  });

  test("before_delivery: no 250 recorded, or the hit is older than the 250", () => {
    expect(classifyHit(hit({ deliveredAt: null }))).toEqual(because("before_delivery"));
    expect(classifyHit(hit({ at: DELIVERED - 1 }))).toEqual(because("before_delivery"));
    expect(classifyHit(hit({ kind: "click", link: 0, at: DELIVERED - 5_000 }))).toEqual(because("before_delivery"));
  });

  test(`too_soon_after_delivery: under ${TOO_SOON_AFTER_DELIVERY_MS} ms after the 250`, () => {
    for (const dt of [0, 1, 2_000, TOO_SOON_AFTER_DELIVERY_MS - 1]) {
      expect(classifyHit(hit({ at: DELIVERED + dt }))).toEqual(because("too_soon_after_delivery"));
      expect(classifyHit(hit({ kind: "click", link: 3, at: DELIVERED + dt }))).toEqual(because("too_soon_after_delivery"));
    }
    for (const dt of [TOO_SOON_AFTER_DELIVERY_MS, TOO_SOON_AFTER_DELIVERY_MS + 1, 60_000]) expect(classifyHit(hit({ at: DELIVERED + dt }))).toEqual(human);
  });

  test(`link_burst: ${BURST_MIN_LINKS} distinct links within ${BURST_WINDOW_MS} ms, counting this click`, () => {
    const at = LATER;
    expect(BURST_MIN_LINKS).toBe(3);
    expect(BURST_WINDOW_MS).toBe(1_000);
    const click = (link: number, recentHits: Hit["recentHits"]) => classifyHit(hit({ kind: "click", link, at, recentHits }));
    // Two earlier clicks on two other links within the second: the third is a burst.
    expect(click(2, [{ at: at - 100, link: 1 }, { at: at - 900, link: 0 }])).toEqual(because("link_burst"));
    expect(click(2, [{ at: at - BURST_WINDOW_MS, link: 1 }, { at: at - 5, link: 0 }])).toEqual(because("link_burst"));
    // A fourth link, the current hit included in recentHits as well: still a burst.
    expect(click(3, [{ at, link: 3 }, { at: at - 10, link: 2 }, { at: at - 20, link: 1 }])).toEqual(because("link_burst"));
    // Two links only: a person may click two links in quick succession.
    expect(click(1, [{ at: at - 100, link: 0 }])).toEqual(human);
    // The same link three times (a double- or triple-click): one link, not a burst.
    expect(click(0, [{ at: at - 100, link: 0 }, { at: at - 200, link: 0 }])).toEqual(human);
    // Opens (link null) do not count as links.
    expect(click(0, [{ at: at - 100, link: null }, { at: at - 200, link: null }, { at: at - 300, link: 1 }])).toEqual(human);
    // Outside the window.
    expect(click(2, [{ at: at - 100, link: 1 }, { at: at - BURST_WINDOW_MS - 1, link: 0 }])).toEqual(human);
    expect(click(2, [{ at: at - 5_000, link: 1 }, { at: at - 6_000, link: 0 }])).toEqual(human);
    // Opens are never bursts, whatever came before.
    expect(classifyHit(hit({ at, recentHits: [{ at: at - 10, link: 1 }, { at: at - 20, link: 0 }, { at: at - 30, link: 2 }] }))).toEqual(human);
  });
});

describe("order: the first matching rule names the reason", () => {
  test("RULE_ORDER lists every reason once, in the documented order", () => {
    expect([...RULE_ORDER]).toEqual([
      "head_request",
      "privacy_proxy",
      "link_scanner",
      "non_browser_client",
      "before_delivery",
      "too_soon_after_delivery",
      "link_burst",
    ]);
    expect(new Set(RULE_ORDER)).toEqual(new Set(Object.keys(MACHINE_REASONS) as (keyof typeof MACHINE_REASONS)[]));
  });

  test("a hit matching every rule gets the first, and dropping each in turn gives the next", () => {
    const burst = [{ at: LATER - 10, link: 1 }, { at: LATER - 20, link: 2 }];
    const steps: [Partial<Hit>, keyof typeof MACHINE_REASONS | null][] = [
      // A user agent that is a proxy, a crawler and curl at once, so rules 2–4 all match.
      [{ method: "HEAD", userAgent: "GoogleImageProxy crawler curl/8.0", deliveredAt: null }, "head_request"],
      [{ method: "GET", userAgent: "GoogleImageProxy crawler curl/8.0", deliveredAt: null }, "privacy_proxy"],
      [{ method: "GET", userAgent: "crawler curl/8.0", deliveredAt: null }, "link_scanner"],
      [{ method: "GET", userAgent: "curl/8.0", deliveredAt: null }, "non_browser_client"],
      [{ method: "GET", userAgent: CHROME, deliveredAt: null }, "before_delivery"],
      [{ method: "GET", userAgent: CHROME, deliveredAt: LATER - 1_000 }, "too_soon_after_delivery"],
      [{ method: "GET", userAgent: CHROME, deliveredAt: DELIVERED }, "link_burst"],
    ];
    for (const [over, reason] of steps) {
      const v = classifyHit(hit({ kind: "click", link: 0, recentHits: burst, ...over }));
      expect(v).toEqual(reason ? because(reason) : human);
    }
    expect(classifyHit(hit({ kind: "click", link: 0, recentHits: [] }))).toEqual(human);
  });

  test("a proxy at delivery time is reported as the proxy, not as too soon", () => {
    expect(classifyHit(hit({ userAgent: "YahooMailProxy", at: DELIVERED + 500 }))).toEqual(because("privacy_proxy"));
  });
});

describe("every reason is documented in one line", () => {
  for (const [code, text] of Object.entries(MACHINE_REASONS)) {
    test(code, () => {
      expect(code).toMatch(/^[a-z]+(?:_[a-z]+)*$/);
      expect(text.length).toBeGreaterThan(20);
      expect(text).not.toContain("\n");
    });
  }
});

test("hostile user agents: long, binary, unicode — no throw, and quick", () => {
  const started = performance.now();
  for (const ua of ["a".repeat(100_000), "bot".repeat(30_000), "Mozilla/5.0 ".repeat(8_000), "\0\u202e😀".repeat(10_000), `${CHROME} ${"x/".repeat(40_000)}`]) {
    expect(() => classifyHit(hit({ userAgent: ua }))).not.toThrow();
  }
  expect(performance.now() - started).toBeLessThan(1_000);
});

test("docs/tracking.md lists every reason code, in the order the rules are tried", async () => {
  const page = await Bun.file(new URL("../../../docs/tracking.md", import.meta.url)).text();
  const start = page.indexOf("## Every hit is an observation");
  const section = page.slice(start, page.indexOf("\n## ", start + 1));
  const listed = [...section.matchAll(/^- `([a-z_]+)`: /gm)].map((m) => m[1]);
  expect(listed).toEqual([...RULE_ORDER]);
  expect(Object.keys(MACHINE_REASONS).sort()).toEqual([...RULE_ORDER].sort());
});

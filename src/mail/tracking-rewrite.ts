/**
 * Open and click tracking: the rewriting of a message's HTML part (docs/tracking.md, What is rewritten).
 *
 * Pure and self-contained: a string in, a string and the list of original URLs out. The caller
 * handles MIME, tokens and storage. The HTML is parsed by Bun's built-in HTMLRewriter (lol-html,
 * streaming); no regular expression ever looks at the HTML, only at single attribute values.
 *
 * What is rewritten: the `href` of `<a>` elements whose URL is http: or https:, in document order;
 * link index i is the i-th rewritten link (the same URL twice gets two indexes). Never rewritten:
 * mailto:, tel:, javascript:, any other scheme, relative and fragment links, an href that is no
 * valid absolute URL, the message's unsubscribe URL, and any `<a data-posthorn-notrack>` (that
 * attribute is removed from every `<a>` of the output, so it does not leak). Links inside
 * comments (Outlook's `<!--[if mso]>` VML buttons) are not elements and stay untracked; so do
 * `<area href>` and SVG's `xlink:href`.
 *
 * The stored original is the URL a browser would follow, decided like this:
 *  - character references are decoded as the HTML tokenizer decodes them in an attribute value
 *    (HTMLRewriter hands out the raw value: `a=1&amp;b=2` is stored as `a=1&b=2`), numeric ones
 *    fully (with the Windows-1252 remapping of &#128;–&#159;), named ones from a table of the
 *    106 legacy names and common punctuation; the legacy rule applies (`&copy=1` stays as is).
 *    An href holding a `&name;` outside our table is left untracked, never guessed: a tracked
 *    link must go exactly where the untracked one went;
 *  - NUL becomes U+FFFD (as the tokenizer does); leading and trailing C0 controls and spaces are
 *    removed and every tab, CR and LF inside is removed (the URL parser's own first step).
 *    Nothing else is touched: no percent-encoding, case folding or IDNA (`https://bücher.example/ä`
 *    is stored as written; a Location header needs `new URL(stored).href`, which equals what the
 *    browser would have requested).
 * The unsubscribe URL is compared after the same cleaning, exactly or as parsed by `new URL`.
 *
 * The open pixel goes just before the first `</body>`; without one (no body element, or a body
 * never closed) it is appended at the very end of the document, which is then parsed once more to
 * check that the pixel is an element: a document that ends inside a tag, a comment or a raw-text
 * element (`<p>hi <a href="x`, `<!-- x`, `<textarea>x`) would swallow it or show it as text, and
 * then gets no pixel (it renders as it would have without one).
 *
 * Fallback: HTMLRewriter never threw on the inputs we tried (malformed markup, random bytes, a
 * 6 MB attribute), but if it, or the caller's clickUrl, ever throws, the original HTML is returned
 * untouched with no links, and the pixel (if asked for) appended at its very end.
 *
 * With neither clicks nor opens asked for (or opens without an openUrl and no clicks), the input
 * is returned as it is, unparsed.
 */

import { MAX_LINK_INDEX } from "../auth/tracking-tokens.ts";

export interface RewriteOptions {
  /** Rewrite `<a href>` with http(s) URLs into clickUrl(index). */
  clicks: boolean;
  /** Append the open pixel `<img src=openUrl>` at the end of `<body>`. Needs openUrl. */
  opens: boolean;
  /** The tracking URL of link `index` (0-based, document order), e.g. `${base}/t/c/${token}`. */
  clickUrl(index: number): string;
  /** The pixel's URL, e.g. `${base}/t/o/${token}`; null: no pixel. */
  openUrl: string | null;
  /** The message's own unsubscribe URL (broadcast): never rewritten. */
  unsubscribeUrl: string | null;
}

export interface RewriteResult {
  /** The rewritten HTML (the input itself when nothing was asked for). */
  html: string;
  /** The original URL of each rewritten link, by link index. */
  links: string[];
}

/** The pixel's markup for an open URL (the URL escaped for a double-quoted attribute). */
export function pixelHtml(openUrl: string): string {
  return `<img src="${escapeAttribute(openUrl)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" />`;
}

export function rewriteHtml(html: string, opts: RewriteOptions): RewriteResult {
  const pixel = opts.opens && opts.openUrl !== null ? pixelHtml(opts.openUrl) : null;
  if (!opts.clicks && pixel === null) return { html, links: [] };
  const state: DocState = {
    clicks: opts.clicks,
    clickUrl: opts.clickUrl,
    unsubscribe: opts.unsubscribeUrl === null ? null : cleanUrl(opts.unsubscribeUrl),
    unsubscribeHref: null,
    links: [],
    pixel,
    pixelPlaced: false,
    pixelAtEnd: false,
  };
  if (state.unsubscribe !== null) {
    try {
      state.unsubscribeHref = new URL(state.unsubscribe).href;
    } catch {
      // not a URL: only the exact comparison applies
    }
  }
  const result = transform(html, state);
  if (state.pixelAtEnd && !pixelIsElement(result.html, state.pixel!)) {
    // The document ends inside a tag, a comment or a raw-text element (`<p>hi <a href="x`,
    // `<!-- x`, `<textarea>x`): the pixel would be swallowed, or shown as text. Left out.
    result.html = result.html.slice(0, result.html.length - state.pixel!.length);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------

interface DocState {
  clicks: boolean;
  clickUrl: (index: number) => string;
  unsubscribe: string | null;
  unsubscribeHref: string | null;
  links: string[];
  pixel: string | null;
  pixelPlaced: boolean;
  /** The pixel was appended at the very end (no `</body>` seen). */
  pixelAtEnd: boolean;
}

/**
 * One HTMLRewriter per document, transform(string) (synchronous, string out). Reusing one
 * rewriter across documents saves some 2–3 µs of ~40 on 30 KB, and the Response form is no faster
 * (scripts/bench/tracking.ts, section forms): not worth state shared between calls.
 */
function transform(html: string, s: DocState): RewriteResult {
  try {
    const rewriter = new HTMLRewriter().on("a[data-posthorn-notrack]", { element: dropNotrack });
    if (s.clicks) rewriter.on("a[href]:not([data-posthorn-notrack])", { element: (el) => onAnchor(el, s) });
    const out = rewriter
      .on("body", {
        element(el) {
          if (s.pixel !== null && !s.pixelPlaced) el.onEndTag((end) => onBodyEnd(end, s));
        },
      })
      .onDocument({ end: (end) => onDocEnd(end, s) })
      .transform(html);
    return { html: out, links: s.links };
  } catch {
    s.pixelAtEnd = false; // the documented fallback: appended unchecked
    return { html: s.pixel === null ? html : html + s.pixel, links: [] };
  }
}

/** Matched by selector (lol-html, no JavaScript call for other anchors). */
function dropNotrack(el: HTMLRewriterTypes.Element) {
  el.removeAttribute("data-posthorn-notrack");
}

/** An `<a href>` without data-posthorn-notrack, when clicks are tracked. */
function onAnchor(el: HTMLRewriterTypes.Element, s: DocState) {
  const raw = el.getAttribute("href");
  if (raw === null || raw === "") return;
  const url = originalUrl(raw);
  if (url === null || url === s.unsubscribe) return;
  let href: string;
  try {
    href = new URL(url).href;
  } catch {
    return; // the browser would not follow it either
  }
  if (href === s.unsubscribeHref) return;
  if (s.links.length > MAX_LINK_INDEX) return; // what a token can name; later links stay as they are
  const index = s.links.length;
  s.links.push(url);
  el.setAttribute("href", setAttributeEscape(s.clickUrl(index)));
}

function onBodyEnd(end: HTMLRewriterTypes.EndTag, s: DocState) {
  if (s.pixel === null || s.pixelPlaced) return;
  end.before(s.pixel, { html: true });
  s.pixelPlaced = true;
}

function onDocEnd(end: HTMLRewriterTypes.DocumentEnd, s: DocState) {
  if (s.pixel === null || s.pixelPlaced) return;
  end.append(s.pixel, { html: true });
  s.pixelPlaced = true;
  s.pixelAtEnd = true;
}

/** Whether the pixel appended at the end of `html` is parsed as an `<img>` element. */
function pixelIsElement(html: string, pixel: string): boolean {
  if (!html.endsWith(pixel)) return false;
  const src = pixel.slice('<img src="'.length, pixel.indexOf('"', '<img src="'.length));
  let found = false;
  try {
    new HTMLRewriter()
      .on("img", {
        element(el) {
          if (el.getAttribute("src") === src) found = true;
        },
      })
      .transform(html);
  } catch {
    return false;
  }
  return found;
}

// --- URLs ------------------------------------------------------------------------------------

/**
 * The URL a browser would follow for a raw href attribute value, when it is http(s); null when it
 * is not, or when it holds a named character reference we cannot decode with certainty.
 */
export function originalUrl(raw: string): string | null {
  const decoded = raw.indexOf("&") < 0 && raw.indexOf("\0") < 0 ? raw : decodeAttributeValue(raw);
  if (decoded === null) return null;
  const url = cleanUrl(decoded);
  return HTTP_SCHEME.test(url) ? url : null;
}

const HTTP_SCHEME = /^https?:/i;
const EDGES = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
const TAB_NEWLINE = /[\t\n\r]/g;
const HAS_TAB_NEWLINE = /[\t\n\r]/;

/** The URL parser's preprocessing: strip leading/trailing C0 controls and spaces, drop tab/CR/LF. */
export function cleanUrl(s: string): string {
  if (s.length > 0 && s.charCodeAt(0) > 0x20 && s.charCodeAt(s.length - 1) > 0x20 && !HAS_TAB_NEWLINE.test(s)) return s;
  return s.replace(EDGES, "").replace(TAB_NEWLINE, "");
}

// --- character references in an attribute value -----------------------------------------------

/**
 * Decodes character references as the HTML tokenizer does inside an attribute value; null when
 * the value holds `&name;` whose name is outside our table (the browser might decode it).
 */
export function decodeAttributeValue(v: string): string | null {
  let out = "";
  let last = 0;
  const n = v.length;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c === 0) {
      out += v.slice(last, i) + "\uFFFD";
      last = i + 1;
      continue;
    }
    if (c !== 0x26 /* & */) continue;
    const next = i + 1 < n ? v.charCodeAt(i + 1) : -1;
    if (next === 0x23 /* # */) {
      let j = i + 2;
      const hex = j < n && (v.charCodeAt(j) | 0x20) === 0x78; /* x */
      if (hex) j++;
      const digitsAt = j;
      let cp = 0;
      while (j < n) {
        const d = digitValue(v.charCodeAt(j), hex);
        if (d < 0) break;
        if (cp <= 0x10ffff) cp = cp * (hex ? 16 : 10) + d;
        j++;
      }
      if (j === digitsAt) continue; // "&#" or "&#x" without digits: literal
      if (j < n && v.charCodeAt(j) === 0x3b /* ; */) j++;
      out += v.slice(last, i) + numericReference(cp);
      last = j;
      i = j - 1;
      continue;
    }
    if (!isAlnum(next)) continue; // a lone ampersand
    let j = i + 1;
    while (j < n && isAlnum(v.charCodeAt(j))) j++;
    const name = v.slice(i + 1, j);
    const after = j < n ? v.charCodeAt(j) : -1;
    if (after === 0x3b /* ; */) {
      const ch = NAMED.get(name);
      if (ch === undefined) return null; // maybe one of the ~2,000 names we do not carry
      out += v.slice(last, i) + ch;
      last = j + 1;
      i = j;
      continue;
    }
    // Without a semicolon only the legacy names count, and in an attribute not before "=" or an
    // alphanumeric (the run is maximal, so only a whole-run match can be decoded).
    const ch = LEGACY.get(name);
    if (ch !== undefined && after !== 0x3d /* = */) {
      out += v.slice(last, i) + ch;
      last = j;
    }
    i = j - 1;
  }
  return last === 0 ? v : out + v.slice(last);
}

function digitValue(c: number, hex: boolean): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (!hex) return -1;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
}

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** The tokenizer's numeric character reference end state. */
function numericReference(cp: number): string {
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return "\uFFFD";
  if (cp >= 0x80 && cp <= 0x9f) {
    const mapped = WINDOWS_1252[cp - 0x80];
    if (mapped) return String.fromCharCode(mapped);
  }
  return String.fromCodePoint(cp);
}

/** &#128;–&#159; as Windows-1252 (0: no remapping). */
const WINDOWS_1252 = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0,
  0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];

/** The 106 names the tokenizer also accepts without a semicolon (WHATWG's table), as name:hex. */
const LEGACY_NAMES =
  "aacute:e1 Aacute:c1 acirc:e2 Acirc:c2 acute:b4 aelig:e6 AElig:c6 agrave:e0 Agrave:c0 amp:26 AMP:26 aring:e5 " +
  "Aring:c5 atilde:e3 Atilde:c3 auml:e4 Auml:c4 brvbar:a6 ccedil:e7 Ccedil:c7 cedil:b8 cent:a2 copy:a9 COPY:a9 " +
  "curren:a4 deg:b0 divide:f7 eacute:e9 Eacute:c9 ecirc:ea Ecirc:ca egrave:e8 Egrave:c8 eth:f0 ETH:d0 euml:eb " +
  "Euml:cb frac12:bd frac14:bc frac34:be gt:3e GT:3e iacute:ed Iacute:cd icirc:ee Icirc:ce iexcl:a1 igrave:ec " +
  "Igrave:cc iquest:bf iuml:ef Iuml:cf laquo:ab lt:3c LT:3c macr:af micro:b5 middot:b7 nbsp:a0 not:ac ntilde:f1 " +
  "Ntilde:d1 oacute:f3 Oacute:d3 ocirc:f4 Ocirc:d4 ograve:f2 Ograve:d2 ordf:aa ordm:ba oslash:f8 Oslash:d8 " +
  "otilde:f5 Otilde:d5 ouml:f6 Ouml:d6 para:b6 plusmn:b1 pound:a3 quot:22 QUOT:22 raquo:bb reg:ae REG:ae sect:a7 " +
  "shy:ad sup1:b9 sup2:b2 sup3:b3 szlig:df thorn:fe THORN:de times:d7 uacute:fa Uacute:da ucirc:fb Ucirc:db " +
  "ugrave:f9 Ugrave:d9 uml:a8 uuml:fc Uuml:dc yacute:fd Yacute:dd yen:a5 yuml:ff";

/** Further names (semicolon required) that plausibly occur in a URL. */
const MORE_NAMES =
  "apos:27 sol:2f colon:3a quest:3f equals:3d num:23 percnt:25 period:2e comma:2c plus:2b lowbar:5f excl:21 " +
  "dollar:24 commat:40 lpar:28 rpar:29 lsqb:5b rsqb:5d lbrack:5b rbrack:5d lcub:7b rcub:7d lbrace:7b rbrace:7d " +
  "verbar:7c vert:7c VerticalLine:7c grave:60 DiacriticalGrave:60 Hat:5e ast:2a midast:2a semi:3b bsol:5c Tab:9 " +
  "NewLine:a hyphen:2010 dash:2010 ndash:2013 mdash:2014 hellip:2026 lsquo:2018 rsquo:2019 ldquo:201c rdquo:201d " +
  "bull:2022 euro:20ac trade:2122 NonBreakingSpace:a0";

const table = (s: string) =>
  new Map(s.split(" ").map((e) => {
    const [name, hex] = e.split(":") as [string, string];
    return [name, String.fromCodePoint(parseInt(hex, 16))] as const;
  }));
const LEGACY = table(LEGACY_NAMES);
const NAMED = new Map([...LEGACY, ...table(MORE_NAMES)]);

// --- escaping ----------------------------------------------------------------------------------

/** A value escaped for a double-quoted attribute written as markup. */
export function escapeAttribute(s: string): string {
  return s.replace(/[&"<>]/g, (c) => (c === "&" ? "&amp;" : c === '"' ? "&quot;" : c === "<" ? "&lt;" : "&gt;"));
}

/**
 * What to hand setAttribute so that the attribute's value, as a browser decodes it, is `s`.
 * HTMLRewriter's setAttribute in Bun 1.4.5 escapes `"` (as &quot;) but not `&`, so `&` must be
 * escaped first; probed once at load so that a lol-html that starts escaping `&` itself does not
 * get it twice.
 */
const setAttributeEscape: (s: string) => string = (() => {
  const out = new HTMLRewriter()
    .on("a", {
      element(el) {
        el.setAttribute("href", '&"');
      },
    })
    .transform("<a href=q></a>");
  // Bun 1.4.5 writes `<a href="&&quot;"></a>`.
  const value = out.slice('<a href="'.length, out.lastIndexOf('"></a>'));
  const ampEscaped = value.startsWith("&amp;");
  const quoteEscaped = !value.includes('"');
  return (s: string) => {
    let r = s;
    if (!ampEscaped) r = r.replace(/&/g, "&amp;");
    if (!quoteEscaped) r = r.replace(/"/g, "&quot;");
    return r;
  };
})();

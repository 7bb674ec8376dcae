import { describe, expect, test } from "bun:test";
import { decodeAttributeValue, originalUrl, pixelHtml, rewriteHtml, type RewriteOptions } from "../../src/mail/tracking-rewrite.ts";
import { requireTool } from "../support/tools.ts";

const CLICK = "https://t.posthorn.test/t/c/";
const OPEN = "https://t.posthorn.test/t/o/OPENTOKEN";
const UNSUB = "https://news.example/unsubscribe?u=42&s=abc";
const PIXEL = pixelHtml(OPEN);

const opts = (over: Partial<RewriteOptions> = {}): RewriteOptions => ({
  clicks: true,
  opens: true,
  clickUrl: (i) => `${CLICK}tok${i}`,
  openUrl: OPEN,
  unsubscribeUrl: UNSUB,
  ...over,
});

/** What a second, independent pass of HTMLRewriter sees in the output. */
function reparse(html: string) {
  const hrefs: (string | null)[] = [];
  const imgs: (string | null)[] = [];
  let notrack = 0;
  new HTMLRewriter()
    .on("a", {
      element(el) {
        hrefs.push(el.getAttribute("href"));
        if (el.hasAttribute("data-posthorn-notrack")) notrack++;
      },
    })
    .on("img", {
      element(el) {
        imgs.push(el.getAttribute("src"));
      },
    })
    .transform(html);
  const tracked = hrefs.filter((h): h is string => h !== null && h.startsWith(CLICK)).map((h) => h.slice(CLICK.length));
  return { hrefs, tracked, pixels: imgs.filter((s) => s === OPEN).length, notrack };
}

describe("links", () => {
  test("http(s) links are rewritten in document order, the originals returned exactly", () => {
    const html = `<html><body>
      <a href="https://shop.example/p/1?utm_source=news&amp;utm_medium=email#top">one</a>
      <a href="http://shop.example/p/2">two</a>
      <a href="https://shop.example/p/1?utm_source=news&amp;utm_medium=email#top">one again</a>
      <a href="https://bücher.example/straße?q=ü&amp;x=%C3%BC">unicode</a>
      <a href="https://xn--bcher-kva.example/">punycode</a>
      </body></html>`;
    const r = rewriteHtml(html, opts());
    expect(r.links).toEqual([
      "https://shop.example/p/1?utm_source=news&utm_medium=email#top",
      "http://shop.example/p/2",
      "https://shop.example/p/1?utm_source=news&utm_medium=email#top",
      "https://bücher.example/straße?q=ü&x=%C3%BC",
      "https://xn--bcher-kva.example/",
    ]);
    expect(reparse(r.html).tracked).toEqual(["tok0", "tok1", "tok2", "tok3", "tok4"]);
    // Nothing else moved: the text and the other attributes are where they were.
    expect(r.html.replace(/tok\d/g, "")).toContain(`<a href="${CLICK}">one again</a>`);
  });

  test("mailto, tel, fragments, relative links, javascript and other schemes are left byte for byte", () => {
    const untouched = [
      `<a href="mailto:sales@shop.example?subject=Hi&amp;body=x">mail</a>`,
      `<a href="tel:+4930123456">call</a>`,
      `<a href="#section-2">anchor</a>`,
      `<a href="/relative/path">relative</a>`,
      `<a href="//cdn.example/protocol-relative">protocol-relative</a>`,
      `<a href="javascript:alert(1)">js</a>`,
      `<a href=" JavaScript:alert(1)">js2</a>`,
      `<a href="ftp://files.example/x">ftp</a>`,
      `<a href="sms:+4930">sms</a>`,
      `<a href="data:text/html,hi">data</a>`,
      `<a href="httpx://not.http/">httpx</a>`,
      `<a href="http://">empty host</a>`,
      `<a href="http://exa mple.example/">space in host</a>`,
      `<a href="">empty</a>`,
      `<a href>no value</a>`,
      `<a name="top">no href</a>`,
    ];
    const html = `<body>${untouched.join("\n")}<a href="https://x.example/">tracked</a></body>`;
    const r = rewriteHtml(html, opts());
    for (const a of untouched) expect(r.html).toContain(a);
    expect(r.links).toEqual(["https://x.example/"]);
  });

  test("the unsubscribe link is never rewritten, however it is escaped or spaced", () => {
    const html = `<body>
      <a href="https://news.example/unsubscribe?u=42&amp;s=abc">unsubscribe</a>
      <a href="  https://news.example/unsubscribe?u=42&s=abc&#10;">unsubscribe, raw &amp; spaced</a>
      <a href="HTTPS://NEWS.example/unsubscribe?u=42&amp;s=abc">unsubscribe, same URL once parsed</a>
      <a href="https://news.example/unsubscribe?u=43&amp;s=abc">someone else's: tracked</a></body>`;
    const r = rewriteHtml(html, opts());
    expect(r.links).toEqual(["https://news.example/unsubscribe?u=43&s=abc"]);
    expect(r.html).toContain(`<a href="https://news.example/unsubscribe?u=42&amp;s=abc">unsubscribe</a>`);
    expect(r.html).toContain(`<a href="HTTPS://NEWS.example/unsubscribe?u=42&amp;s=abc">`);
  });

  test("data-posthorn-notrack keeps a link untracked, and the attribute never reaches the recipient", () => {
    const html = `<body><a data-posthorn-notrack href="https://private.example/">a</a><a href="https://p.example/x" DATA-POSTHORN-NOTRACK="">b</a><a href="mailto:x@y.example" data-posthorn-notrack>c</a><a href="https://t.example/">d</a></body>`;
    const r = rewriteHtml(html, opts());
    expect(r.links).toEqual(["https://t.example/"]);
    expect(r.html).toContain(`<a href="https://private.example/">a</a>`);
    expect(r.html).toContain(`<a href="https://p.example/x">b</a>`);
    expect(r.html).toContain(`<a href="mailto:x@y.example">c</a>`);
    expect(r.html.toLowerCase()).not.toContain("posthorn-notrack");
    // Also when only opens are tracked.
    const opensOnly = rewriteHtml(html, opts({ clicks: false }));
    expect(opensOnly.links).toEqual([]);
    expect(opensOnly.html.toLowerCase()).not.toContain("posthorn-notrack");
    expect(opensOnly.html).toContain(`<a href="https://t.example/">d</a>`);
  });

  test("uppercase tags and attributes, single-quoted and unquoted values", () => {
    const html = `<BODY><A HREF="HTTPS://Upper.example/A">u</A><a href='https://single.example/?a=1&amp;b=2'>s</a><a href=https://unquoted.example/x?y=1&amp;z=2 class=btn>q</a><a class="x" title='t' href = "http://spaced.example/">sp</a></BODY>`;
    const r = rewriteHtml(html, opts());
    expect(r.links).toEqual(["HTTPS://Upper.example/A", "https://single.example/?a=1&b=2", "https://unquoted.example/x?y=1&z=2", "http://spaced.example/"]);
    expect(reparse(r.html).tracked).toEqual(["tok0", "tok1", "tok2", "tok3"]);
    expect(r.html).toContain(`class=btn>q</a>`);
    // setAttribute writes the rewritten attribute double-quoted, without the spaces around "=";
    // the other attributes are left as written.
    expect(r.html).toContain(`<A HREF="${CLICK}tok0">u</A>`);
    expect(r.html).toContain(`<a class="x" title='t' href="${CLICK}tok3">sp</a>`);
  });

  test("an element with two href attributes: the first is the one a browser follows, and the one rewritten", () => {
    const r = rewriteHtml(`<a href="https://first.example/" href="https://second.example/">x</a>`, opts());
    expect(r.links).toEqual(["https://first.example/"]);
    expect(r.html).toBe(`<a href="${CLICK}tok0" href="https://second.example/">x</a>${PIXEL}`);
  });

  test("leading and trailing whitespace is trimmed and tabs and newlines dropped, as the URL parser does", () => {
    const html = `<a href="  \thttps://ws.example/a\n">a</a><a href="https://ws.example/long-\n    path?x=1">b</a><a href="ht&#x09;tps://ws.example/c">c</a><a href="&#32;https://ws.example/d&#10;">d</a>`;
    const r = rewriteHtml(html, opts());
    expect(r.links).toEqual(["https://ws.example/a", "https://ws.example/long-    path?x=1", "https://ws.example/c", "https://ws.example/d"]);
    // Each stored URL parses, to what the browser would have requested.
    expect(r.links.map((u) => new URL(u).href)).toEqual(["https://ws.example/a", "https://ws.example/long-%20%20%20%20path?x=1", "https://ws.example/c", "https://ws.example/d"]);
  });

  test("the click and open URLs are escaped: the output decodes to exactly the URLs given", () => {
    const r = rewriteHtml(`<body><a href="https://x.example/">x</a></body>`, opts({ clickUrl: (i) => `https://t.example/c?i=${i}&q="'<>`, openUrl: `https://t.example/o?a=1&b="2"` }));
    const hrefs: string[] = [];
    const srcs: string[] = [];
    new HTMLRewriter()
      .on("a", { element: (el) => void hrefs.push(decodeAttributeValue(el.getAttribute("href")!)!) })
      .on("img", { element: (el) => void srcs.push(decodeAttributeValue(el.getAttribute("src")!)!) })
      .transform(r.html);
    expect(hrefs).toEqual([`https://t.example/c?i=0&q="'<>`]);
    expect(srcs).toEqual([`https://t.example/o?a=1&b="2"`]);
    expect(r.html).toContain(`href="https://t.example/c?i=0&amp;q=&quot;'<>"`);
  });

  test("a link of 8 KB is rewritten and stored whole", () => {
    const long = `https://long.example/p?${"k=v&amp;".repeat(1024)}end=1`;
    const r = rewriteHtml(`<body><a href="${long}">x</a></body>`, opts());
    expect(long.length).toBeGreaterThan(8192);
    expect(r.links).toEqual([long.replaceAll("&amp;", "&")]);
    expect(reparse(r.html).tracked).toEqual(["tok0"]);
  });

  test("an HTML of 5 MB with 10,000 links takes well under 2 s", () => {
    const filler = `<p style="margin:0">${"Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(8)}</p>\n`;
    const parts = ["<html><body>"];
    for (let i = 0; i < 10_000; i++) parts.push(`<a href="https://big.example/item/${i}?a=1&amp;b=2">item ${i}</a>`, filler);
    parts.push("</body></html>");
    const html = parts.join("");
    expect(html.length).toBeGreaterThan(5_000_000);
    const t0 = performance.now();
    const r = rewriteHtml(html, opts());
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(2000);
    expect(r.links.length).toBe(10_000);
    expect(r.links[9_999]).toBe("https://big.example/item/9999?a=1&b=2");
    const again = reparse(r.html);
    expect(again.tracked.length).toBe(10_000);
    expect(again.tracked[1234]).toBe("tok1234");
    expect(r.html.endsWith(`${PIXEL}</body></html>`)).toBe(true);
  });
});

describe("character references in href (checked against Chromium 156's getAttribute)", () => {
  const cases: [string, string | null][] = [
    ["https://e.example/?a=1&amp;b=2", "https://e.example/?a=1&b=2"],
    ["https://e.example/?a=1&AMP;b=2&amp=3", "https://e.example/?a=1&b=2&amp=3"],
    ["https://e.example/?a&amp", "https://e.example/?a&"],
    ["https://e.example/?a=1&copy=2", "https://e.example/?a=1&copy=2"], // legacy name before "=": kept
    ["https://e.example/?a=1&copyx", "https://e.example/?a=1&copyx"], // before an alphanumeric: kept
    ["https://e.example/?a=&copy-x", "https://e.example/?a=©-x"], // otherwise decoded
    ["https://e.example/?a=&not;&notin;", null], // &notin; is a name we do not carry: untracked
    ["https://e.example/?a=&#38;&#x26;&#X26&#38", "https://e.example/?a=&&&&"],
    ["https://e.example/?a=&#128;&#x9F;&#129;", "https://e.example/?a=€Ÿ\u0081"],
    ["https://e.example/?a=&#0;&#xD800;&#x110000;&#99999999999999999999;", "https://e.example/?a=\uFFFD\uFFFD\uFFFD\uFFFD"],
    ["https://e.example/?a=&#x1F600;", "https://e.example/?a=😀"],
    ["https://e.example/?a=&#;&#x;&#xZ;& &;", "https://e.example/?a=&#;&#x;&#xZ;& &;"],
    ["https://e.example/&sol;x&colon;y&quest;z&equals;1&num;f", "https://e.example//x:y?z=1#f"],
    ["https://e.example/?q=&quot;a&quot;&lt;b&gt;", 'https://e.example/?q="a"<b>'],
    ["https://e.example/?a=&zzz;", null],
    ["https://e.example/?a=\0b", "https://e.example/?a=\uFFFDb"],
  ];
  for (const [raw, want] of cases) {
    test(JSON.stringify(raw), () => {
      expect(originalUrl(raw)).toBe(want);
      const r = rewriteHtml(`<a href="${raw.replace(/"/g, "&quot;")}">x</a>`, opts({ opens: false }));
      expect(r.links).toEqual(want === null ? [] : [want]);
      if (want === null) expect(r.html).toBe(`<a href="${raw.replace(/"/g, "&quot;")}">x</a>`);
    });
  }

  // `he` (a dependency of mailparser) implements the WHATWG attribute-value decoding with the
  // full table: every value we decode must decode the same way there.
  const he: { decode(s: string, o: { isAttributeValue: boolean }): string } | null = requireTool("he") ? require("he") : null;
  test.skipIf(!he)("random mixtures of references decode as the full WHATWG table would", () => {
    const pieces = ["&amp;", "&amp", "&AMP", "&copy", "&copy;", "&not", "&notin;", "&nbsp;", "&euro;", "&frac12", "&sup1", "&#38;", "&#x2F;", "&#128;", "&#", "&", "=", ";", "a", "Z", "9", "/", "?", "#", "ä", " ", "&lt", "&Tab;", "&hellip;", "&zwnj;", "&AElig", "&yuml;"];
    let decoded = 0;
    let abstained = 0;
    for (let n = 0; n < 5000; n++) {
      let v = "https://e.example/?";
      const len = 1 + Math.floor(Math.random() * 8);
      for (let i = 0; i < len; i++) v += pieces[Math.floor(Math.random() * pieces.length)];
      const ours = decodeAttributeValue(v);
      if (ours === null) {
        abstained++;
        continue;
      }
      decoded++;
      expect(ours).toBe(he!.decode(v, { isAttributeValue: true }));
    }
    expect(decoded).toBeGreaterThan(abstained);
  });
});

describe("the open pixel", () => {
  test("goes at the end of the body, once, before </body>", () => {
    const html = `<!doctype html><html><head><title>t</title></head><body><table><tr><td>hi</td></tr></table></body></html>`;
    const r = rewriteHtml(html, opts());
    expect(r.html).toBe(html.replace("</body>", `${PIXEL}</body>`));
    expect(PIXEL).toBe(`<img src="${OPEN}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" />`);
    const two = rewriteHtml(`<BODY>a</BODY><body>b</body>`, opts());
    expect(two.html).toBe(`<BODY>a${PIXEL}</BODY><body>b</body>`);
  });

  test("is appended at the very end when there is no body element, or no </body>", () => {
    expect(rewriteHtml(`<p>just a fragment</p>`, opts()).html).toBe(`<p>just a fragment</p>${PIXEL}`);
    expect(rewriteHtml(`<html><body><p>unclosed`, opts()).html).toBe(`<html><body><p>unclosed${PIXEL}`);
    expect(rewriteHtml(``, opts()).html).toBe(PIXEL);
  });

  test("is left out when the document ends inside a tag, a comment or a raw-text element", () => {
    for (const html of [`<p>hi <a href="https://x.example/`, `<p>hi <a`, `<p>hi <!-- note`, `<p><textarea>text`, `<p><script>var x`, `<plaintext>x`]) {
      const r = rewriteHtml(html, opts({ clicks: false }));
      expect(r.html).toBe(html);
    }
  });

  test("opens only, clicks only, both, neither", () => {
    const html = `<html><body><a href="https://x.example/">x</a></body></html>`;
    const both = rewriteHtml(html, opts());
    expect(both.html).toBe(`<html><body><a href="${CLICK}tok0">x</a>${PIXEL}</body></html>`);
    const clicks = rewriteHtml(html, opts({ opens: false }));
    expect(clicks.html).toBe(`<html><body><a href="${CLICK}tok0">x</a></body></html>`);
    const opens = rewriteHtml(html, opts({ clicks: false }));
    expect(opens).toEqual({ html: `<html><body><a href="https://x.example/">x</a>${PIXEL}</body></html>`, links: [] });
    // No openUrl: no pixel, whatever `opens` says.
    expect(rewriteHtml(html, opts({ openUrl: null })).html).toBe(clicks.html);
    // Neither: the input itself, unparsed (even its data-posthorn-notrack attributes).
    const odd = `<a href="https://x.example/" data-posthorn-notrack>x</a><p>\uD800 <unclosed`;
    expect(rewriteHtml(odd, opts({ clicks: false, opens: false }))).toEqual({ html: odd, links: [] });
    expect(rewriteHtml(odd, opts({ clicks: false, openUrl: null })).html).toBe(odd);
  });
});

describe("malformed and hostile input", () => {
  const malformed: [string, string, number][] = [
    ["unclosed tags", `<html><body><div><table><tr><td><p><b><a href="https://a.example/">a</a><i>unclosed`, 1],
    ["stray end tags", `</a></a><body></p></div><a href="https://a.example/">a</a></a></a></td></body></html></html>`, 1],
    ["no html or body", `<a href="https://a.example/">a</a> text <a href="https://b.example/">b</a>`, 2],
    ["<a without href, href without value", `<a>x</a><a href>y</a><a href=>z</a><a href="">w</a><a href="https://a.example/">a</a>`, 1],
    ["nested <a>", `<body><a href="https://outer.example/">outer <a href="https://inner.example/">inner</a> tail</a></body>`, 2],
    ["garbage bytes", `<body>\u0000\u0001\uFFFE\uD800<a href="https://a.example/\u0000">a</a>\u00FF<<>><a <a href="https://b.example/">b</a></body>`, 2],
    ["unterminated quote mid-document", `<body><a href="https://a.example/>x</a><p>more</p><a href="https://b.example/">b</a></body>`, 1],
    ["a link inside a comment and in raw text", `<body><!--<a href="https://c.example/">--><script>"<a href='https://s.example/'>"</script><textarea><a href="https://t.example/"></textarea><a href="https://a.example/">a</a></body>`, 1],
    ["<body/> and attributes on end tags", `<body/><a href="https://a.example/" >a</a foo="bar"></body x=1>`, 1],
    ["a truncated tag at the end", `<body><a href="https://a.example/">a</a><a href="https://b.exa`, 1],
  ];
  for (const [name, html, count] of malformed) {
    test(name, () => {
      const r = rewriteHtml(html, opts());
      expect(r.links.length).toBe(count);
      // Fed again through a parser: the same rewritten links, in order.
      expect(reparse(r.html).tracked).toEqual(r.links.map((_, i) => `tok${i}`));
    });
  }

  test("a pixel placed at the end of a malformed document is an element", () => {
    for (const [, html] of malformed.slice(0, 6)) expect(reparse(rewriteHtml(html, opts()).html).pixels).toBe(1);
  });

  test("200 random byte strings never throw, and neither does a tag soup", () => {
    const soup = ["<a", " href=", `"https://r.example/"`, "'", '"', ">", "</a>", "<body>", "</body>", "<!--", "-->", "<script>", "</script>", "&amp;", "&#", "<", "x", "\n", "data-posthorn-notrack", "<textarea>", "<![CDATA[", "<?", "=", "\0"];
    for (let n = 0; n < 200; n++) {
      const bytes = crypto.getRandomValues(new Uint8Array(Math.floor(Math.random() * 4096)));
      const asUtf8 = new TextDecoder().decode(bytes);
      const asLatin1 = String.fromCharCode(...bytes);
      let tags = "";
      for (let i = 0; i < 60; i++) tags += soup[Math.floor(Math.random() * soup.length)];
      for (const html of [asUtf8, asLatin1, tags]) {
        const r = rewriteHtml(html, opts());
        expect(typeof r.html).toBe("string");
        expect(reparse(r.html).tracked).toEqual(r.links.map((_, i) => `tok${i}`));
      }
    }
  });

  test("a clickUrl that throws: the original HTML, no links, the pixel appended (the documented fallback)", () => {
    const html = `<body><a href="https://x.example/">x</a></body>`;
    const r = rewriteHtml(html, opts({ clickUrl: () => { throw new Error("no tokens today"); } }));
    expect(r).toEqual({ html: html + PIXEL, links: [] });
    // The next message is unaffected.
    expect(rewriteHtml(html, opts()).links).toEqual(["https://x.example/"]);
  });

  test("an attribute of 6 MB does not blow up", () => {
    const html = `<body><a title="${"t".repeat(6_000_000)}" href="https://x.example/">x</a></body>`;
    const r = rewriteHtml(html, opts());
    expect(r.links).toEqual(["https://x.example/"]);
  });
});

// The gate of POSTHORN_DELIVERY_MEMORY_MB (src/mail/delivery-memory.ts): what an attempt is given
// of it, in what order waiting attempts get in, and the estimate of a copy before it is composed.
import { expect, test } from "bun:test";
import { INLINE_PART_BYTES } from "../../src/db/deliveries.ts";
import { DeliveryMemory, estimateCopyBytes } from "../../src/mail/delivery-memory.ts";

test("attempts get in while they fit, then first come first served; one asking more than the limit gets the limit and goes alone", async () => {
  const m = new DeliveryMemory(100);
  const a = await m.enter(60);
  expect(a.bytes).toBe(60);
  const order: string[] = [];
  const big = m.enter(1_000).then((g) => (order.push("big"), g));
  const small = m.enter(10).then((g) => (order.push("small"), g)); // fits now, but waits behind big: big is not overtaken
  await Bun.sleep(5);
  expect(order).toEqual([]);
  a.leave();
  const bigGiven = await big;
  expect(bigGiven.bytes).toBe(100); // the whole limit, alone
  await Bun.sleep(5);
  expect(order).toEqual(["big"]);
  expect(m.held).toBe(100);
  bigGiven.leave();
  bigGiven.leave(); // a second leave gives nothing back twice
  expect((await small).bytes).toBe(10);
  expect(m.held).toBe(10);
});

test("large mail does not stop small mail: an attempt asks at most half unless one copy needs more, and a small ask that fits passes large ones waiting", async () => {
  const m = new DeliveryMemory(640);
  expect(m.ask(100, 50, 20)).toBe(320); // half the limit: 4 copies in flight
  expect(m.ask(100, 400, 20)).toBe(500); // one copy needs more than half: that much
  expect(m.ask(1, 2, 3)).toBe(7); // small: all it has
  const a = await m.enter(320);
  const b = await m.enter(300);
  let bigIn = false;
  const big = m.enter(320).then((g) => ((bigIn = true), g));
  const small = await m.enter(10); // 10 <= 640 / 64 and it fits: in at once, past the big one waiting
  expect(small.bytes).toBe(10);
  expect(await Promise.race([m.enter(11).then(() => "in"), Bun.sleep(5).then(() => "waits")])).toBe("waits"); // not small: waits its turn
  expect(bigIn).toBe(false);
  a.leave();
  b.leave();
  small.leave();
  expect((await big).bytes).toBe(320);
});

test("a copy's estimate covers what composing writes: base64 attachments, encoded parts, tracked links", () => {
  const mib = 1024 * 1024;
  const html = `<a href="https://x.test/">x</a>`.repeat(20);
  const est = estimateCopyBytes({ html, htmlBytes: html.length, textBytes: 5, attachmentBytes: 25 * mib });
  expect(est).toBeGreaterThan(25 * mib * (4 / 3) * (78 / 76));
  expect(est).toBeLessThan(36 * mib);
  expect(estimateCopyBytes({ html: null, htmlBytes: 0, textBytes: 2, attachmentBytes: 0 })).toBeLessThan(20 * 1024);
  // HTML too large to come with the row: estimated from its size.
  expect(estimateCopyBytes({ html: null, htmlBytes: 10 * mib, textBytes: 0, attachmentBytes: 0 })).toBeGreaterThan(14 * mib);
});

test("HTML too large to come with the job's row is read in its turn: every tracked copy is delivered with its links rewritten", async () => {
  const { startOutbound } = await import("../send/harness.ts");
  const h = await startOutbound({ env: { POSTHORN_DELIVERY_MEMORY_MB: "1" } });
  try {
    h.routeToSink("big.test");
    const html = `<p><a href="https://shop.example/catalogue">Catalogue</a></p>` + `<p>${"Lorem ipsum dolor sit amet. ".repeat(12_000)}</p>`;
    expect(html.length).toBeGreaterThan(INLINE_PART_BYTES);
    const res = await h.send({ from: "app@sender.test", to: ["a@big.test", "b@big.test", "c@big.test"], subject: "Large", html, track_clicks: true, track_opens: true });
    expect(res.status).toBe(202);
    await h.waitForStatus(res.json.message_id, ["delivered"], 20_000);
    const copies = h.sink.received.filter((m) => m.to[0]!.endsWith("@big.test"));
    expect(copies.length).toBe(3);
    for (const m of copies) {
      const raw = m.raw.toString("latin1").replace(/=\r\n/g, "");
      expect(raw).not.toContain("https://shop.example/catalogue");
      expect(raw).toContain("/t/c/");
      expect(raw.length).toBeGreaterThan(html.length);
    }
  } finally {
    await h.close();
  }
}, 30_000);

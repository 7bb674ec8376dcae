// The gate of POSTHORN_DELIVERY_MEMORY_MB (src/mail/delivery-memory.ts): what an attempt is given
// of it, in what order waiting attempts get in, and the estimate of a copy before it is composed.
import { expect, test } from "bun:test";
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

test("a copy's estimate covers what composing writes: base64 attachments, encoded parts, tracked links", () => {
  const mib = 1024 * 1024;
  const est = estimateCopyBytes({ html: `<a href="https://x.test/">x</a>`.repeat(20), text: "hello", attachmentBytes: 25 * mib });
  expect(est).toBeGreaterThan(25 * mib * (4 / 3) * (78 / 76));
  expect(est).toBeLessThan(36 * mib);
  expect(estimateCopyBytes({ html: null, text: "hi", attachmentBytes: 0 })).toBeLessThan(20 * 1024);
});

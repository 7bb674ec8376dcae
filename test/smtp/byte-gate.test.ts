import { describe, expect, test } from "bun:test";
import { ByteGate } from "../../src/smtp/byte-gate.ts";

/** Enters and records the order in which pieces got in. */
function enterAll(gate: ByteGate, sizes: number[], order: number[]) {
  return sizes.map((bytes, i) =>
    gate.enter(bytes).then((leave) => {
      order.push(i);
      return leave;
    }),
  );
}

describe("ByteGate: bytes held at once", () => {
  test("pieces under the limit go in at once; the next waits until enough has left", async () => {
    const gate = new ByteGate(100);
    const order: number[] = [];
    const [a, b, c] = enterAll(gate, [40, 50, 30], order);
    const leaveA = await a!;
    await b;
    await Bun.sleep(5);
    expect(order).toEqual([0, 1]);
    leaveA();
    await c;
    expect(order).toEqual([0, 1, 2]);
  });

  test("a piece larger than the limit passes alone, once the gate is empty", async () => {
    const gate = new ByteGate(100);
    const order: number[] = [];
    const [small, big] = enterAll(gate, [10, 500], order);
    const leaveSmall = await small!;
    await Bun.sleep(5);
    expect(order).toEqual([0]);
    leaveSmall();
    const leaveBig = await big!;
    expect(order).toEqual([0, 1]);
    leaveBig();
  });

  test("first come, first served: a small piece does not overtake a large one waiting", async () => {
    const gate = new ByteGate(100);
    const order: number[] = [];
    const [first, large, small] = enterAll(gate, [60, 80, 10], order);
    const leaveFirst = await first!;
    await Bun.sleep(5);
    expect(order).toEqual([0]); // 10 would fit beside 60, but 80 came first
    leaveFirst();
    (await large!)();
    await small;
    expect(order).toEqual([0, 1, 2]);
  });

  test("leaving twice gives the bytes back once", async () => {
    const gate = new ByteGate(100);
    const leave = await gate.enter(100);
    leave();
    leave();
    const order: number[] = [];
    const [a, b] = enterAll(gate, [100, 1], order);
    await a;
    await Bun.sleep(5);
    expect(order).toEqual([0]);
    void b;
  });

  test("take refuses at once what does not fit, and gives back with give", () => {
    const gate = new ByteGate(100);
    expect(gate.take(60)).toBe(true);
    expect(gate.take(50)).toBe(false);
    expect(gate.take(40)).toBe(true);
    gate.give(60);
    expect(gate.take(50)).toBe(true);
  });

  test("take and enter share one count: bytes given back admit a waiting piece, and take does not overtake it", async () => {
    const gate = new ByteGate(100);
    expect(gate.take(80)).toBe(true);
    const order: number[] = [];
    const [waiting] = enterAll(gate, [50], order);
    await Bun.sleep(5);
    expect(order).toEqual([]);
    expect(gate.take(10)).toBe(false); // would fit, but a piece waits
    gate.give(80);
    (await waiting!)();
    expect(order).toEqual([0]);
    expect(gate.take(100)).toBe(true);
  });
});

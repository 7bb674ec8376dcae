import { describe, expect, test } from "bun:test";
import { randomBytes, randomInt } from "node:crypto";
import { MAX_LINK_INDEX, TRACKING_TOKEN_LENGTH, readTrackingToken, trackingToken, type TrackingTokenData } from "../../src/auth/tracking-tokens.ts";
import { signValue } from "../../src/secrets.ts";

const SECRET = "a3f1c0ffee".repeat(6);
const MESSAGE = "01a20b5d-d67c-77a9-8b99-0bd0886ecb3b";
const RECIPIENT = "01a20b5d-d67d-7c01-a2f3-5e6f7a8b9c0d";
const OTHER = "01a20b5e-0000-7000-8000-000000000001";
const URL_SAFE = /^[A-Za-z0-9_-]+$/;

const open = (messageId = MESSAGE, recipientId = RECIPIENT): TrackingTokenData => ({ kind: "open", messageId, recipientId });
const click = (link: number, messageId = MESSAGE, recipientId = RECIPIENT): TrackingTokenData => ({ kind: "click", messageId, recipientId, link });

const bytesOf = (token: string) => Buffer.from(token, "base64url");
const tokenOf = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
/** A token with one byte changed (XOR), so the change always takes effect. */
const flipByte = (token: string, index: number, mask = 0x01) => {
  const b = bytesOf(token);
  b[index]! ^= mask;
  return tokenOf(b);
};
/** A token re-signed correctly over `body` under `secret` — what a holder of the secret could make. */
const resign = (secret: string, body: Buffer) => tokenOf(Buffer.concat([body, Buffer.from(signValue(secret, "tracking", body.toString("base64url"), 20), "hex")]));

describe("round trip", () => {
  test("an open token names its message and recipient", () => {
    const t = trackingToken(SECRET, open());
    expect(readTrackingToken(SECRET, t)).toEqual(open());
  });

  for (const link of [0, 1, 2, 255, 256, 65534, 65535]) {
    test(`a click token names its message, recipient and link ${link}`, () => {
      const t = trackingToken(SECRET, click(link));
      expect(readTrackingToken(SECRET, t)).toEqual(click(link));
    });
  }

  test("UUIDs round-trip exactly, lowercase with dashes, for many random ids", () => {
    for (let i = 0; i < 500; i++) {
      const m = crypto.randomUUID();
      const r = i % 2 ? Bun.randomUUIDv7() : crypto.randomUUID();
      const link = randomInt(0, MAX_LINK_INDEX + 1);
      expect(readTrackingToken(SECRET, trackingToken(SECRET, open(m, r)))).toEqual(open(m, r));
      expect(readTrackingToken(SECRET, trackingToken(SECRET, click(link, m, r)))).toEqual(click(link, m, r));
    }
    for (const id of ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"]) {
      expect(readTrackingToken(SECRET, trackingToken(SECRET, open(id, id)))).toEqual(open(id, id));
    }
  });

  test("uppercase UUIDs are accepted and come back lowercase", () => {
    const t = trackingToken(SECRET, open(MESSAGE.toUpperCase(), RECIPIENT.toUpperCase()));
    expect(t).toBe(trackingToken(SECRET, open()));
    expect(readTrackingToken(SECRET, t)).toEqual(open());
  });

  test("tokens are deterministic and differ by every field", () => {
    const all = [trackingToken(SECRET, open()), trackingToken(SECRET, open(OTHER)), trackingToken(SECRET, open(MESSAGE, OTHER)), trackingToken(SECRET, click(0)), trackingToken(SECRET, click(1))];
    expect(trackingToken(SECRET, open())).toBe(all[0]!);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe("shape", () => {
  test("URL-safe, unpadded, 58 characters for opens and 60 for clicks", () => {
    expect(TRACKING_TOKEN_LENGTH).toEqual({ open: 58, click: 60 });
    for (let i = 0; i < 200; i++) {
      const o = trackingToken(SECRET, open(crypto.randomUUID(), crypto.randomUUID()));
      const c = trackingToken(SECRET, click(randomInt(0, 65536), crypto.randomUUID(), crypto.randomUUID()));
      expect(o).toMatch(URL_SAFE);
      expect(c).toMatch(URL_SAFE);
      expect(o.length).toBe(58);
      expect(c.length).toBe(60);
      expect(encodeURIComponent(o)).toBe(o);
      expect(encodeURIComponent(c)).toBe(c);
    }
  });

  test("layout: version/kind byte, 16 + 16 bytes of ids, link big-endian, 10 bytes of MAC", () => {
    const o = bytesOf(trackingToken(SECRET, open()));
    const c = bytesOf(trackingToken(SECRET, click(0x1234)));
    expect(o.length).toBe(43);
    expect(c.length).toBe(45);
    expect(o[0]).toBe(0x10);
    expect(c[0]).toBe(0x11);
    expect(o.subarray(1, 17).toString("hex")).toBe(MESSAGE.replace(/-/g, ""));
    expect(o.subarray(17, 33).toString("hex")).toBe(RECIPIENT.replace(/-/g, ""));
    expect(c.readUInt16BE(33)).toBe(0x1234);
  });

  test("making a token from bad input throws (a programming error, not a request)", () => {
    expect(() => trackingToken(SECRET, open("not-a-uuid"))).toThrow();
    expect(() => trackingToken(SECRET, open(MESSAGE, MESSAGE.replace(/-/g, "")))).toThrow();
    expect(() => trackingToken(SECRET, open(`${MESSAGE}0`))).toThrow();
    for (const link of [-1, 65536, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => trackingToken(SECRET, click(link))).toThrow();
  });
});

describe("forgeries read as null", () => {
  const o = trackingToken(SECRET, open());
  const c = trackingToken(SECRET, click(7));

  test("another secret", () => {
    expect(readTrackingToken("another secret", o)).toBeNull();
    expect(readTrackingToken("another secret", c)).toBeNull();
    expect(readTrackingToken(SECRET, trackingToken("another secret", open()))).toBeNull();
    expect(readTrackingToken(SECRET, trackingToken("", click(7)))).toBeNull();
  });

  test("altered signature: every bit of the MAC", () => {
    for (const t of [o, c]) {
      const n = bytesOf(t).length;
      for (let i = n - 10; i < n; i++) for (let bit = 0; bit < 8; bit++) expect(readTrackingToken(SECRET, flipByte(t, i, 1 << bit))).toBeNull();
    }
  });

  test("altered message id, recipient id, link index or header: every bit", () => {
    for (const t of [o, c]) {
      const n = bytesOf(t).length - 10;
      for (let i = 0; i < n; i++) for (let bit = 0; bit < 8; bit++) expect(readTrackingToken(SECRET, flipByte(t, i, 1 << bit))).toBeNull();
    }
  });

  test("ids or link swapped in from another valid token (same MAC kept)", () => {
    const other = bytesOf(trackingToken(SECRET, click(8, OTHER, OTHER)));
    const mine = bytesOf(c);
    for (const [from, to] of [
      [1, 17], // message id
      [17, 33], // recipient id
      [33, 35], // link index
    ] as const) {
      const b = Buffer.from(mine);
      other.copy(b, from, from, to);
      expect(readTrackingToken(SECRET, tokenOf(b))).toBeNull();
    }
    // The MAC of one token on the body of another.
    const b = Buffer.from(mine);
    other.copy(b, 35, 35);
    expect(readTrackingToken(SECRET, tokenOf(b))).toBeNull();
  });

  test("another kind: an open's body as a click and the other way round", () => {
    const ob = bytesOf(o);
    const cb = bytesOf(c);
    // Header byte switched, lengths kept.
    expect(readTrackingToken(SECRET, flipByte(o, 0, 0x01))).toBeNull();
    expect(readTrackingToken(SECRET, flipByte(c, 0, 0x01))).toBeNull();
    // An open token with two link bytes spliced in before its MAC, and a click with its link cut out.
    expect(readTrackingToken(SECRET, tokenOf(Buffer.concat([ob.subarray(0, 33), Buffer.from([0, 7]), ob.subarray(33)])))).toBeNull();
    expect(readTrackingToken(SECRET, tokenOf(Buffer.concat([cb.subarray(0, 33), cb.subarray(35)])))).toBeNull();
    // Correctly signed by us but with an unknown version or kind: still not ours.
    for (const header of [0x00, 0x01, 0x12, 0x20, 0x21, 0xff]) {
      const body = Buffer.from(ob.subarray(0, 33));
      body[0] = header;
      expect(readTrackingToken(SECRET, resign(SECRET, body))).toBeNull();
      const cbody = Buffer.from(cb.subarray(0, 35));
      cbody[0] = header;
      expect(readTrackingToken(SECRET, resign(SECRET, cbody))).toBeNull();
    }
    // Sanity: resign reproduces a real token, so the checks above test the header and not the MAC.
    expect(resign(SECRET, Buffer.from(ob.subarray(0, 33)))).toBe(o);
  });

  test("truncated and extended", () => {
    for (const t of [o, c]) {
      for (let n = 0; n < t.length; n++) expect(readTrackingToken(SECRET, t.slice(0, n))).toBeNull();
      for (let n = 1; n < t.length; n++) expect(readTrackingToken(SECRET, t.slice(n))).toBeNull();
      for (const extra of ["A", "AA", "AAA", "AAAA", "=", "==", "_", "-", "0", "/", "%00", ".", "?x=1", "#", " ", "\n", t]) {
        expect(readTrackingToken(SECRET, t + extra)).toBeNull();
        expect(readTrackingToken(SECRET, extra + t)).toBeNull();
      }
    }
  });

  test("the click token of 58 characters and the open token of 60 are not confused", () => {
    // An open token cut to a click's body, and a click's bytes cut to an open's length.
    expect(readTrackingToken(SECRET, tokenOf(bytesOf(c).subarray(0, 43)))).toBeNull();
    expect(readTrackingToken(SECRET, o + "AA")).toBeNull();
  });

  test("non-canonical base64url: stray bits in the last character, padding, the standard alphabet", () => {
    // An open is 43 bytes = 344 bits in 58 characters = 348 bits: the last character has 4 spare bits.
    const last = o.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const base = alphabet.indexOf(last) & ~0x0f;
    for (let spare = 1; spare < 16; spare++) {
      const t = o.slice(0, -1) + alphabet[base | spare];
      expect(Buffer.from(t, "base64url").equals(bytesOf(o))).toBe(true); // Node would decode it to the same bytes
      expect(readTrackingToken(SECRET, t)).toBeNull();
    }
    expect(readTrackingToken(SECRET, o + "==")).toBeNull();
    expect(readTrackingToken(SECRET, `${o.slice(0, -2)}==`)).toBeNull();
    const std = Buffer.from(bytesOf(c)).toString("base64");
    if (std !== c) expect(readTrackingToken(SECRET, std)).toBeNull();
  });

  test("hostile alphabets at the right lengths: unicode, %00, slashes, dots, whitespace", () => {
    for (const t of [o, c]) {
      for (const bad of ["/", ".", "+", "=", "%", " ", "\0", "\n", "é", "😀", "\u202e", "\ufeff", "Ａ"]) {
        for (const at of [0, 1, 20, t.length - 1]) {
          const forged = t.slice(0, at) + bad + t.slice(at + 1);
          expect(readTrackingToken(SECRET, forged)).toBeNull();
          expect(readTrackingToken(SECRET, t.slice(0, at) + bad + t.slice(at + bad.length))).toBeNull();
        }
      }
      expect(readTrackingToken(SECRET, `../${t.slice(3)}`)).toBeNull();
      expect(readTrackingToken(SECRET, `%00${t.slice(3)}`)).toBeNull();
      expect(readTrackingToken(SECRET, t.toUpperCase())).toBeNull();
      expect(readTrackingToken(SECRET, t.toLowerCase())).toBeNull();
    }
  });

  test("not a string at all", () => {
    for (const v of [undefined, null, 0, 58, {}, [], Buffer.from(o)]) expect(readTrackingToken(SECRET, v as unknown as string)).toBeNull();
  });

  test("lengths from 0 to 100 KB", () => {
    for (const n of [0, 1, 2, 3, 4, 42, 43, 44, 45, 57, 58, 59, 60, 61, 62, 64, 100, 1000, 4096, 65536, 100 * 1024]) {
      expect(readTrackingToken(SECRET, "A".repeat(n))).toBeNull();
      if (n !== o.length) expect(readTrackingToken(SECRET, o.repeat(Math.ceil(n / o.length)).slice(0, n))).toBeNull();
    }
  });
});

test("10,000 random tokens of random length and alphabet are all null and never throw", () => {
  const urlSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const hostile = `${urlSafe}+/=.%\0 \t\r\n?#&éü€😀\u202e\ufeff\\"'<>`;
  const pick = (alphabet: string) => {
    const chars = [...alphabet];
    return chars[randomInt(0, chars.length)]!;
  };
  let reached = 0;
  for (let i = 0; i < 10_000; i++) {
    let token: string;
    switch (i % 5) {
      case 0: // exactly an open's length, URL-safe: reaches the MAC check
        token = Array.from({ length: 58 }, () => pick(urlSafe)).join("");
        break;
      case 1: // exactly a click's length, URL-safe
        token = Array.from({ length: 60 }, () => pick(urlSafe)).join("");
        break;
      case 2: // correct header and length, random ids and MAC
        token = tokenOf(Buffer.concat([Buffer.from([i % 2 ? 0x10 : 0x11]), randomBytes(i % 2 ? 42 : 44)]));
        break;
      case 3: // random length, hostile alphabet
        token = Array.from({ length: randomInt(0, 200) }, () => pick(hostile)).join("");
        break;
      default: // random bytes of random length, as base64url or as a raw latin1 string
        token = i % 2 ? randomBytes(randomInt(0, 2000)).toString("base64url") : randomBytes(randomInt(0, 300)).toString("latin1");
    }
    if (token.length === 58 || token.length === 60) reached++;
    expect(readTrackingToken(SECRET, token)).toBeNull();
  }
  expect(reached).toBeGreaterThan(6000);
});

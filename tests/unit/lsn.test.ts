import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { lsnAtOrPast, parseLsn } from "~/server/db/lsn";

describe("write-ahead-log positions (the read-your-writes cookie)", () => {
  it("reads PostgreSQL's pg_lsn text and nothing else", () => {
    expect(parseLsn("16/B374D848")).toBe("16/B374D848");
    expect(parseLsn("0/3000060")).toBe("0/3000060");
    expect(parseLsn(" 0/3000a60 ")).toBe("0/3000A60");
    for (const bad of [undefined, "", "0", "0/", "/1", "G/1", "0/1; drop table x", "123456789/0", "0/1/2"])
      expect(parseLsn(bad)).toBeUndefined();
  });

  it("orders positions as 64-bit numbers, not as text", () => {
    expect(lsnAtOrPast("0/A0000000", "0/9FFFFFFF")).toBe(true);
    expect(lsnAtOrPast("1/0", "0/FFFFFFFF")).toBe(true);
    expect(lsnAtOrPast("0/FFFFFFFF", "1/0")).toBe(false);
    expect(lsnAtOrPast("16/B374D848", "16/B374D848")).toBe(true);
    // As text, "9/0" sorts after "10/0".
    expect(lsnAtOrPast("9/0", "10/0")).toBe(false);
  });

  it("agrees with the numbers the positions stand for", () => {
    const position = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    const text = (n: bigint) =>
      `${(n >> 32n).toString(16).toUpperCase()}/${(n & 0xffffffffn).toString(16).toUpperCase()}`;
    fc.assert(
      fc.property(position, position, (a, b) => {
        expect(parseLsn(text(a))).toBe(text(a));
        expect(lsnAtOrPast(text(a), text(b))).toBe(a >= b);
      }),
    );
  });
});

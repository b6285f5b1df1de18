import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  MICRO_DEPOSIT_TRIES,
  canUseLinkedAccount,
  confirmDepositsSchema,
  confirmMicroDeposits,
  drawMicroDeposits,
  linkAccountSchema,
  microDepositOffset,
  microDepositsMatch,
  parseMicroDeposit,
  LINKED_ACCOUNT_MESSAGES as M,
} from "~/domain/linked-accounts";

/** Micro-deposit rules (docs/product.md#linked-accounts). */
describe("micro-deposits", () => {
  it("draws two amounts of 1 to 99 cents, the offset their sum", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), (seed) => {
        let state = seed;
        const randomInt = (min: number, max: number) => {
          state = (state * 1103515245 + 12345) % 2 ** 31;
          return min + (state % (max - min));
        };
        const amounts = drawMicroDeposits(randomInt);
        for (const a of amounts) expect(a >= 1 && a <= 99 && Number.isInteger(a)).toBe(true);
        expect(microDepositOffset(amounts)).toBe(amounts[0] + amounts[1]);
      }),
    );
  });

  it("asks the random source for 1 to 99 inclusive", () => {
    const asked: Array<[number, number]> = [];
    drawMicroDeposits((min, max) => (asked.push([min, max]), min));
    expect(asked).toEqual([
      [1, 100],
      [1, 100],
    ]);
  });

  it("matches the amounts in either order, and nothing else", () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 99 })),
        fc.tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 99 })),
        (sent, typed) => {
          const same = (sent[0] === typed[0] && sent[1] === typed[1]) || (sent[0] === typed[1] && sent[1] === typed[0]);
          expect(microDepositsMatch(sent, typed)).toBe(same);
        },
      ),
    );
  });

  it("verifies on a match, counts a miss, and fails on the third miss", () => {
    const link = { status: "pending" as const, attempts: 0, amounts: [12, 34] as const };
    expect(confirmMicroDeposits(link, [34, 12])).toEqual({ outcome: "verified", attempts: 1 });
    expect(confirmMicroDeposits(link, [12, 35])).toEqual({ outcome: "wrong", attempts: 1, tries_left: 2 });
    expect(confirmMicroDeposits({ ...link, attempts: 1 }, [1, 2])).toEqual({
      outcome: "wrong",
      attempts: 2,
      tries_left: 1,
    });
    expect(confirmMicroDeposits({ ...link, attempts: 2 }, [1, 2])).toEqual({ outcome: "failed", attempts: 3 });
    // The third try can still be right.
    expect(confirmMicroDeposits({ ...link, attempts: 2 }, [12, 34])).toEqual({ outcome: "verified", attempts: 3 });
  });

  it("never confirms a link that is not pending, or has used its tries", () => {
    for (const status of ["verified", "failed", "removed"] as const)
      expect(confirmMicroDeposits({ status, attempts: 0, amounts: [1, 2] }, [1, 2])).toEqual({
        outcome: "not_pending",
      });
    expect(confirmMicroDeposits({ status: "pending", attempts: MICRO_DEPOSIT_TRIES, amounts: [1, 2] }, [1, 2])).toEqual(
      { outcome: "not_pending" },
    );
  });

  it("a run of confirmations verifies or fails within three tries, never more", () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 99 })),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 99 })), { maxLength: 6 }),
        (amounts, tries) => {
          let link: { status: "pending" | "verified" | "failed"; attempts: number; amounts: [number, number] } = {
            status: "pending",
            attempts: 0,
            amounts,
          };
          for (const typed of tries) {
            const answer = confirmMicroDeposits(link, typed);
            if (answer.outcome === "not_pending") continue;
            link = {
              ...link,
              attempts: answer.attempts,
              status: answer.outcome === "verified" ? "verified" : answer.outcome === "failed" ? "failed" : "pending",
            };
          }
          expect(link.attempts).toBeLessThanOrEqual(MICRO_DEPOSIT_TRIES);
          if (link.attempts === MICRO_DEPOSIT_TRIES) expect(link.status).not.toBe("pending");
        },
      ),
    );
  });

  it("reads an amount as typed, 1 to 99 cents", () => {
    expect(parseMicroDeposit("0.12")).toBe(12);
    expect(parseMicroDeposit("$0.07")).toBe(7);
    expect(parseMicroDeposit(".5")).toBe(50);
    expect(parseMicroDeposit(" 0.99 ")).toBe(99);
    for (const bad of ["", "0", "0.00", "1.00", "12", "0.123", "-0.12", "abc"])
      expect(parseMicroDeposit(bad)).toBeNull();
    expect(confirmDepositsSchema.safeParse({ first: "0.12", second: "x" }).error?.issues[0]?.message).toBe(M.amount);
  });

  it("only a verified link can be used", () => {
    expect(canUseLinkedAccount("verified")).toBe(true);
    for (const status of ["pending", "failed", "removed"] as const) expect(canUseLinkedAccount(status)).toBe(false);
  });
});

describe("the link form", () => {
  const ok = {
    routing_number: "021000021",
    account_number: "1234 5678 9",
    account_type: "checking",
    nickname: " Home ",
  };
  it("takes a routing number with a good check digit, an 8-17 digit account, a type and a nickname", () => {
    expect(linkAccountSchema.parse(ok)).toEqual({
      routing_number: "021000021",
      account_number: "123456789",
      account_type: "checking",
      nickname: "Home",
    });
  });
  it("says what is wrong next to the field", () => {
    const message = (over: Record<string, unknown>) =>
      linkAccountSchema.safeParse({ ...ok, ...over }).error?.issues.map((i) => [i.path[0], i.message]);
    expect(message({ routing_number: "021000022" })).toEqual([["routing_number", M.routing_number]]);
    expect(message({ account_number: "1234" })).toEqual([["account_number", M.account_number]]);
    expect(message({ account_type: "loan" })).toEqual([["account_type", M.account_type]]);
    expect(message({ nickname: "x".repeat(41) })).toEqual([["nickname", M.nickname]]);
    expect(message({ nickname: "  " })).toEqual([["nickname", M.missing]]);
  });
});

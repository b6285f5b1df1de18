import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  LINK_FAILING_RETURN_CODES,
  MONEY_IN_MESSAGES as M,
  authorizationText,
  limitRefusal,
  linkIdOfMicroEntry,
  moneyInReviewSchema,
  moneyInSchema,
  pullIdOf,
  pullIndividualId,
  remainingCents,
  returnFailsLink,
  returnedEntryWasDebit,
} from "~/domain/money-in";

/** Move money in's rules (docs/product.md#move-money-in). */
const LIMITS = { daily_max_cents: 500_000, monthly_max_cents: 2_000_000 };
const KEY = "0b7c8c2e-4a4e-4c1e-9d6a-2f0c1b2a3d4e";

describe("the limits per day and month", () => {
  it("a pull within what is left of both passes; over either is refused naming what is left", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 600_000 }),
        fc.integer({ min: 0, max: 2_100_000 }),
        fc.integer({ min: 1, max: 3_000_000 }),
        (today, month_extra, amount) => {
          const used = { today_cents: today, month_cents: today + month_extra };
          const left = remainingCents(LIMITS, used);
          const refused = limitRefusal(LIMITS, used, amount);
          expect(refused === null).toBe(amount <= left);
          if (refused) {
            const money = `$${(left / 100).toLocaleString("en-US", { minimumFractionDigits: 2 })}`;
            expect(refused.message).toContain(money);
          }
        },
      ),
    );
  });

  it("says which limit: the day's, or the month's when that is the tighter one", () => {
    expect(limitRefusal(LIMITS, { today_cents: 450_000, month_cents: 450_000 }, 60_000)).toMatchObject({
      limit: "daily",
      message: expect.stringContaining("$500.00 more today"),
    });
    expect(limitRefusal(LIMITS, { today_cents: 0, month_cents: 1_990_000 }, 20_000)).toMatchObject({
      limit: "monthly",
      message: expect.stringContaining("$100.00 more this month"),
    });
    expect(limitRefusal(LIMITS, { today_cents: 0, month_cents: 0 }, 500_000)).toBeNull();
  });
});

describe("the authorization's words (Nacha WEB)", () => {
  const parts = {
    institution_name: "Harborview Community Credit Union",
    member_name: "Ada Lovelace",
    amount_cents: 123_456,
    from: "Home (Chase Bank, checking ••6789)",
    to: "Checking ••••4321",
    date: "Dec 3, 2026",
  };
  it("names who, the amount, both accounts masked, the date, that it is a debit, and how to revoke it", () => {
    const text = authorizationText(parts);
    for (const words of [
      "I, Ada Lovelace, authorize Harborview Community Credit Union",
      "$1,234.56",
      "once",
      "Home (Chase Bank, checking ••6789)",
      "Checking ••••4321",
      "ACH debit",
      "Dec 3, 2026",
      "revoke",
    ])
      expect(text).toContain(words);
  });
  it("is the same words for the same pull: what is shown is what is stored", () => {
    expect(authorizationText(parts)).toBe(authorizationText({ ...parts }));
    expect(authorizationText(parts)).not.toBe(authorizationText({ ...parts, amount_cents: 123_457 }));
  });
});

describe("the form", () => {
  const form = { linked_account_id: "3", to_account_id: "7", amount: "25.50", idempotency_key: KEY };
  it("reads the amount in cents and the ids as numbers; the confirmation needs the box ticked", () => {
    expect(moneyInReviewSchema.parse(form)).toEqual({
      linked_account_id: 3,
      to_account_id: 7,
      amount_cents: 2_550,
      idempotency_key: KEY,
    });
    expect(moneyInSchema.safeParse(form).error?.issues.map((i) => i.message)).toEqual([M.agree]);
    expect(moneyInSchema.parse({ ...form, agree: "yes" })).toMatchObject({ amount_cents: 2_550 });
  });
  it("refuses an amount of zero or less, or malformed", () => {
    for (const amount of ["0", "0.00", "-1", "1.234", "abc", "1e3"])
      expect(moneyInReviewSchema.safeParse({ ...form, amount }).success, amount).toBe(false);
  });
});

describe("returns", () => {
  it("fail the link for an account that cannot be used or a debit its owner did not authorize; not for R01 or R09", () => {
    for (const code of ["R02", "R03", "R04", "R05", "R07", "R10", "R11", "R16", "R20", "R29", "R51"])
      expect(returnFailsLink(code), code).toBe(true);
    for (const code of ["R01", "R06", "R08", "R09", "R17", "R23"]) expect(returnFailsLink(code), code).toBe(false);
    expect(LINK_FAILING_RETURN_CODES.size).toBe(11);
  });
  it("a return's transaction code says whether the original was a debit (26, 36) or a credit (21, 31)", () => {
    expect(["26", "36"].map(returnedEntryWasDebit)).toEqual([true, true]);
    expect(["21", "31", "27", "22"].map(returnedEntryWasDebit)).toEqual([false, false, false, false]);
  });
  it("a pull's and a micro-entry's individual ids are read back, and nothing else is", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99_999_999 }), (id) => {
        expect(pullIdOf(pullIndividualId(id))).toBe(id);
        expect(linkIdOfMicroEntry(pullIndividualId(id))).toBeNull();
      }),
    );
    expect(linkIdOfMicroEntry("LA00000012")).toBe(12);
    expect(pullIdOf("MU00000012")).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  DEFAULT_CREDIT_MONITORING as policy,
  NAME_AGREEMENT,
  creditReviewReasons,
  holderNameScore,
  type CreditAccountFacts,
  type IncomingCredit,
} from "~/domain/ach-credit-monitoring";

/**
 * The rules of the monitoring of incoming ACH credits (docs/product.md#incoming-credits-to-review):
 * each rule alone, its threshold's edge, and properties that hold for any credit.
 */
const credit = (over: Partial<IncomingCredit> = {}): IncomingCredit => ({
  individual_name: "JORDAN MORGAN",
  amount_cents: 250_000,
  originator: "1111111111",
  originator_name: "ACME PAYROLL",
  ...over,
});
const facts = (over: Partial<CreditAccountFacts> = {}): CreditAccountFacts => ({
  holder_names: ["Jordan Morgan"],
  opened_on: "2026-01-05",
  today: "2026-11-25",
  had_large_credit: false,
  originators_today: [],
  last_change_on: null,
  unfrozen_on: null,
  ...over,
});
const rules = (c: IncomingCredit, f: CreditAccountFacts) => creditReviewReasons(c, f, policy).map((r) => r.rule);

describe("name on the entry against the account holders", () => {
  it("agrees in either order, with a middle name or initial, a near spelling, or a joint owner's name", () => {
    for (const name of ["JORDAN MORGAN", "MORGAN JORDAN", "JORDAN A MORGAN", "JORDON MORGAN", "J MORGAN", "MORGAN"])
      expect(rules(credit({ individual_name: name }), facts()), name).toEqual([]);
    expect(
      rules(credit({ individual_name: "RILEY MORGAN" }), facts({ holder_names: ["Jordan Morgan", "Riley Morgan"] })),
    ).toEqual([]);
  });

  it("another person's name is held from the review amount; below it, or with no name, it is not looked at", () => {
    expect(rules(credit({ individual_name: "CHRIS BLAKE" }), facts())).toEqual(["name_mismatch"]);
    expect(rules(credit({ individual_name: "CHRIS BLAKE", amount_cents: policy.review_min_cents }), facts())).toEqual([
      "name_mismatch",
    ]);
    expect(
      rules(credit({ individual_name: "CHRIS BLAKE", amount_cents: policy.review_min_cents - 1 }), facts()),
    ).toEqual([]);
    expect(rules(credit({ individual_name: "   " }), facts())).toEqual([]);
    const [reason] = creditReviewReasons(credit({ individual_name: "CHRIS BLAKE" }), facts(), policy);
    expect(reason!.detail).toMatch(
      /^The name on the entry, CHRIS BLAKE, is not the account holder's \(closest \d+ %\)\.$/,
    );
  });

  it("a name scores 1 against itself, whatever its case", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z]{2,12} [A-Za-z]{2,12}$/), (name) => {
        expect(holderNameScore(name.toUpperCase(), [name])).toBeGreaterThanOrEqual(NAME_AGREEMENT);
      }),
    );
  });
});

describe("a new account's first large credit", () => {
  it("is held under 30 days from the large amount, once", () => {
    const young = facts({ opened_on: "2026-11-10" });
    expect(rules(credit({ amount_cents: 500_000 }), young)).toEqual(["new_account"]);
    expect(rules(credit({ amount_cents: 499_999 }), young)).toEqual([]);
    expect(rules(credit({ amount_cents: 500_000 }), { ...young, had_large_credit: true })).toEqual([]);
    expect(rules(credit({ amount_cents: 500_000 }), facts({ opened_on: "2026-10-26" }))).toEqual([]);
    expect(rules(credit({ amount_cents: 500_000 }), facts({ opened_on: "2026-10-27" }))).toEqual(["new_account"]);
  });
});

describe("velocity: different originators in a business day", () => {
  it("the third different originator is held; the same originators again are not counted twice", () => {
    expect(rules(credit({ amount_cents: 100 }), facts({ originators_today: ["A"] }))).toEqual([]);
    expect(rules(credit({ amount_cents: 100 }), facts({ originators_today: ["A", "B"] }))).toEqual(["velocity"]);
    expect(
      rules(credit({ amount_cents: 100, originator: "A" }), facts({ originators_today: ["A", "B", "B"] })),
    ).toEqual([]);
  });
});

describe("a recent change or unfreeze", () => {
  it("within 14 days and from the review amount", () => {
    expect(rules(credit(), facts({ unfrozen_on: "2026-11-20" }))).toEqual(["recently_unfrozen"]);
    expect(rules(credit(), facts({ last_change_on: "2026-11-12" }))).toEqual(["recent_change"]);
    expect(rules(credit(), facts({ last_change_on: "2026-11-11" }))).toEqual([]);
    expect(rules(credit({ amount_cents: 99_999 }), facts({ last_change_on: "2026-11-24" }))).toEqual([]);
  });
});

describe("properties", () => {
  const arbitraryFacts = fc.record({
    holder_names: fc.constant(["Jordan Morgan"]),
    opened_on: fc.constantFrom("2026-01-05", "2026-11-20"),
    today: fc.constant("2026-11-25"),
    had_large_credit: fc.boolean(),
    originators_today: fc.array(fc.constantFrom("A", "B", "C", "D"), { maxLength: 5 }),
    last_change_on: fc.constantFrom(null, "2026-11-24", "2026-01-01"),
    unfrozen_on: fc.constantFrom(null, "2026-11-24", "2026-01-01"),
  });

  it("a larger amount never lifts a hold, except velocity, which ignores the amount", () => {
    fc.assert(
      fc.property(
        arbitraryFacts,
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.constantFrom("JORDAN MORGAN", "CHRIS BLAKE"),
        (f, amount, more, name) => {
          const small = new Set(rules(credit({ amount_cents: amount, individual_name: name }), f));
          const large = new Set(rules(credit({ amount_cents: amount + more, individual_name: name }), f));
          for (const rule of small) expect(large.has(rule), rule).toBe(true);
        },
      ),
    );
  });

  it("each rule appears at most once, in a fixed order, each with its detail", () => {
    const order = ["name_mismatch", "new_account", "velocity", "recently_unfrozen", "recent_change"];
    fc.assert(
      fc.property(arbitraryFacts, fc.integer({ min: 1, max: 10_000_000 }), (f, amount) => {
        const reasons = creditReviewReasons(
          credit({ amount_cents: amount, individual_name: "CHRIS BLAKE" }),
          f,
          policy,
        );
        const indexes = reasons.map((r) => order.indexOf(r.rule));
        expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
        expect(new Set(indexes).size).toBe(indexes.length);
        for (const r of reasons) expect(r.detail.length).toBeGreaterThan(10);
      }),
    );
  });
});

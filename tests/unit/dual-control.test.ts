import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dualControlDecision, dualControlReasonsText, type DualControlLimits } from "~/domain/dual-control";
import { parseInstitution } from "~/config/institution.server";
import { demoInstitution } from "~/config/demo-institution";

/**
 * The one dual-control rule of staff credits (app/domain/dual-control.ts,
 * docs/security.md#dual-control): per posting, per request, per member over 24 hours and per
 * staff member over the business day, each strict ("above").
 */
const LIMITS: DualControlLimits = {
  posting_above_cents: 1_000_000,
  request_above_cents: 1_000_000,
  member_24h_above_cents: 1_000_000,
  business_day_above_cents: 5_000_000,
};
const decide = (credits_cents: number[], member_24h_cents = 0, business_day_cents = 0) =>
  dualControlDecision({ credits_cents, member_24h_cents, business_day_cents, limits: LIMITS });

describe("the dual-control rule", () => {
  it("posts at or under every limit, and waits one cent above the posting limit", () => {
    expect(decide([1_000_000])).toEqual({ decision: "post", credit_cents: 1_000_000 });
    // The 24-hour total it passes on its own is not said again beside "above $10,000.00".
    expect(decide([1_000_001])).toEqual({
      decision: "wait",
      credit_cents: 1_000_001,
      reasons: [{ code: "posting", amount_cents: 1_000_001, limit_cents: 1_000_000 }],
    });
    // With an earlier credit to the member, the total is said too.
    expect(decide([1_000_001], 1)).toMatchObject({
      decision: "wait",
      reasons: [{ code: "posting" }, { code: "member_24h", amount_cents: 1_000_002 }],
    });
  });

  it("a $50,000.00 row waits whatever else the file holds, and says so", () => {
    const decision = decide([5_000_000, 100]);
    expect(decision.decision).toBe("wait");
    if (decision.decision !== "wait") return;
    expect(dualControlReasonsText(decision.reasons, "file")).toBe(
      "a row credits $50,000.00, above $10,000.00 per row; the file credits $50,001.00 in all, above $10,000.00",
    );
  });

  it("a file of small rows waits when their total passes the file limit", () => {
    const rows = Array.from({ length: 11 }, () => 100_000);
    const decision = decide(rows);
    expect(decision).toMatchObject({ decision: "wait", credit_cents: 1_100_000 });
    if (decision.decision === "wait") expect(decision.reasons.map((r) => r.code)).toEqual(["request"]);
    expect(decide(rows.slice(1))).toEqual({ decision: "post", credit_cents: 1_000_000 });
  });

  it("splitting: a second $10,000.00 to the same member within 24 hours waits", () => {
    expect(decide([1_000_000], 0)).toMatchObject({ decision: "post" });
    const second = decide([1_000_000], 1_000_000);
    expect(second).toEqual({
      decision: "wait",
      credit_cents: 1_000_000,
      reasons: [{ code: "member_24h", amount_cents: 2_000_000, limit_cents: 1_000_000 }],
    });
    if (second.decision === "wait")
      expect(dualControlReasonsText(second.reasons, "adjustment")).toBe(
        "it would bring what you credited to this member in 24 hours to $20,000.00, above $10,000.00",
      );
  });

  it("the business day for all members has its own limit", () => {
    expect(decide([500_000], 0, 4_500_000)).toMatchObject({ decision: "post" });
    expect(decide([500_001], 0, 4_500_000)).toEqual({
      decision: "wait",
      credit_cents: 500_001,
      reasons: [{ code: "business_day", amount_cents: 5_000_001, limit_cents: 5_000_000 }],
    });
  });

  it("debits are not counted: a request with no credit posts", () => {
    expect(decide([], 9_999_999, 9_999_999)).toEqual({ decision: "post", credit_cents: 0 });
  });

  it("refuses amounts that are not whole positive cents", () => {
    expect(() => decide([0])).toThrow(RangeError);
    expect(() => decide([-5])).toThrow(RangeError);
    expect(() => decide([1.5])).toThrow(RangeError);
  });

  it("property: it waits exactly when one of the four limits is passed, and waiting never turns into posting with more", () => {
    const limits = fc.record({
      posting_above_cents: fc.integer({ min: 1, max: 2_000_000 }),
      request_above_cents: fc.integer({ min: 1, max: 4_000_000 }),
      member_24h_above_cents: fc.integer({ min: 1, max: 4_000_000 }),
      business_day_above_cents: fc.integer({ min: 1, max: 8_000_000 }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 3_000_000 }), { minLength: 1, maxLength: 30 }),
        fc.nat(5_000_000),
        fc.nat(10_000_000),
        limits,
        fc.integer({ min: 1, max: 3_000_000 }),
        (credits, member, day, l, extra) => {
          const total = credits.reduce((a, b) => a + b, 0);
          const expected =
            Math.max(...credits) > l.posting_above_cents ||
            (credits.length > 1 && total > l.request_above_cents) ||
            member + total > l.member_24h_above_cents ||
            day + total > l.business_day_above_cents;
          const decision = dualControlDecision({
            credits_cents: credits,
            member_24h_cents: member,
            business_day_cents: day,
            limits: l,
          });
          expect(decision.decision === "wait").toBe(expected);
          // A request that waits always says at least one reason.
          if (decision.decision === "wait") expect(decision.reasons.length).toBeGreaterThan(0);
          expect(decision.credit_cents).toBe(total);
          // Adding a credit, or having credited more already, never lets a waiting request post.
          if (expected) {
            expect(
              dualControlDecision({
                credits_cents: [...credits, extra],
                member_24h_cents: member,
                business_day_cents: day,
                limits: l,
              }).decision,
            ).toBe("wait");
            expect(
              dualControlDecision({
                credits_cents: credits,
                member_24h_cents: member + extra,
                business_day_cents: day + extra,
                limits: l,
              }).decision,
            ).toBe("wait");
          }
        },
      ),
    );
  });
});

describe("the profile's dual-control limits", () => {
  it("have defaults, and a total below one posting's amount is refused", () => {
    const {
      staff_credit_request_above_cents: _a,
      staff_credit_member_24h_above_cents: _b,
      staff_credit_business_day_above_cents: _c,
      ...older
    } = demoInstitution.limits;
    const profile = parseInstitution({ ...demoInstitution, limits: older }, "older.json");
    expect(profile.limits).toMatchObject({
      staff_credit_request_above_cents: 1_000_000,
      staff_credit_member_24h_above_cents: 1_000_000,
      staff_credit_business_day_above_cents: 5_000_000,
    });
    expect(() =>
      parseInstitution(
        { ...demoInstitution, limits: { ...demoInstitution.limits, staff_credit_member_24h_above_cents: 999_999 } },
        "x",
      ),
    ).toThrow(/limits.staff_credit_member_24h_above_cents/);
    expect(() =>
      parseInstitution(
        { ...demoInstitution, limits: { ...demoInstitution.limits, staff_credit_business_day_above_cents: 500_000 } },
        "x",
      ),
    ).toThrow(/limits.staff_credit_business_day_above_cents/);
    expect(() =>
      parseInstitution(
        { ...demoInstitution, limits: { ...demoInstitution.limits, staff_credit_request_above_cents: 0 } },
        "x",
      ),
    ).toThrow(/limits.staff_credit_request_above_cents/);
  });
});

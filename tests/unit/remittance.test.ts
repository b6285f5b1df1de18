import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  CANCEL_WINDOW_PASSED,
  cancelDeadline,
  rateText,
  remittanceFigures,
  withinCancelWindow,
  type RemittanceInput,
} from "~/domain/remittance";
import { usdCentsForForeignAmount } from "~/domain/currencies";
import { businessDaysBetween, isBusinessDay } from "~/domain/payment-dates";

const base: RemittanceInput = {
  amount_minor: 100_000,
  currency: "EUR",
  usd_per_unit: "1.08375",
  fee_cents: 4_500,
  third_party_fee_minor: 0,
  business_date: "2026-12-02",
  availability_business_days: 2,
};

describe("remittanceFigures (12 CFR 1005.31(b)(1))", () => {
  it("states the transfer amount, fee, taxes (0), total, rate, amount received and date of availability", () => {
    expect(remittanceFigures(base)).toEqual({
      currency: "EUR",
      transfer_amount_cents: 108_375,
      fee_cents: 4_500,
      taxes_cents: 0,
      total_cents: 112_875,
      usd_per_unit: "1.08375",
      sent_minor: 100_000,
      third_party_fee_minor: 0,
      received_minor: 100_000,
      available_on: "2026-12-04",
    });
    expect(rateText(remittanceFigures(base))).toBe("1 EUR = 1.08375 USD");
  });

  it("rounds the US dollar amount half up to the cent, and nothing else", () => {
    // 0.05 EUR at 1.1 = 5.5 cents: half up to 6.
    expect(remittanceFigures({ ...base, amount_minor: 5, usd_per_unit: "1.1" }).transfer_amount_cents).toBe(6);
    // Yen have no minor units: 1,000 JPY at 0.006712 = 671.2 cents, 671.
    expect(
      remittanceFigures({ ...base, currency: "JPY", amount_minor: 1_000, usd_per_unit: "0.006712" })
        .transfer_amount_cents,
    ).toBe(671);
  });

  it("takes declared covered third-party fees off what the recipient receives, never below 0", () => {
    const f = remittanceFigures({ ...base, third_party_fee_minor: 1_500 });
    expect(f).toMatchObject({ third_party_fee_minor: 1_500, received_minor: 98_500, total_cents: 112_875 });
    expect(remittanceFigures({ ...base, amount_minor: 100, third_party_fee_minor: 1_500 })).toMatchObject({
      third_party_fee_minor: 100,
      received_minor: 0,
    });
  });

  it("counts the date of availability in business days: over a weekend and a Federal Reserve holiday", () => {
    // Wednesday 23 December 2026 + 2 business days: Thursday 24, then Monday 28 (Christmas on Friday).
    expect(remittanceFigures({ ...base, business_date: "2026-12-23" }).available_on).toBe("2026-12-28");
    // Paid on a Saturday: 1 business day is the Monday.
    expect(
      remittanceFigures({ ...base, business_date: "2026-12-05", availability_business_days: 1 }).available_on,
    ).toBe("2026-12-07");
  });

  it("refuses figures it cannot state: no currency, a non-whole or non-positive amount, a negative fee", () => {
    expect(() => remittanceFigures({ ...base, currency: "XXX" })).toThrow(RangeError);
    expect(() => remittanceFigures({ ...base, amount_minor: 0 })).toThrow(RangeError);
    expect(() => remittanceFigures({ ...base, amount_minor: 1.5 })).toThrow(RangeError);
    expect(() => remittanceFigures({ ...base, fee_cents: -1 })).toThrow(RangeError);
    expect(() => remittanceFigures({ ...base, third_party_fee_minor: -1 })).toThrow(RangeError);
  });

  const inputs = fc.record({
    amount_minor: fc.integer({ min: 1, max: 1_000_000_000 }),
    currency: fc.constantFrom("EUR", "JPY", "BHD", "MXN", "GBP"),
    usd_per_unit: fc
      .tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 999_999 }))
      .filter(([w, f]) => w > 0 || f > 0)
      .map(([w, f]) => `${w}.${String(f).padStart(6, "0")}`),
    fee_cents: fc.integer({ min: 0, max: 100_000 }),
    third_party_fee_minor: fc.integer({ min: 0, max: 1_000_000 }),
    business_date: fc
      .date({ min: new Date("2024-01-01T00:00:00Z"), max: new Date("2030-12-31T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
    availability_business_days: fc.integer({ min: 0, max: 10 }),
  });

  it("property: whole numbers; total = amount + fee + taxes; received + third-party fees = sent; the amount is the exact conversion", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const f = remittanceFigures(input);
        for (const n of [
          f.transfer_amount_cents,
          f.fee_cents,
          f.total_cents,
          f.received_minor,
          f.third_party_fee_minor,
        ])
          expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
        expect(f.total_cents).toBe(f.transfer_amount_cents + f.fee_cents + f.taxes_cents);
        expect(f.received_minor + f.third_party_fee_minor).toBe(f.sent_minor);
        const minor = { EUR: 2, JPY: 0, BHD: 3, MXN: 2, GBP: 2 }[input.currency]!;
        expect(f.transfer_amount_cents).toBe(usdCentsForForeignAmount(input.amount_minor, minor, input.usd_per_unit));
      }),
      { numRuns: 300 },
    );
  });

  it("property: the date of availability is a business day exactly N business days on (a business day itself when N > 0)", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const f = remittanceFigures(input);
        expect(businessDaysBetween(input.business_date, f.available_on)).toBe(input.availability_business_days);
        if (input.availability_business_days > 0) expect(isBusinessDay(f.available_on)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("property: a larger amount never costs less (monotonic)", () => {
    fc.assert(
      fc.property(inputs, fc.integer({ min: 1, max: 1_000_000 }), (input, more) => {
        const a = remittanceFigures(input);
        const b = remittanceFigures({ ...input, amount_minor: input.amount_minor + more });
        expect(b.total_cents).toBeGreaterThanOrEqual(a.total_cents);
      }),
      { numRuns: 200 },
    );
  });
});

describe("the 30-minute cancellation window (12 CFR 1005.34)", () => {
  it("ends 30 minutes after paying, the deadline itself included", () => {
    const paid = new Date("2026-12-02T15:00:00Z");
    const until = cancelDeadline(paid);
    expect(until.toISOString()).toBe("2026-12-02T15:30:00.000Z");
    expect(withinCancelWindow(until, paid)).toBe(true);
    expect(withinCancelWindow(until, until)).toBe(true);
    expect(withinCancelWindow(until, new Date(until.getTime() + 1))).toBe(false);
    expect(CANCEL_WINDOW_PASSED).toMatch(/30 minutes/);
  });
});

import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { z } from "zod";
import {
  BILL_PAY_MESSAGES,
  billPaySchema,
  editBillPaymentSchema,
  maskPayeeAccount,
  parsePayeeChoice,
  payeeSchema,
} from "~/domain/bill-pay";
import {
  addDays,
  addMonthsClamped,
  describeSeries,
  isIsoDate,
  seriesHasPayment,
  seriesPaymentDate,
  type SeriesRule,
} from "~/domain/schedule";
import { isBusinessDay } from "~/domain/payment-dates";

/** Bill Pay's form, payee and recurrence rules (docs/product.md#bill-pay), without I/O. */
const KEY = "3f1c9a52-7d4e-4b8a-9c2f-0a1b2c3d4e5f";

function messages(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
}

function fieldMessages(schema: z.ZodType, input: unknown): Record<string, string> {
  const result = schema.safeParse(input);
  if (result.success) return {};
  return Object.fromEntries(result.error.issues.map((issue) => [issue.path.join("."), issue.message]));
}

// Friday 2026-02-27; Monday 2026-03-02 is the first business day after it.
const today = "2026-02-27";
const schema = billPaySchema(today);
const valid = {
  payee: "payee:12",
  payee_account_number: "",
  from_account_id: "7",
  amount: "82.10",
  payment_date: "2026-03-02",
  idempotency_key: KEY,
};

describe("the Bill Pay form", () => {
  it("parses a one-off payment to a saved payee, account number and memo optional", () => {
    expect(schema.parse(valid)).toEqual({
      payee: "payee:12",
      payee_account_number: undefined,
      from_account_id: 7,
      amount_cents: 8_210,
      payment_date: "2026-03-02",
      memo: undefined,
      idempotency_key: KEY,
      recurrence: null,
    });
    expect(schema.parse({ ...valid, memo: " March " }).memo).toBe("March");
  });

  it("a quick pick needs the account number at the payee: letters, digits, spaces and dashes", () => {
    expect(fieldMessages(schema, { ...valid, payee: "pick:3" })).toEqual({
      payee_account_number: BILL_PAY_MESSAGES.missing,
    });
    expect(schema.parse({ ...valid, payee: "pick:3", payee_account_number: "ACCT-1234 56" }).payee_account_number).toBe(
      "ACCT-1234 56",
    );
    for (const bad of ["12/34", "-123", "ab_c", "12.5"]) {
      expect(fieldMessages(schema, { ...valid, payee: "pick:0", payee_account_number: bad }), bad).toEqual({
        payee_account_number: BILL_PAY_MESSAGES.payee_account_number,
      });
    }
  });

  it("a payee is a saved one or one of the six quick picks, never a typed name", () => {
    for (const payee of ["City Power", "pick:6", "payee:0", "payee:-1", "payee:abc"])
      expect(messages(schema, { ...valid, payee }), payee).toEqual([BILL_PAY_MESSAGES.payee]);
    expect(parsePayeeChoice("pick:5")).toEqual({ kind: "quick_pick", index: 5 });
    expect(parsePayeeChoice("payee:42")).toEqual({ kind: "saved", payee_id: 42 });
  });

  it.each(["payee", "from_account_id", "amount", "payment_date"])(
    "says 'Please fill in all required fields' without %s",
    (field) => {
      expect(messages(schema, { ...valid, [field]: "" })).toEqual(["Please fill in all required fields"]);
    },
  );

  it("needs an amount above zero", () => {
    for (const amount of ["0", "0.00", "-1", "1.001", "abc"])
      expect(messages(schema, { ...valid, amount }), amount).toEqual(["Please enter a valid amount"]);
  });

  it("pays on a business day from tomorrow to a year ahead", () => {
    expect(messages(schema, { ...valid, payment_date: "2027-02-26" })).toEqual([]);
    for (const payment_date of ["2026-02-27", "2026-02-26", "2025-12-31"])
      expect(messages(schema, { ...valid, payment_date }), payment_date).toEqual([
        BILL_PAY_MESSAGES.payment_date_early,
      ]);
    // Saturday and Sunday.
    for (const payment_date of ["2026-02-28", "2026-03-01"])
      expect(messages(schema, { ...valid, payment_date }), payment_date).toEqual([
        BILL_PAY_MESSAGES.payment_date_business_day,
      ]);
    expect(messages(schema, { ...valid, payment_date: "2027-03-01" })).toEqual([BILL_PAY_MESSAGES.payment_date_late]);
    for (const payment_date of ["2026-02-30", "2026-13-01", "02/03/2026", "2026-3-2"])
      expect(messages(schema, { ...valid, payment_date }), payment_date).toEqual([BILL_PAY_MESSAGES.payment_date]);
    expect(() => billPaySchema("tomorrow")).toThrow(RangeError);
  });

  it("the earliest date is tomorrow for any today, and a weekend day is never accepted", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3650 }), fc.integer({ min: -5, max: 400 }), (start, offset) => {
        const day = addDays("2025-01-01", start);
        const date = addDays(day, offset);
        const ok = messages(billPaySchema(day), { ...valid, payment_date: date }).length === 0;
        expect(ok).toBe(offset >= 1 && offset <= 365 && isBusinessDay(date));
      }),
    );
  });
});

describe("recurring payments", () => {
  const monthly = { ...valid, frequency: "monthly", ends: "count", payment_count: "12" };

  it("monthly for a number of payments, or every N weeks until a date", () => {
    expect(schema.parse(monthly).recurrence).toEqual({
      frequency: "monthly",
      interval_weeks: null,
      first_date: "2026-03-02",
      end_date: null,
      payment_count: 12,
    });
    expect(
      schema.parse({ ...valid, frequency: "weeks", every_weeks: "2", ends: "date", end_date: "2026-06-30" }).recurrence,
    ).toEqual({
      frequency: "weeks",
      interval_weeks: 2,
      first_date: "2026-03-02",
      end_date: "2026-06-30",
      payment_count: null,
    });
  });

  it("refuses no end, a count of 0, an end before the first payment, and weeks out of range, each next to its field", () => {
    expect(fieldMessages(schema, { ...monthly, ends: "" })).toEqual({ ends: BILL_PAY_MESSAGES.ends });
    expect(fieldMessages(schema, { ...monthly, ends: "never" })).toEqual({ ends: BILL_PAY_MESSAGES.ends });
    for (const payment_count of ["0", "", "121", "-1", "2.5", "x"])
      expect(fieldMessages(schema, { ...monthly, payment_count }), payment_count).toEqual({
        payment_count: BILL_PAY_MESSAGES.payment_count,
      });
    expect(fieldMessages(schema, { ...monthly, ends: "date", end_date: "2026-03-01" })).toEqual({
      end_date: BILL_PAY_MESSAGES.end_date,
    });
    expect(fieldMessages(schema, { ...monthly, ends: "date", end_date: "2026-02-30" })).toEqual({
      end_date: BILL_PAY_MESSAGES.end_date,
    });
    expect(fieldMessages(schema, { ...monthly, ends: "date", end_date: "2032-01-01" })).toEqual({
      end_date: BILL_PAY_MESSAGES.end_date_late,
    });
    for (const every_weeks of ["0", "53", "", "x"])
      expect(fieldMessages(schema, { ...monthly, frequency: "weeks", every_weeks }), every_weeks).toEqual({
        every_weeks: BILL_PAY_MESSAGES.every_weeks,
      });
    expect(fieldMessages(schema, { ...monthly, frequency: "yearly" })).toEqual({
      frequency: BILL_PAY_MESSAGES.frequency,
    });
  });

  it("monthly keeps the first payment's day, or the month's last, and moves a weekend to Monday", () => {
    const rule: SeriesRule = {
      frequency: "monthly",
      interval_weeks: null,
      first_date: "2026-01-30",
      end_date: null,
      payment_count: 4,
    };
    expect([1, 2, 3, 4].map((n) => seriesPaymentDate(rule, n))).toEqual([
      "2026-01-30",
      "2026-03-02",
      "2026-03-30",
      "2026-04-30",
    ]);
    expect(addMonthsClamped("2026-01-31", 1)).toBe("2026-02-28");
    expect(addMonthsClamped("2028-01-31", 1)).toBe("2028-02-29");
    expect(addMonthsClamped("2026-12-15", 1)).toBe("2027-01-15");
    expect(seriesHasPayment(rule, 4)).toBe(true);
    expect(seriesHasPayment(rule, 5)).toBe(false);
  });

  it("every N weeks until a date: no payment after the last date", () => {
    const rule: SeriesRule = {
      frequency: "weeks",
      interval_weeks: 2,
      first_date: "2026-03-02",
      end_date: "2026-03-30",
      payment_count: null,
    };
    expect([1, 2, 3].map((n) => seriesPaymentDate(rule, n))).toEqual(["2026-03-02", "2026-03-16", "2026-03-30"]);
    expect(seriesHasPayment(rule, 3)).toBe(true);
    expect(seriesHasPayment(rule, 4)).toBe(false);
    expect(describeSeries(rule)).toBe("Every 2 weeks until 2026-03-30");
    expect(describeSeries({ frequency: "monthly", interval_weeks: null, end_date: null, payment_count: 1 })).toBe(
      "Monthly, 1 payment",
    );
  });

  it("a series' dates are business days, strictly increasing, never before the first, and end where the rule says", () => {
    const businessDay = fc
      .integer({ min: 0, max: 4000 })
      .map((n) => addDays("2025-01-06", n))
      .filter(isBusinessDay);
    fc.assert(
      fc.property(
        businessDay,
        fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 52 })),
        fc.integer({ min: 1, max: 40 }),
        (first_date, weeks, count) => {
          const rule: SeriesRule = {
            frequency: weeks === null ? "monthly" : "weeks",
            interval_weeks: weeks,
            first_date,
            end_date: null,
            payment_count: count,
          };
          const dates = Array.from({ length: count }, (_, i) => seriesPaymentDate(rule, i + 1));
          expect(dates[0]).toBe(first_date);
          for (let i = 0; i < dates.length; i++) {
            expect(isBusinessDay(dates[i]!)).toBe(true);
            if (i > 0) expect(dates[i]! > dates[i - 1]!).toBe(true);
            // Moved only past a weekend and a holiday next to it.
            const nominal = weeks === null ? addMonthsClamped(first_date, i) : addDays(first_date, 7 * weeks * i);
            expect(dates[i]! >= nominal && dates[i]! <= addDays(nominal, 4)).toBe(true);
          }
          expect(seriesHasPayment(rule, count)).toBe(true);
          expect(seriesHasPayment(rule, count + 1)).toBe(false);
          // The same series ending on its last payment's date has exactly as many.
          const byDate: SeriesRule = { ...rule, payment_count: null, end_date: dates[dates.length - 1]! };
          expect(seriesHasPayment(byDate, count)).toBe(true);
          expect(seriesHasPayment(byDate, count + 1)).toBe(false);
        },
      ),
    );
  });
});

describe("payees and edits", () => {
  it("a payee: name and account number required, address optional; the number masked to its last four", () => {
    expect(payeeSchema.parse({ name: " City Power ", account_number: "ACCT-1234 56", address: "" })).toEqual({
      name: "City Power",
      account_number: "ACCT-1234 56",
      address: undefined,
    });
    expect(messages(payeeSchema, { name: "", account_number: "1", address: "" })).toEqual([BILL_PAY_MESSAGES.missing]);
    expect(messages(payeeSchema, { name: "City", account_number: "12#4" })).toEqual([
      BILL_PAY_MESSAGES.payee_account_number,
    ]);
    expect(maskPayeeAccount("ACCT-1234 56")).toBe("••3456");
  });

  it("an edit: amount, a business-day date from tomorrow, memo", () => {
    const edit = editBillPaymentSchema(today);
    expect(
      edit.parse({ payment_id: "5", amount: "10", payment_date: "2026-03-03", memo: "", idempotency_key: KEY }),
    ).toEqual({ payment_id: 5, amount_cents: 1000, payment_date: "2026-03-03", memo: undefined, idempotency_key: KEY });
    expect(messages(edit, { payment_id: "5", amount: "10", payment_date: "2026-02-27", idempotency_key: KEY })).toEqual(
      [BILL_PAY_MESSAGES.payment_date_early],
    );
    expect(messages(edit, { payment_id: "x", amount: "10", payment_date: "2026-03-03", idempotency_key: KEY })).toEqual(
      [BILL_PAY_MESSAGES.payment],
    );
  });

  it("knows month ends and leap years", () => {
    expect(addDays("2026-02-28", 1)).toBe("2026-03-01");
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(isIsoDate("2028-02-29")).toBe(true);
    expect(isIsoDate("2026-02-29")).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { billingDay, lineStatementFigures } from "~/domain/loans/line-statement";
import type { LoanLedgerLine } from "~/domain/loans/statement";
import { addCalendarDays } from "~/domain/payment-dates";

/**
 * A line of credit's periodic statement figures (docs/product.md#line-statements, Regulation Z
 * 1026.7(b)): the cycle's previous balance, transactions, draws, payments, interest and fees, the
 * new balance (previous + draws + interest + fees - payments, to the cent), the year's interest
 * and fees, the average daily balance; interest posted on the closing date belongs to the cycle,
 * anything else dated then to the next.
 */

let id = 0;
const line = (
  effective_date: string,
  kind: string,
  parts: Partial<Pick<LoanLedgerLine, "principal_cents" | "interest_cents" | "fees_cents">>,
  description = kind,
): LoanLedgerLine => ({
  transaction_id: ++id,
  effective_date,
  kind,
  description,
  principal_cents: parts.principal_cents ?? 0,
  interest_cents: parts.interest_cents ?? 0,
  fees_cents: parts.fees_cents ?? 0,
});

/** One APR all along: 12.5% since before any of these cycles. */
const AT_12_5 = [{ from: "2025-01-01", rate_ppm: 125_000 }];

/** Opened 10 March; drew $1,000 on the 10th, nightly interest; the cycle closes 10 April. */
function history(): LoanLedgerLine[] {
  const lines = [line("2026-03-10", "loan_draw", { principal_cents: 1_000_00 }, "Line LC-000001: draw")];
  for (let day = "2026-03-11"; day <= "2026-04-10"; day = addCalendarDays(day, 1))
    lines.push(line(day, "loan_interest", { interest_cents: 34 }));
  return lines;
}

describe("a line of credit's periodic statement", () => {
  it("takes the first cycle from the opening day to the day before the close, the close's interest in it", () => {
    const f = lineStatementFigures({ start: "2026-03-10", closed_on: "2026-04-10" }, history(), AT_12_5);
    expect(f.period).toEqual({ start: "2026-03-10", last_day: "2026-04-09", closed_on: "2026-04-10", days: 31 });
    expect(f.previous_balance_cents).toBe(0);
    expect(f.draws_cents).toBe(1_000_00);
    expect(f.interest_cents).toBe(31 * 34);
    expect(f.fees_cents).toBe(0);
    expect(f.payments_cents).toBe(0);
    expect(f.new_balance).toEqual({
      principal_cents: 1_000_00,
      interest_cents: 31 * 34,
      fees_cents: 0,
      total_cents: 1_000_00 + 31 * 34,
    });
    expect(f.average_daily_balance_cents).toBe(1_000_00);
    // The nights' interest is one line after the draw, dated from its first posting to its last.
    expect(f.lines.map((l) => [l.effective_date, l.description, l.amount_cents, l.balance_cents])).toEqual([
      ["2026-03-10", "Line LC-000001: draw", 1_000_00, 1_000_00],
      ["2026-03-11", "Interest charged, posted 2026-03-11 to 2026-04-10", 31 * 34, 1_000_00 + 31 * 34],
    ]);
  });

  it("puts a payment, a late fee and a draw dated the closing date in the next cycle", () => {
    const lines = [
      ...history(),
      line("2026-04-10", "loan_draw", { principal_cents: 500_00 }, "Line LC-000001: draw"),
      line("2026-04-11", "loan_interest", { interest_cents: 51 }),
      line(
        "2026-04-20",
        "loan_payment",
        { interest_cents: -(31 * 34 + 51 * 10), principal_cents: -(50_00 - 31 * 34 - 51 * 10) },
        "payment",
      ),
      line("2026-05-09", "loan_fee", { fees_cents: 25_00 }, "late fee"),
    ];
    for (let day = "2026-04-12"; day <= "2026-05-10"; day = addCalendarDays(day, 1))
      lines.push(line(day, "loan_interest", { interest_cents: 51 }));
    lines.sort((a, b) =>
      a.effective_date === b.effective_date
        ? a.transaction_id - b.transaction_id
        : a.effective_date < b.effective_date
          ? -1
          : 1,
    );
    const first = lineStatementFigures({ start: "2026-03-10", closed_on: "2026-04-10" }, lines, AT_12_5);
    expect(first.new_balance.total_cents).toBe(1_000_00 + 31 * 34);
    const second = lineStatementFigures({ start: "2026-04-10", closed_on: "2026-05-10" }, lines, AT_12_5);
    expect(second.previous_balance_cents).toBe(first.new_balance.total_cents);
    expect(second.draws_cents).toBe(500_00);
    expect(second.fees_cents).toBe(25_00);
    expect(second.payments_cents).toBe(50_00);
    expect(second.interest_cents).toBe(30 * 51);
    expect(second.lines[0]).toMatchObject({ effective_date: "2026-04-10", amount_cents: 500_00 });
    const payment = second.lines.find((l) => l.paid);
    expect(payment?.paid).toEqual({
      interest_cents: 31 * 34 + 51 * 10,
      principal_cents: 50_00 - 31 * 34 - 51 * 10,
      fees_cents: 0,
    });
    expect(second.year_to_date).toEqual({ year: 2026, interest_cents: 31 * 34 + 30 * 51, fees_cents: 25_00 });
    // Principal 1,000 + 500 for the 10 days to the payment, then less the payment's principal.
    const after_payment = 1_500_00 - (50_00 - 31 * 34 - 51 * 10);
    expect(second.average_daily_balance_cents).toBe(Math.round((10 * 1_500_00 + 20 * after_payment) / 30));
  });

  it("splits the cycle where the APR changed: each rate with its days, its balance and its interest", () => {
    // 12.5% to 24 March, 9.99% from the 25th (the accrual posts the 25th's interest on the 26th).
    const lines = [line("2026-03-10", "loan_draw", { principal_cents: 1_000_00 }, "draw")];
    for (let day = "2026-03-11"; day <= "2026-04-10"; day = addCalendarDays(day, 1))
      lines.push(line(day, "loan_interest", { interest_cents: day <= "2026-03-25" ? 34 : 27 }));
    lines.splice(10, 0, line("2026-03-19", "loan_draw", { principal_cents: 500_00 }, "draw"));
    const rates = [
      { from: "2026-03-10", rate_ppm: 125_000 },
      { from: "2026-03-25", rate_ppm: 99_900 },
    ];
    const f = lineStatementFigures({ start: "2026-03-10", closed_on: "2026-04-10" }, lines, rates);
    expect(f.rate_periods).toEqual([
      {
        start: "2026-03-10",
        last_day: "2026-03-24",
        days: 15,
        rate_ppm: 125_000,
        // $1,000 for 9 days, $1,500 for 6.
        average_daily_balance_cents: Math.round((9 * 1_000_00 + 6 * 1_500_00) / 15),
        interest_cents: 15 * 34,
      },
      {
        start: "2026-03-25",
        last_day: "2026-04-09",
        days: 16,
        rate_ppm: 99_900,
        average_daily_balance_cents: 1_500_00,
        interest_cents: 16 * 27,
      },
    ]);
    expect(f.interest_cents).toBe(15 * 34 + 16 * 27);
    // Without a change in the cycle: one rate, the cycle's days and balance.
    const one = lineStatementFigures({ start: "2026-03-10", closed_on: "2026-04-10" }, history(), AT_12_5);
    expect(one.rate_periods).toEqual([
      {
        start: "2026-03-10",
        last_day: "2026-04-09",
        days: 31,
        rate_ppm: 125_000,
        average_daily_balance_cents: one.average_daily_balance_cents,
        interest_cents: one.interest_cents,
      },
    ]);
  });

  it("counts the year to date from the 1st of January of the cycle's last day", () => {
    const lines = [
      line("2025-12-15", "loan_draw", { principal_cents: 100_00 }),
      line("2026-01-01", "loan_interest", { interest_cents: 7 }), // the interest of 31 December
      line("2026-01-02", "loan_interest", { interest_cents: 3 }),
      line("2026-01-05", "loan_fee", { fees_cents: 10_00 }),
    ];
    const f = lineStatementFigures({ start: "2025-12-15", closed_on: "2026-01-15" }, lines, AT_12_5);
    expect(f.interest_cents).toBe(10);
    expect(f.year_to_date).toEqual({ year: 2026, interest_cents: 3, fees_cents: 10_00 });
    expect(billingDay(lines[1]!)).toBe("2025-12-31");
  });

  it("always adds up: previous + draws + interest + fees - payments = new balance, the running balance ends there", () => {
    const kinds = ["loan_draw", "loan_interest", "loan_fee", "loan_payment"] as const;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            offset: fc.integer({ min: 0, max: 90 }),
            kind: fc.constantFrom(...kinds),
            cents: fc.integer({ min: 1, max: 500_00 }),
          }),
          { maxLength: 60 },
        ),
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.integer({ min: 0, max: 90 }), { maxLength: 3 }),
        (raw, close_offset, change_offsets) => {
          const lines = raw
            .map((r) => {
              const day = addCalendarDays("2026-01-01", r.offset);
              if (r.kind === "loan_draw") return line(day, r.kind, { principal_cents: r.cents });
              if (r.kind === "loan_interest") return line(day, r.kind, { interest_cents: r.cents });
              if (r.kind === "loan_fee") return line(day, r.kind, { fees_cents: r.cents });
              return line(day, r.kind, { principal_cents: -r.cents });
            })
            .sort((a, b) =>
              a.effective_date < b.effective_date
                ? -1
                : a.effective_date > b.effective_date
                  ? 1
                  : a.transaction_id - b.transaction_id,
            );
          const closed_on = addCalendarDays("2026-01-10", close_offset);
          // APR changes on random days, each to another rate.
          const rates = [
            ...AT_12_5,
            ...[...new Set(change_offsets)]
              .sort((a, b) => a - b)
              .map((offset, n) => ({ from: addCalendarDays("2026-01-01", offset), rate_ppm: 100_000 + n * 10_000 })),
          ];
          const f = lineStatementFigures({ start: "2026-01-10", closed_on }, lines, rates);
          // The rates' parts cover the cycle's days one after the other, and their interest is the cycle's.
          expect(f.rate_periods[0]!.start).toBe(f.period.start);
          expect(f.rate_periods[f.rate_periods.length - 1]!.last_day).toBe(f.period.last_day);
          f.rate_periods.forEach((p, k) => {
            if (k > 0) expect(p.start).toBe(addCalendarDays(f.rate_periods[k - 1]!.last_day, 1));
            if (k > 0) expect(p.rate_ppm).not.toBe(f.rate_periods[k - 1]!.rate_ppm);
          });
          expect(f.rate_periods.reduce((sum, p) => sum + p.days, 0)).toBe(f.period.days);
          expect(f.rate_periods.reduce((sum, p) => sum + p.interest_cents, 0)).toBe(f.interest_cents);
          expect(f.new_balance.total_cents).toBe(
            f.previous_balance_cents + f.draws_cents + f.interest_cents + f.fees_cents - f.payments_cents,
          );
          expect(f.lines.length ? f.lines[f.lines.length - 1]!.balance_cents : f.previous_balance_cents).toBe(
            f.new_balance.total_cents,
          );
          const next = lineStatementFigures(
            { start: closed_on, closed_on: addCalendarDays(closed_on, 30) },
            lines,
            AT_12_5,
          );
          expect(next.previous_balance_cents).toBe(f.new_balance.total_cents);
        },
      ),
    );
  });
});

import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { loanStatementFigures, type LoanLedgerLine } from "~/domain/loans/statement";
import type { ScheduledDue } from "~/domain/loans/servicing";

/**
 * A loan's monthly statement figures (docs/product.md#loan-statements): opening and closing by
 * part, the period's lines with their running balance (nightly interest grouped), what was charged
 * and paid, the year's payments by part, and what is due next with anything past due.
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

const schedule: ScheduledDue[] = [
  { number: 1, due_on: "2026-04-12", payment_cents: 158_98 },
  { number: 2, due_on: "2026-05-12", payment_cents: 158_98 },
  { number: 3, due_on: "2026-06-12", payment_cents: 158_98 },
];
const APRIL = { start: "2026-04-01", end: "2026-04-30" };
const MAY = { start: "2026-05-01", end: "2026-05-31" };

/** Paid out 12 March, nightly interest, April's payment on time. */
function history(): LoanLedgerLine[] {
  const lines = [line("2026-03-12", "loan_disbursement", { principal_cents: 5_000_00 }, "Personal Loan: paid out")];
  for (let d = 13; d <= 31; d++) lines.push(line(`2026-03-${d}`, "loan_interest", { interest_cents: 123 }));
  for (let d = 1; d <= 12; d++)
    lines.push(line(`2026-04-${String(d).padStart(2, "0")}`, "loan_interest", { interest_cents: 123 }));
  lines.push(
    line(
      "2026-04-12",
      "loan_payment",
      { principal_cents: -(158_98 - 31 * 123), interest_cents: -(31 * 123) },
      "Personal Loan L-1: autopay",
    ),
  );
  for (let d = 13; d <= 30; d++) lines.push(line(`2026-04-${d}`, "loan_interest", { interest_cents: 120 }));
  return lines;
}

describe("a loan's monthly statement", () => {
  it("opens and closes by part, groups the nights' interest between payments, and keeps a running balance", () => {
    const f = loanStatementFigures({ period: APRIL, lines: history(), schedule, late_fee: null });
    expect(f.opening).toEqual({
      principal_cents: 5_000_00,
      interest_cents: 19 * 123,
      fees_cents: 0,
      total_cents: 5_000_00 + 19 * 123,
    });
    const principal_paid = 158_98 - 31 * 123;
    expect(f.closing).toEqual({
      principal_cents: 5_000_00 - principal_paid,
      interest_cents: 18 * 120,
      fees_cents: 0,
      total_cents: 5_000_00 - principal_paid + 18 * 120,
    });
    expect(f.lines.map((l) => [l.effective_date, l.description, l.amount_cents])).toEqual([
      ["2026-04-01", "Interest charged, posted 2026-04-01 to 2026-04-12", 12 * 123],
      ["2026-04-12", "Personal Loan L-1: autopay", -158_98],
      ["2026-04-13", "Interest charged, posted 2026-04-13 to 2026-04-30", 18 * 120],
    ]);
    expect(f.lines.at(-1)!.balance_cents).toBe(f.closing.total_cents);
    expect(f.lines[0]!.transaction_ids).toHaveLength(12);
    expect(f.lines[1]!.paid).toEqual({ principal_cents: principal_paid, interest_cents: 31 * 123, fees_cents: 0 });
    expect(f.interest_charged_cents).toBe(12 * 123 + 18 * 120);
    expect(f.paid).toEqual({
      total_cents: 158_98,
      principal_cents: principal_paid,
      interest_cents: 31 * 123,
      fees_cents: 0,
    });
    expect(f.paid_year_to_date).toEqual(f.paid);
    expect(f.last_payment).toMatchObject({ effective_date: "2026-04-12", total_cents: 158_98 });
    // April's payment covered: May's is next, nothing past due.
    expect(f.amount_due).toEqual({
      due_on: "2026-05-12",
      regular_cents: 158_98,
      past_due_cents: 0,
      fees_cents: 0,
      amount_cents: 158_98,
    });
  });

  it("shows a missed payment as past due with the late fee, and the amount due adds them to the next payment", () => {
    const lines = history();
    for (let d = 1; d <= 31; d++)
      lines.push(line(`2026-05-${String(d).padStart(2, "0")}`, "loan_interest", { interest_cents: 120 }));
    lines.push(line("2026-05-23", "loan_fee", { fees_cents: 25_00 }, "L-1: late fee, payment due 2026-05-12"));
    lines.sort((a, b) => (a.effective_date < b.effective_date ? -1 : a.effective_date > b.effective_date ? 1 : 0));
    const f = loanStatementFigures({
      period: MAY,
      lines,
      schedule,
      late_fee: { late_fee_cents: 25_00, grace_days: 10 },
    });
    expect(f.fees_charged_cents).toBe(25_00);
    expect(f.paid.total_cents).toBe(0);
    expect(f.amount_due).toEqual({
      due_on: "2026-06-12",
      regular_cents: 158_98,
      past_due_cents: 158_98,
      fees_cents: 25_00,
      amount_cents: 2 * 158_98 + 25_00,
    });
    expect(f.late_fee).toEqual({ late_fee_cents: 25_00, charged_after: "2026-06-22" });
    // The fee is its own line between two runs of interest.
    expect(f.lines.map((l) => l.description)).toEqual([
      "Interest charged, posted 2026-05-01 to 2026-05-23",
      "L-1: late fee, payment due 2026-05-12",
      "Interest charged, posted 2026-05-24 to 2026-05-31",
    ]);
  });

  it("counts an extra payment toward later due dates, and a paid-off loan owes nothing and has nothing due", () => {
    const lines = history();
    lines.push(line("2026-04-20", "loan_payment", { principal_cents: -158_98 }, "extra"));
    lines.sort((a, b) => (a.effective_date < b.effective_date ? -1 : a.effective_date > b.effective_date ? 1 : 0));
    const ahead = loanStatementFigures({ period: APRIL, lines, schedule, late_fee: null });
    expect(ahead.amount_due).toMatchObject({ due_on: "2026-06-12", past_due_cents: 0, regular_cents: 158_98 });

    const owed = loanStatementFigures({ period: APRIL, lines: history(), schedule, late_fee: null }).closing;
    const payoff = line("2026-04-30", "loan_payment", {
      principal_cents: -owed.principal_cents,
      interest_cents: -owed.interest_cents,
    });
    const paid_off = loanStatementFigures({ period: APRIL, lines: [...history(), payoff], schedule, late_fee: null });
    expect(paid_off.closing.total_cents).toBe(0);
    expect(paid_off.amount_due).toBeNull();
  });

  it("has no amount due for a loan without a schedule (a line of credit's own rules decide it)", () => {
    const f = loanStatementFigures({
      period: APRIL,
      lines: [line("2026-04-03", "loan_draw", { principal_cents: 700_00 }, "Draw")],
      schedule: [],
      late_fee: { late_fee_cents: 25_00, grace_days: 10 },
    });
    expect(f).toMatchObject({ advanced_cents: 700_00, amount_due: null, late_fee: null });
    expect(f.closing.total_cents).toBe(700_00);
  });

  it("refuses a line dated after the period", () => {
    expect(() =>
      loanStatementFigures({
        period: APRIL,
        lines: [line("2026-05-01", "loan_disbursement", { principal_cents: 1 })],
        schedule,
        late_fee: null,
      }),
    ).toThrow(/after the period/);
  });

  it("always adds up: opening plus the lines is the closing, the last balance is the closing, the sums are the lines'", () => {
    const kinds = ["loan_disbursement", "loan_interest", "loan_fee", "loan_payment"] as const;
    const arbitraryLine = fc.record({
      day: fc.integer({ min: 1, max: 60 }),
      kind: fc.constantFrom(...kinds),
      cents: fc.integer({ min: 1, max: 1_000_000 }),
      split: fc.integer({ min: 0, max: 100 }),
    });
    fc.assert(
      fc.property(fc.array(arbitraryLine, { maxLength: 40 }), (raw) => {
        const lines = raw
          .map((r) => {
            const date = new Date(Date.UTC(2026, 2, r.day)).toISOString().slice(0, 10);
            if (r.kind === "loan_payment") {
              const interest = Math.floor((r.cents * r.split) / 100);
              return line(date, r.kind, { interest_cents: -interest, principal_cents: -(r.cents - interest) });
            }
            if (r.kind === "loan_interest") return line(date, r.kind, { interest_cents: r.cents });
            if (r.kind === "loan_fee") return line(date, r.kind, { fees_cents: r.cents });
            return line(date, r.kind, { principal_cents: r.cents });
          })
          .sort((a, b) => (a.effective_date < b.effective_date ? -1 : a.effective_date > b.effective_date ? 1 : 0));
        const f = loanStatementFigures({ period: APRIL, lines, schedule, late_fee: null });
        const sum = f.lines.reduce((s, l) => s + l.amount_cents, 0);
        expect(f.closing.total_cents).toBe(f.opening.total_cents + sum);
        expect(sum).toBe(f.advanced_cents + f.interest_charged_cents + f.fees_charged_cents - f.paid.total_cents);
        if (f.lines.length) expect(f.lines.at(-1)!.balance_cents).toBe(f.closing.total_cents);
        expect(f.lines.flatMap((l) => l.transaction_ids).length).toBe(
          lines.filter((l) => l.effective_date >= APRIL.start).length,
        );
        expect(f.paid.total_cents).toBe(f.paid.principal_cents + f.paid.interest_cents + f.paid.fees_cents);
      }),
    );
  });
});

import { describe, expect, it } from "vitest";
import { extractText, getDocumentProxy } from "unpdf";
import { renderLoanStatementPdf } from "~/server/loans/statement-pdf.server";
import type { LoanStatementData } from "~/server/loans/statements.server";
import { loanStatementFigures, type LoanLedgerLine } from "~/domain/loans/statement";

/**
 * The loan statement's PDF for the cases a month of autopay does not show (docs/product.md#loan-
 * statements): a payment missed (past due, the late fee charged, the notice), a loan paid off, and
 * a loan without a schedule (no "Payment due" of a closed-end loan's kind). Read back with unpdf.
 */
async function text(data: LoanStatementData): Promise<string> {
  const document = await getDocumentProxy(new Uint8Array(await renderLoanStatementPdf(data)));
  return (await extractText(document, { mergePages: true })).text;
}

let id = 0;
const line = (effective_date: string, kind: string, parts: Partial<LoanLedgerLine>, description = kind) =>
  ({
    transaction_id: ++id,
    effective_date,
    kind,
    description,
    principal_cents: 0,
    interest_cents: 0,
    fees_cents: 0,
    ...parts,
  }) as LoanLedgerLine;

const schedule = [
  { number: 1, due_on: "2026-04-12", payment_cents: 158_98 },
  { number: 2, due_on: "2026-05-12", payment_cents: 158_98 },
];

function data(lines: LoanLedgerLine[], scheduled = true, closed_on: string | null = null): LoanStatementData {
  const period = { start: "2026-04-01", end: "2026-04-30" };
  return {
    month: "2026-04",
    period: { ...period, label: "April 2026" },
    institution: {
      name: "Harborview Community Credit Union",
      address_lines: ["100 Harbor Street", "Portsmouth, NH 03801"],
      routing_number: "501234566",
      phone: "(555) 010-4400",
      email: "support@harborview.example",
    },
    member: { name: "Pat Member", address_lines: ["1 Main Street", "Portsmouth, NH 03801"] },
    loan: {
      number: "L-000007",
      product_name: "Personal Loan",
      rate_ppm: 89_900,
      apr_bp: 899,
      principal_cents: 5_000_00,
      disbursed_on: "2026-03-12",
      status: closed_on ? "paid_off" : "active",
      closed_on,
      scheduled,
    },
    figures: loanStatementFigures({
      period,
      lines,
      schedule: scheduled ? schedule : [],
      late_fee: { late_fee_cents: 25_00, grace_days: 10 },
    }),
  };
}

describe("the loan statement PDF", () => {
  it("a missed payment: past due with the late fee charged, the amount due adding both, and the notice", async () => {
    const t = await text(
      data([
        line("2026-03-12", "loan_disbursement", { principal_cents: 5_000_00 }, "Personal Loan: money paid out"),
        line("2026-04-12", "loan_interest", { interest_cents: 38_17 }),
        line("2026-04-23", "loan_fee", { fees_cents: 25_00 }, "L-000007: late fee, payment due 2026-04-12"),
      ]),
    );
    expect(t).toContain("Payment due date May 12, 2026");
    expect(t).toContain("Scheduled payment $158.98");
    expect(t).toContain("Past due $158.98");
    expect(t).toContain("Fees unpaid $25.00");
    expect(t).toContain("Amount due $342.96");
    expect(t).toContain("If we have not received the payment due by May 22, 2026, a $25.00 late fee will be charged.");
    expect(t).toContain("Your loan is past due: $158.98 of the payments due by Apr 30, 2026 has not been paid.");
    expect(t).toContain("Fees charged $25.00");
    expect(t).toContain("2026-04-23 L-000007: late fee, payment due 2026-04-12 $25.00 $5,063.17");
  });

  it("a loan paid off in the month: nothing due", async () => {
    const t = await text(
      data(
        [
          line("2026-03-12", "loan_disbursement", { principal_cents: 5_000_00 }),
          line("2026-04-10", "loan_payment", { principal_cents: -5_000_00 }, "Personal Loan L-000007: payment"),
        ],
        true,
        "2026-04-10",
      ),
    );
    expect(t).toContain("Paid in full on Apr 10, 2026. Nothing is due.");
    expect(t).toContain("Balance owed at the end $0.00");
    expect(t).toContain("Applied: principal $5,000.00, interest $0.00, fees $0.00");
  });

  it("a loan without a schedule: no Payment due section, its draws as money paid out", async () => {
    const t = await text(data([line("2026-04-03", "loan_draw", { principal_cents: 700_00 }, "Draw")], false));
    expect(t).not.toContain("Payment due");
    expect(t).toContain("Paid out to you $700.00");
    expect(t).toContain("2026-04-03 Draw $700.00 $700.00");
  });
});

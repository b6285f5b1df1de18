import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  loanApplications,
  loanEvents,
  loanPayments,
  loanScheduledPayments,
  loanStatements,
  loans,
  type LoanRow,
  type LoanStatementRow,
} from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { onPaperDelivery } from "~/server/electronic-delivery/electronic-delivery.server";
import { notify } from "~/server/notifications/notifications.server";
import { refusal } from "~/domain/refusals";
import { statementHolder, statementInstitution, type StatementData, type StatementDownload } from "./statements.server";
import { businessDate, toCents, toId } from "~/domain/ledger-rules";
import {
  isStatementMonth,
  monthBounds,
  monthLabel,
  monthOfDate,
  statementMonths,
  type StatementMonth,
} from "~/domain/statements";
import { loanStatementFigures, type LoanLedgerLine, type LoanStatementFigures } from "~/domain/loans/statement";
import { loanNumber } from "~/domain/loans/products";
import { loanProduct } from "~/server/loans/products.server";
import { renderLoanStatementPdf } from "./loan-statement-pdf.server";

/**
 * A loan's monthly statement (docs/product.md#loan-statements): made by the monthly statement run
 * beside the accounts' (or at the member's first download), kept as made (loan_statements), listed
 * on the Statements page and the loan's page. Its figures are the loan's ledger lines as of the
 * month's last day: every ledger transaction on the loan's own receivable account (principal and
 * fees: the loan paid out, a draw, a payment's principal and fees part, a late fee) and every one
 * the loan's records name (its interest postings and payments, whose interest is on the shared
 * interest receivable account). The split between principal and fees is the loan's records'
 * (a late fee's amount, a payment's fees part); everything else on the receivable is principal.
 * Nothing here assumes a schedule: a loan without one has no "amount due" box.
 */

export interface LoanStatementData {
  month: StatementMonth;
  period: { start: string; end: string; label: string };
  institution: StatementData["institution"] & { phone: string; email: string };
  member: StatementData["member"];
  loan: {
    number: string;
    product_name: string;
    rate_ppm: number;
    apr_bp: number;
    principal_cents: number;
    disbursed_on: string;
    status: LoanRow["status"];
    closed_on: string | null;
    /** A loan repaid by a schedule (a closed-end loan); one without (a line of credit) has no "Payment due" of this kind. */
    scheduled: boolean;
  };
  figures: LoanStatementFigures;
}

/** The loan's ledger lines dated on or before `end`, in date order, each split by part. */
export async function loanLedgerLines(db: DbOrTx, loan: LoanRow, end: string): Promise<LoanLedgerLine[]> {
  const fees = await feesByTransaction(db, loan.id);
  return creditLedgerLines(
    db,
    loan.receivable_account_id,
    sql`select transaction_id from loan_events where loan_id = ${loan.id} and transaction_id is not null
        union select transaction_id from loan_payments where loan_id = ${loan.id}`,
    (transaction_id) => fees.get(transaction_id) ?? 0,
    end,
  );
}

/**
 * A credit's ledger lines (a loan's or a line of credit's) dated on or before `end`, in date order,
 * each split by part: every posted transaction on its own receivable account and every one its
 * records name (`named`, a select of transaction ids: its interest postings and payments, whose
 * interest is on the shared interest receivable). `feesOf` says how much of what a transaction
 * did on the receivable was fees (the records' figure); the rest of the receivable is principal.
 */
export async function creditLedgerLines(
  db: DbOrTx,
  receivable_account_id: number,
  named: SQL,
  feesOf: (transaction_id: number, kind: string, owed_on_receivable_cents: number) => number,
  end: string,
): Promise<LoanLedgerLine[]> {
  const result = await db.execute(sql`
    with credit_transactions as (
      select e.transaction_id as id from ledger_entries e where e.account_id = ${receivable_account_id}
      union ${named}
    ), interest_receivable as (
      select id from ledger_accounts where owner = 'institution' and type = 'interest_receivable'
    )
    select t.id, t.effective_date::text as effective_date, t.kind, t.memo,
           coalesce(sum(e.amount_cents) filter (where e.account_id = ${receivable_account_id}), 0)::text as receivable_cents,
           coalesce(sum(e.amount_cents) filter (where e.account_id in (select id from interest_receivable)), 0)::text as interest_cents
      from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
     where t.id in (select id from credit_transactions) and t.status in ('posted', 'reversed') and t.effective_date <= ${end}::date
     group by t.id
     order by t.effective_date, t.id`);
  return result.rows.map((r) => {
    const id = toId(r.id);
    const kind = String(r.kind);
    // The books are the institution's: a receivable debited (negative) is more owed by the member.
    const owed_on_receivable = -toCents(r.receivable_cents);
    const fees_cents = feesOf(id, kind, owed_on_receivable);
    return {
      transaction_id: id,
      effective_date: String(r.effective_date),
      kind,
      description: (r.memo as string | null) ?? kind,
      interest_cents: -toCents(r.interest_cents),
      fees_cents,
      principal_cents: owed_on_receivable - fees_cents,
    };
  });
}

/** What each of the loan's transactions did to its fees: a late fee charged (+), a payment's fees part (-). */
async function feesByTransaction(db: DbOrTx, loan_id: number): Promise<Map<number, number>> {
  const fees = new Map<number, number>();
  const charged = await db
    .select({ transaction_id: loanEvents.transaction_id, amount_cents: loanEvents.amount_cents })
    .from(loanEvents)
    .where(and(eq(loanEvents.loan_id, loan_id), eq(loanEvents.kind, "late_fee")));
  for (const c of charged) if (c.transaction_id) fees.set(c.transaction_id, c.amount_cents);
  const paid = await db
    .select({ transaction_id: loanPayments.transaction_id, fees_cents: loanPayments.fees_cents })
    .from(loanPayments)
    .where(eq(loanPayments.loan_id, loan_id));
  for (const p of paid) if (p.fees_cents > 0) fees.set(p.transaction_id, -p.fees_cents);
  return fees;
}

/** The product's late fee and grace days, when the product is still in the profile. */
async function lateFeeTerms(db: DbOrTx, loan: LoanRow) {
  const [application] = await db
    .select({ product_slug: loanApplications.product_slug })
    .from(loanApplications)
    .where(eq(loanApplications.id, loan.application_id));
  const product = application ? loanProduct(application.product_slug) : null;
  return product ? { late_fee_cents: product.late_fee_cents, grace_days: product.grace_days } : null;
}

export async function loanStatementData(db: DbOrTx, loan: LoanRow, month: StatementMonth): Promise<LoanStatementData> {
  const period = monthBounds(month);
  const schedule = await db
    .select({
      number: loanScheduledPayments.number,
      due_on: loanScheduledPayments.due_on,
      payment_cents: loanScheduledPayments.payment_cents,
    })
    .from(loanScheduledPayments)
    .where(eq(loanScheduledPayments.loan_id, loan.id))
    .orderBy(asc(loanScheduledPayments.number));
  const figures = loanStatementFigures({
    period,
    lines: await loanLedgerLines(db, loan, period.end),
    schedule,
    late_fee: await lateFeeTerms(db, loan),
  });
  const profile = institution();
  return {
    month,
    period: { ...period, label: monthLabel(month) },
    institution: { ...statementInstitution(), phone: profile.support_phone, email: profile.support_email },
    member: await statementHolder(db, loan.member_id),
    loan: {
      number: loanNumber(loan.id),
      product_name: loan.product_name,
      rate_ppm: loan.rate_ppm,
      apr_bp: loan.apr_bp,
      principal_cents: loan.principal_cents,
      disbursed_on: loan.disbursed_on,
      // As of the period's end: a loan paid off later was still open then.
      status: loan.closed_on !== null && loan.closed_on <= period.end ? "paid_off" : "active",
      closed_on: loan.closed_on !== null && loan.closed_on <= period.end ? loan.closed_on : null,
      scheduled: schedule.length > 0,
    },
    figures,
  };
}

/**
 * The months a loan has a statement for, newest first: from the month it was paid out to the last
 * month that has ended (at most 13), none after the month it was paid off.
 */
export function loanStatementMonths(
  loan: Pick<LoanRow, "disbursed_on" | "closed_on">,
  today: string,
): StatementMonth[] {
  const months = statementMonths(loan.disbursed_on, today);
  return loan.closed_on ? months.filter((m) => m <= monthOfDate(loan.closed_on!)) : months;
}

export async function keptLoanStatement(
  db: DbOrTx,
  loan_id: number,
  month: StatementMonth,
): Promise<LoanStatementRow | null> {
  const [row] = await db
    .select()
    .from(loanStatements)
    .where(and(eq(loanStatements.loan_id, loan_id), eq(loanStatements.period_month, month)))
    .limit(1);
  return row ?? null;
}

/**
 * The loan's statement for the month: the one kept, else made now and kept (the first insert wins
 * the unique loan and month; a second caller serves the kept one). The caller checks the month is
 * offered and the loan is the member's.
 */
export async function loanStatementFor(
  db: DbOrTx,
  loan: LoanRow,
  month: StatementMonth,
  created_by: string,
): Promise<{ statement: LoanStatementRow; made: boolean }> {
  const kept = await keptLoanStatement(db, loan.id, month);
  if (kept) return { statement: kept, made: false };
  const data = await loanStatementData(db, loan, month);
  const pdf = await renderLoanStatementPdf(data);
  const f = data.figures;
  const inserted = await db
    .insert(loanStatements)
    .values({
      loan_id: loan.id,
      member_id: loan.member_id,
      period_month: month,
      period_start: f.period.start,
      period_end: f.period.end,
      opening_cents: f.opening.total_cents,
      closing_cents: f.closing.total_cents,
      principal_cents: f.closing.principal_cents,
      advanced_cents: f.advanced_cents,
      interest_charged_cents: f.interest_charged_cents,
      fees_charged_cents: f.fees_charged_cents,
      paid_cents: f.paid.total_cents,
      amount_due_cents: f.amount_due?.amount_cents ?? null,
      due_on: f.amount_due?.due_on ?? null,
      past_due_cents: f.amount_due?.past_due_cents ?? 0,
      pdf,
      // Without consent to electronic delivery on record (E-SIGN), the statement is also mailed.
      mail_paper_copy: await onPaperDelivery(db, loan.member_id),
      created_by,
    })
    .onConflictDoNothing()
    .returning();
  if (inserted[0]) return { statement: inserted[0], made: true };
  const winner = await keptLoanStatement(db, loan.id, month);
  if (!winner) throw new Error("loan statement insert conflicted but none is kept");
  return { statement: winner, made: false };
}

/** The statement file's name: the loan's number and the month, nothing personal. */
export function loanStatementFileName(loan_id: number, month: StatementMonth): string {
  return `loan-statement-${loanNumber(loan_id)}-${month}.pdf`;
}

// ---------------------------------------------------------------------------------------------
// The monthly run

/**
 * Part of the monthly statement run (app/server/statements/monthly-run.server.ts): the month's
 * statement of every loan that had a balance or activity in it (paid out by its end, and not paid
 * off before its start) and has none yet, each in its own database transaction with the member
 * told in the bell by the run that made it. Safe to repeat.
 */
export async function runLoanStatements(db: Db, month: StatementMonth): Promise<number> {
  const { start, end } = monthBounds(month);
  const due = await db
    .select({ id: loans.id })
    .from(loans)
    .where(
      and(
        sql`${loans.disbursed_on} <= ${end}::date`,
        sql`(${loans.closed_on} is null or ${loans.closed_on} >= ${start}::date)`,
        sql`not exists (select 1 from loan_statements s where s.loan_id = ${loans.id} and s.period_month = ${month})`,
      ),
    )
    .orderBy(asc(loans.id));
  let made = 0;
  for (const { id } of due) {
    const done = await db.transaction(async (tx) => {
      const [loan] = await tx.select().from(loans).where(eq(loans.id, id));
      if (!loan) return false;
      const { made } = await loanStatementFor(tx, loan, month, "system:statements");
      if (made)
        await notify(tx, {
          member_id: loan.member_id,
          kind: "statement_ready",
          title: `Your ${monthLabel(month)} loan statement is ready`,
          body: `The statement for ${loan.product_name} ${loanNumber(loan.id)} is on your Statements page.`,
        });
      return made;
    });
    if (done) made++;
  }
  return made;
}

// ---------------------------------------------------------------------------------------------
// The member's

export interface MemberLoanStatements {
  id: number;
  number: string;
  product_name: string;
  months: { month: StatementMonth; label: string }[];
}

/** The member's loans with the months each has a statement for, newest loan first. */
export async function memberLoanStatements(db: DbOrTx, member_id: string, now: Date): Promise<MemberLoanStatements[]> {
  const today = businessDate(institution().time_zone, now);
  const rows = await db.select().from(loans).where(eq(loans.member_id, member_id)).orderBy(desc(loans.id));
  return rows.map((loan) => ({
    id: loan.id,
    number: loanNumber(loan.id),
    product_name: loan.product_name,
    months: loanStatementMonths(loan, today).map((month) => ({ month, label: monthLabel(month) })),
  }));
}

export const LOAN_STATEMENT_NOT_FOUND = "Statement not found. Please choose one of your loans.";
export const LOAN_STATEMENT_MONTH_MESSAGE = "Please choose one of the statement months offered for this loan";

/**
 * A loan statement's PDF for the member: their own loan (else 404, the same answer whether the
 * loan exists or not) and a month offered for it (else 400).
 */
export async function memberLoanStatementPdf(
  db: DbOrTx,
  member_id: string,
  loan_id_text: string,
  month_text: string,
  now: Date,
): Promise<StatementDownload> {
  const loan_id = /^[1-9]\d{0,15}$/.test(loan_id_text) ? Number(loan_id_text) : null;
  const [loan] =
    loan_id === null
      ? []
      : await db
          .select()
          .from(loans)
          .where(and(eq(loans.id, loan_id), eq(loans.member_id, member_id)));
  if (!loan) return refusal("not_found", LOAN_STATEMENT_NOT_FOUND);
  const months = loanStatementMonths(loan, businessDate(institution().time_zone, now));
  if (!isStatementMonth(month_text) || !months.includes(month_text))
    return refusal("bad_input", LOAN_STATEMENT_MONTH_MESSAGE);
  const { statement } = await loanStatementFor(db, loan, month_text, `member:${member_id}`);
  return {
    ok: true,
    pdf: statement.pdf,
    file_name: loanStatementFileName(loan.id, month_text),
    account_label: `${loan.product_name} ${loanNumber(loan.id)}`,
    month_label: monthLabel(month_text),
  };
}

import { and, asc, desc, eq, lt, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  creditLineActivity,
  creditLineCycles,
  creditLineStatements,
  creditLines,
  type CreditLineCycleRow,
  type CreditLineRow,
  type CreditLineStatementRow,
} from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { onPaperDelivery } from "~/server/electronic-delivery/electronic-delivery.server";
import { notify } from "~/server/notifications/notifications.server";
import { SYSTEM, lineNumber } from "~/server/loans/lines-of-credit.server";
import { lineRates } from "~/server/loans/line-term-changes.server";
import { businessDate } from "~/domain/ledger-rules";
import { formatBusinessDate, isCalendarDate } from "~/domain/calendar-date";
import { addCalendarDays } from "~/domain/payment-dates";
import { availableCredit } from "~/domain/loans/line-of-credit";
import { lineStatementFigures, type LineStatementFigures } from "~/domain/loans/line-statement";
import type { LoanLedgerLine } from "~/domain/loans/statement";
import { STATEMENT_MONTHS } from "~/domain/statements";
import { refusal } from "~/domain/refusals";
import { statementHolder, statementInstitution, type StatementData, type StatementDownload } from "./statements.server";
import { creditLedgerLines } from "./loan-statements.server";
import { renderLineStatementPdf } from "./line-statement-pdf.server";

/**
 * A line of credit's periodic statement (docs/product.md#line-statements; Regulation Z 12 CFR
 * 1026.7(b)): one per closed billing cycle, made by the monthly statement run for every cycle that
 * has closed (or at the member's first download), kept as made (credit_line_statements), listed on
 * the Statements page and the line's page. Its figures are the line's ledger lines of the cycle
 * (app/domain/loans/line-statement.ts says which), read the way a loan's are
 * (./loan-statements.server.ts, creditLedgerLines); its minimum payment and due date are the ones
 * the servicing set and stored when the cycle closed (decision 0031).
 */

export interface LineStatementData {
  institution: StatementData["institution"] & { phone: string; email: string };
  member: StatementData["member"];
  line: {
    number: string;
    product_name: string;
    credit_limit_cents: number;
    late_fee_cents: number;
    grace_days: number;
  };
  cycle: { closed_on: string; due_on: string; minimum_due_cents: number };
  /** 1026.7(b)(11): the last day the minimum is on time before the late fee, when the line has one. */
  late_fee_after: string | null;
  available_credit_cents: number;
  figures: LineStatementFigures;
}

/** The line's ledger lines dated on or before `end`, in date order, each split by part. */
export async function lineLedgerLines(db: DbOrTx, line: CreditLineRow, end: string): Promise<LoanLedgerLine[]> {
  const paid_fees = new Map<number, number>();
  const payments = await db
    .select({ transaction_id: creditLineActivity.transaction_id, fees_cents: creditLineActivity.fees_cents })
    .from(creditLineActivity)
    .where(eq(creditLineActivity.line_id, line.id));
  for (const p of payments) if (p.fees_cents > 0) paid_fees.set(p.transaction_id, -p.fees_cents);
  return creditLedgerLines(
    db,
    line.receivable_account_id,
    // Its draws and payments, and its nightly interest (on the shared accounts only, found by the
    // servicing's own idempotency key for the line).
    sql`select transaction_id from credit_line_activity where line_id = ${line.id}
        union select id from ledger_transactions
               where initiator = ${SYSTEM} and idempotency_key like ${`line:${line.id}:interest:%`}`,
    // A late fee is all fees; a payment's fees part is its record's.
    (transaction_id, kind, owed) => (kind === "loan_fee" ? owed : (paid_fees.get(transaction_id) ?? 0)),
    end,
  );
}

/** The cycle's first day: the previous cycle's closing date, or the day the line was opened. */
async function cycleStart(db: DbOrTx, line: CreditLineRow, cycle: CreditLineCycleRow): Promise<string> {
  const [previous] = await db
    .select({ closed_on: creditLineCycles.closed_on })
    .from(creditLineCycles)
    .where(and(eq(creditLineCycles.line_id, line.id), lt(creditLineCycles.closed_on, cycle.closed_on)))
    .orderBy(desc(creditLineCycles.closed_on))
    .limit(1);
  return previous?.closed_on ?? line.opened_on;
}

export async function lineStatementData(
  db: DbOrTx,
  line: CreditLineRow,
  cycle: CreditLineCycleRow,
): Promise<LineStatementData> {
  const figures = lineStatementFigures(
    { start: await cycleStart(db, line, cycle), closed_on: cycle.closed_on },
    await lineLedgerLines(db, line, cycle.closed_on),
    await lineRates(db, line),
  );
  const profile = institution();
  return {
    institution: { ...statementInstitution(), phone: profile.support_phone, email: profile.support_email },
    member: await statementHolder(db, line.member_id),
    line: {
      number: lineNumber(line.id),
      product_name: line.product_name,
      credit_limit_cents: line.credit_limit_cents,
      late_fee_cents: line.late_fee_cents,
      grace_days: line.grace_days,
    },
    cycle: { closed_on: cycle.closed_on, due_on: cycle.due_on, minimum_due_cents: cycle.minimum_due_cents },
    late_fee_after:
      line.late_fee_cents > 0 && cycle.minimum_due_cents > 0 ? addCalendarDays(cycle.due_on, line.grace_days) : null,
    available_credit_cents: availableCredit(line.credit_limit_cents, figures.new_balance.total_cents),
    figures,
  };
}

async function keptLineStatement(db: DbOrTx, cycle_id: number): Promise<CreditLineStatementRow | null> {
  const [row] = await db
    .select()
    .from(creditLineStatements)
    .where(eq(creditLineStatements.cycle_id, cycle_id))
    .limit(1);
  return row ?? null;
}

/**
 * The cycle's statement: the one kept, else made now and kept (the first insert wins the unique
 * cycle; a second caller serves the kept one). The caller checks the line is the member's.
 */
export async function lineStatementFor(
  db: DbOrTx,
  line: CreditLineRow,
  cycle: CreditLineCycleRow,
  created_by: string,
): Promise<{ statement: CreditLineStatementRow; made: boolean }> {
  const kept = await keptLineStatement(db, cycle.id);
  if (kept) return { statement: kept, made: false };
  const data = await lineStatementData(db, line, cycle);
  const pdf = await renderLineStatementPdf(data);
  const f = data.figures;
  const inserted = await db
    .insert(creditLineStatements)
    .values({
      line_id: line.id,
      cycle_id: cycle.id,
      member_id: line.member_id,
      period_start: f.period.start,
      closed_on: cycle.closed_on,
      previous_balance_cents: f.previous_balance_cents,
      draws_cents: f.draws_cents,
      interest_cents: f.interest_cents,
      fees_cents: f.fees_cents,
      payments_cents: f.payments_cents,
      new_balance_cents: f.new_balance.total_cents,
      minimum_due_cents: cycle.minimum_due_cents,
      due_on: cycle.due_on,
      pdf,
      // Without consent to electronic delivery on record (E-SIGN), the statement is also mailed.
      mail_paper_copy: await onPaperDelivery(db, line.member_id),
      created_by,
    })
    .onConflictDoNothing()
    .returning();
  if (inserted[0]) return { statement: inserted[0], made: true };
  const winner = await keptLineStatement(db, cycle.id);
  if (!winner) throw new Error("line statement insert conflicted but none is kept");
  return { statement: winner, made: false };
}

/** The statement file's name: the line's number and the closing date, nothing personal. */
export function lineStatementFileName(line_id: number, closed_on: string): string {
  return `line-statement-${lineNumber(line_id)}-${closed_on}.pdf`;
}

// ---------------------------------------------------------------------------------------------
// The monthly run

/**
 * Part of the monthly statement run (./monthly-run.server.ts): the statement of every line's
 * billing cycle that has closed and has none yet, each in its own database transaction with the
 * member told in the bell by the run that made it. Safe to repeat.
 */
export async function runLineStatements(db: Db): Promise<number> {
  const due = await db
    .select({ id: creditLineCycles.id })
    .from(creditLineCycles)
    .where(sql`not exists (select 1 from credit_line_statements s where s.cycle_id = ${creditLineCycles.id})`)
    .orderBy(asc(creditLineCycles.id));
  let made = 0;
  for (const { id } of due) {
    const done = await db.transaction(async (tx) => {
      const [cycle] = await tx.select().from(creditLineCycles).where(eq(creditLineCycles.id, id));
      const [line] = cycle ? await tx.select().from(creditLines).where(eq(creditLines.id, cycle.line_id)) : [];
      if (!cycle || !line) return false;
      const { made } = await lineStatementFor(tx, line, cycle, "system:statements");
      if (made)
        await notify(tx, {
          member_id: line.member_id,
          kind: "statement_ready",
          title: `Your line of credit statement is ready`,
          body: `The statement for ${line.product_name} ${lineNumber(line.id)}, cycle closed ${formatBusinessDate(cycle.closed_on)}, is on your Statements page.`,
        });
      return made;
    });
    if (done) made++;
  }
  return made;
}

// ---------------------------------------------------------------------------------------------
// The member's

export interface MemberLineStatements {
  id: number;
  number: string;
  product_name: string;
  /** The closed cycles, newest first (at most STATEMENT_MONTHS), each a statement. */
  cycles: { closed_on: string; label: string }[];
}

export function lineStatementLabel(closed_on: string): string {
  return `Cycle closed ${formatBusinessDate(closed_on)}`;
}

async function offeredCycles(db: DbOrTx, line_id: number): Promise<CreditLineCycleRow[]> {
  return db
    .select()
    .from(creditLineCycles)
    .where(eq(creditLineCycles.line_id, line_id))
    .orderBy(desc(creditLineCycles.closed_on))
    .limit(STATEMENT_MONTHS);
}

/** The member's lines of credit with their statements' cycles, newest line first. */
export async function memberLineStatements(db: DbOrTx, member_id: string): Promise<MemberLineStatements[]> {
  const rows = await db
    .select()
    .from(creditLines)
    .where(eq(creditLines.member_id, member_id))
    .orderBy(desc(creditLines.id));
  const lines: MemberLineStatements[] = [];
  for (const line of rows)
    lines.push({
      id: line.id,
      number: lineNumber(line.id),
      product_name: line.product_name,
      cycles: (await offeredCycles(db, line.id)).map((c) => ({
        closed_on: c.closed_on,
        label: lineStatementLabel(c.closed_on),
      })),
    });
  return lines;
}

export const LINE_STATEMENT_NOT_FOUND = "Statement not found. Please choose one of your lines of credit.";
export const LINE_STATEMENT_CYCLE_MESSAGE = "Please choose one of the statements offered for this line of credit";

/**
 * A line's statement PDF for the member: their own line (else 404, the same answer whether the
 * line exists or not) and one of its closed cycles offered (else 400).
 */
export async function memberLineStatementPdf(
  db: DbOrTx,
  member_id: string,
  line_id_text: string,
  closed_on_text: string,
  now: Date,
): Promise<StatementDownload> {
  const line_id = /^[1-9]\d{0,15}$/.test(line_id_text) ? Number(line_id_text) : null;
  const [line] =
    line_id === null
      ? []
      : await db
          .select()
          .from(creditLines)
          .where(and(eq(creditLines.id, line_id), eq(creditLines.member_id, member_id)));
  if (!line) return refusal("not_found", LINE_STATEMENT_NOT_FOUND);
  const today = businessDate(institution().time_zone, now);
  const cycle = isCalendarDate(closed_on_text)
    ? (await offeredCycles(db, line.id)).find((c) => c.closed_on === closed_on_text && c.closed_on <= today)
    : undefined;
  if (!cycle) return refusal("bad_input", LINE_STATEMENT_CYCLE_MESSAGE);
  const { statement } = await lineStatementFor(db, line, cycle, `member:${member_id}`);
  return {
    ok: true,
    pdf: statement.pdf,
    file_name: lineStatementFileName(line.id, cycle.closed_on),
    account_label: `${line.product_name} ${lineNumber(line.id)}`,
    // The email names the statement by its closing date ("Your Apr 10, 2026 statement").
    month_label: formatBusinessDate(cycle.closed_on),
  };
}

// ---------------------------------------------------------------------------------------------
// The exports

/**
 * A line's ledger lines as the member's own statement of it (docs/product.md#statements: exports),
 * as a loan's are: each money movement by its ledger transaction and date, signed for the member (a
 * draw, interest and a fee owe more: negative; a payment owes less: positive), and the balance
 * (negative: owed) at the end of `to`; the available balance is the credit available today. Null
 * when the line is not the member's.
 */
export async function memberLineExportLines(db: DbOrTx, member_id: string, line_id: number, from: string, to: string) {
  const [line] = await db
    .select()
    .from(creditLines)
    .where(and(eq(creditLines.id, line_id), eq(creditLines.member_id, member_id)));
  if (!line) return null;
  const ledger = await lineLedgerLines(db, line, "9999-12-31");
  const owed = (l: LoanLedgerLine) => l.principal_cents + l.interest_cents + l.fees_cents;
  const owed_now = ledger.reduce((s, l) => s + owed(l), 0);
  return {
    number: lineNumber(line.id).replace("-", ""),
    lines: ledger
      .filter((l) => l.effective_date >= from && l.effective_date <= to)
      .map((l) => ({
        id: l.transaction_id,
        date: l.effective_date,
        // "LC-000012: draw": the memo without the product's name, so a finance program's short
        // name field (32 characters in OFX) keeps what happened.
        description: l.description.startsWith(`${line.product_name} `)
          ? l.description.slice(line.product_name.length + 1)
          : l.description,
        amount_cents: 0 - owed(l),
      })),
    closing_cents: 0 - ledger.filter((l) => l.effective_date <= to).reduce((s, l) => s + owed(l), 0),
    available_cents: availableCredit(line.credit_limit_cents, owed_now),
  };
}

/** The member's lines of credit as the exports name them ("line-<id>"). */
export async function memberLineChoices(db: DbOrTx, member_id: string) {
  const rows = await db
    .select({ id: creditLines.id, product_name: creditLines.product_name })
    .from(creditLines)
    .where(eq(creditLines.member_id, member_id))
    .orderBy(asc(creditLines.id));
  return rows.map((r) => ({ value: `line-${r.id}`, label: `${r.product_name} ${lineNumber(r.id)}` }));
}

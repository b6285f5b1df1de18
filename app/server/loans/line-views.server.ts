import { and, desc, eq } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import {
  creditLineActivity,
  creditLineChanges,
  creditLineCycles,
  creditLines,
  ledgerAccounts,
  type CreditLineCycleRow,
  type CreditLineRow,
} from "~/server/db/schema";
import { today } from "~/server/ledger/ledger.server";
import { totalOwed, type LoanOwed } from "~/domain/loans/servicing";
import { availableCredit } from "~/domain/loans/line-of-credit";
import { drawsStoppedMessage, lineChangeSummary, lineState, type LineState } from "~/domain/loans/line-changes";
import { latestCycle, lineNumber, lineOwed, minimumLeft } from "./lines-of-credit.server";

/**
 * What the member's pages read of their lines of credit (docs/product.md#lines-of-credit): the
 * limit, drawn, available, the minimum due; the draws and payments; the monthly cycles. Their own
 * lines only.
 */

export interface MemberLineView {
  id: number;
  number: string;
  application_id: number;
  product_name: string;
  status: "active" | "closed";
  /** Open, frozen, closed to draws (being repaid), or closed and paid (docs/product.md#line-of-credit-servicing). */
  state: LineState;
  /** Why the member cannot draw, in their words; null when they can. */
  draws_stopped: string | null;
  closed_on: string | null;
  credit_limit_cents: number;
  /** The principal drawn and not paid back. */
  drawn_cents: number;
  /** Everything owed: principal, interest accrued and unpaid, fees. */
  balance_cents: number;
  interest_cents: number;
  fees_cents: number;
  available_cents: number;
  rate_ppm: number;
  opened_on: string;
  /** What is left of the latest cycle's minimum, and its due date; null when nothing is due. */
  minimum_due: { amount_cents: number; due_on: string } | null;
  next_cycle_close_on: string;
  autopay_account_id: number | null;
}

function lineView(line: CreditLineRow, owed: LoanOwed, cycle: CreditLineCycleRow | null): MemberLineView {
  const balance = totalOwed(owed);
  const left = Math.min(minimumLeft(cycle), balance);
  return {
    id: line.id,
    number: lineNumber(line.id),
    application_id: line.application_id,
    product_name: line.product_name,
    status: line.status,
    state: lineState(line),
    draws_stopped: drawsStoppedMessage(line),
    closed_on: line.closed_on,
    credit_limit_cents: line.credit_limit_cents,
    drawn_cents: owed.principal_cents,
    balance_cents: balance,
    interest_cents: owed.interest_cents,
    fees_cents: owed.fees_cents,
    // Nothing can be drawn from a frozen or closed line, whatever the limit leaves.
    available_cents: drawsStoppedMessage(line) ? 0 : availableCredit(line.credit_limit_cents, balance),
    rate_ppm: line.rate_ppm,
    opened_on: line.opened_on,
    minimum_due: cycle && left > 0 ? { amount_cents: left, due_on: cycle.due_on } : null,
    next_cycle_close_on: line.next_cycle_close_on,
    autopay_account_id: line.autopay_account_id,
  };
}

/** The member's lines of credit, newest first (the Loans page and the dashboard). */
export async function memberLines(db: DbOrTx, member_id: string, now: Date = new Date()): Promise<MemberLineView[]> {
  const rows = await db
    .select()
    .from(creditLines)
    .where(eq(creditLines.member_id, member_id))
    .orderBy(desc(creditLines.id));
  const views: MemberLineView[] = [];
  for (const line of rows)
    views.push(lineView(line, await lineOwed(db, line), await latestCycle(db, line.id, today(now))));
  return views;
}

export interface MemberLineDetail extends MemberLineView {
  activity: {
    id: number;
    kind: "draw" | "payment" | "autopay";
    on: string;
    amount_cents: number;
    fees_cents: number;
    interest_cents: number;
    principal_cents: number;
    account_name: string;
  }[];
  cycles: {
    closed_on: string;
    due_on: string;
    balance_cents: number;
    minimum_due_cents: number;
    paid_cents: number;
    late_fee_charged: boolean;
  }[];
  /** What was changed on the line after it opened, newest first; an APR change waiting for its day included. */
  changes: { id: number; summary: string; on: string; scheduled: boolean; note: string | null }[];
  /** An APR change told and waiting for its day (Regulation Z 1026.9(c)(2)), or null. */
  scheduled_rate: { rate_ppm: number; effective_on: string } | null;
}

/** One of the member's own lines with its draws, payments and cycles; null for another member's or none. */
export async function memberLineDetail(
  db: DbOrTx,
  member_id: string,
  line_id: number,
  now: Date = new Date(),
): Promise<MemberLineDetail | null> {
  const [line] = await db
    .select()
    .from(creditLines)
    .where(and(eq(creditLines.id, line_id), eq(creditLines.member_id, member_id)));
  if (!line) return null;
  const view = lineView(line, await lineOwed(db, line), await latestCycle(db, line.id, today(now)));
  const activityRows = await db
    .select({ a: creditLineActivity, account_name: ledgerAccounts.name })
    .from(creditLineActivity)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, creditLineActivity.account_id))
    .where(eq(creditLineActivity.line_id, line.id))
    .orderBy(desc(creditLineActivity.id))
    .limit(100);
  const cycles = await db
    .select()
    .from(creditLineCycles)
    .where(eq(creditLineCycles.line_id, line.id))
    .orderBy(desc(creditLineCycles.closed_on))
    .limit(24);
  const changes = await db
    .select()
    .from(creditLineChanges)
    .where(eq(creditLineChanges.line_id, line.id))
    .orderBy(desc(creditLineChanges.id))
    .limit(50);
  const scheduled = changes.find((c) => c.kind === "rate" && c.status === "scheduled");
  return {
    ...view,
    activity: activityRows.map(({ a, account_name }) => ({
      id: a.id,
      kind: a.kind,
      on: a.on,
      amount_cents: a.amount_cents,
      fees_cents: a.fees_cents,
      interest_cents: a.interest_cents,
      principal_cents: a.principal_cents,
      account_name,
    })),
    cycles: cycles.map((c) => ({
      closed_on: c.closed_on,
      due_on: c.due_on,
      balance_cents: c.balance_cents,
      minimum_due_cents: c.minimum_due_cents,
      paid_cents: c.paid_cents,
      late_fee_charged: c.late_fee_charged,
    })),
    changes: changes.map((c) => ({
      id: c.id,
      summary: lineChangeSummary(c),
      on: today(c.created_at),
      scheduled: c.status === "scheduled",
      // The member reads staff's own words only for a rate or limit change's stated reason.
      note: c.kind === "rate" || c.kind === "limit" ? c.note : null,
    })),
    scheduled_rate: scheduled ? { rate_ppm: scheduled.rate_to_ppm!, effective_on: scheduled.effective_on } : null,
  };
}

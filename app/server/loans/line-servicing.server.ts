import { and, asc, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { creditLineCycles, creditLines, type CreditLineRow } from "~/server/db/schema";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer, today } from "~/server/ledger/ledger.server";
import { notify } from "~/server/notifications/notifications.server";
import { logger } from "~/server/logger.server";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { addCalendarDays } from "~/domain/payment-dates";
import { totalOwed } from "~/domain/loans/servicing";
import { LINE_PAYMENT_DUE_DAYS, cycleCloseOn, cycleMinimumDue } from "~/domain/loans/line-of-credit";
import { memberOf } from "./applications.server";
import {
  SYSTEM,
  accrueTo,
  latestCycle,
  lineNumber,
  lineOwed,
  lockLine,
  minimumLeft,
  payLine,
  type Tx,
} from "./lines-of-credit.server";

/**
 * The nightly servicing of the lines of credit (docs/product.md#lines-of-credit), run by the
 * loan-servicing job after the loans: interest, the month's billing cycle and its minimum
 * payment, autopay of a due minimum, the late fee. Each step in its own transaction under the
 * line's row lock, as a draw or a payment (./lines-of-credit.server.ts).
 */

export interface LineServicingRun {
  lines: number;
  interest_cents: number;
  cycles_closed: number;
  autopay_paid: number;
  autopay_failed: number;
  late_fees: number;
  failed: number;
}

/**
 * For each open line, in its own transactions: accrue interest to today; close each billing cycle
 * whose day has come (the balance, the minimum by the rule plus any minimum left unpaid, the due
 * date LINE_PAYMENT_DUE_DAYS later); autopay a due minimum on its due date; charge the late fee
 * once for a cycle whose minimum is still unpaid after the grace days. A second run the same day
 * does nothing more. One line's failure is logged and the others go on.
 */
export async function runLineServicing(db: Db, now: Date = new Date()): Promise<LineServicingRun> {
  const day = today(now);
  const open = await db
    .select({ id: creditLines.id })
    .from(creditLines)
    .where(eq(creditLines.status, "active"))
    .orderBy(asc(creditLines.id));
  const run: LineServicingRun = {
    lines: open.length,
    interest_cents: 0,
    cycles_closed: 0,
    autopay_paid: 0,
    autopay_failed: 0,
    late_fees: 0,
    failed: 0,
  };
  for (const { id } of open) {
    try {
      const step = await db.transaction(async (tx) => {
        const line = await lockLine(tx, id);
        if (!line) return { interest: 0, cycles: 0 };
        const after = await accrueTo(tx, line, day);
        const cycles = await closeCycles(tx, after, day, now);
        return { interest: after.accrued_interest_cents - line.accrued_interest_cents, cycles };
      });
      run.interest_cents += step.interest;
      run.cycles_closed += step.cycles;
      const autopay = await autopayLine(db, id, now);
      if (autopay === "paid") run.autopay_paid++;
      if (autopay === "failed") run.autopay_failed++;
      run.late_fees += await chargeLineLateFees(db, id, day, now);
    } catch (error) {
      run.failed++;
      logger.error({ err: error, line_id: id }, "line of credit servicing failed for a line");
    }
  }
  return run;
}

async function closeCycles(tx: Tx, line: CreditLineRow, day: string, now: Date): Promise<number> {
  let closed = 0;
  let next_close = line.next_cycle_close_on;
  let count = line.cycles_closed;
  while (next_close <= day) {
    const balance = totalOwed(await lineOwed(tx, line));
    const previous = await latestCycle(tx, line.id, next_close);
    const minimum = cycleMinimumDue(
      balance,
      { percent_ppm: line.minimum_payment_ppm, floor_cents: line.minimum_payment_floor_cents },
      minimumLeft(previous),
    );
    const due_on = addCalendarDays(next_close, LINE_PAYMENT_DUE_DAYS);
    await tx.insert(creditLineCycles).values({
      line_id: line.id,
      closed_on: next_close,
      due_on,
      balance_cents: balance,
      minimum_due_cents: minimum,
    });
    if (minimum > 0)
      await notify(tx, {
        member_id: line.member_id,
        kind: "loan_update",
        title: `Your ${line.product_name.toLowerCase()}: ${formatCents(minimum)} minimum due ${formatBusinessDate(due_on)}`,
        body: `${lineNumber(line.id)}'s cycle closed ${formatBusinessDate(next_close)} with a balance of ${formatCents(balance)}. Pay at least ${formatCents(minimum)} by ${formatBusinessDate(due_on)} under Loans.`,
        at: now,
      });
    count++;
    closed++;
    next_close = cycleCloseOn(line.opened_on, count + 1);
  }
  if (closed > 0)
    await tx
      .update(creditLines)
      .set({ next_cycle_close_on: next_close, cycles_closed: count })
      .where(eq(creditLines.id, line.id));
  return closed;
}

async function autopayLine(db: Db, line_id: number, now: Date): Promise<"paid" | "failed" | null> {
  const day = today(now);
  const [line] = await db.select().from(creditLines).where(eq(creditLines.id, line_id));
  if (!line || line.status !== "active" || line.autopay_account_id === null) return null;
  const cycle = await latestCycle(db, line.id, day);
  if (!cycle || cycle.due_on > day || cycle.autopay_failed || minimumLeft(cycle) === 0) return null;
  const member = await memberOf(db, line.member_id);
  const answer = await payLine(
    db,
    member,
    {
      line_id: line.id,
      from_account_id: line.autopay_account_id,
      amount: { kind: "next_due" },
      idempotency_key: `autopay:${cycle.due_on}`,
    },
    null,
    now,
    "autopay",
  );
  if (answer.ok) return answer.replayed ? null : "paid";
  // Told once per due date: the member pays by hand, and the late fee follows after the grace days.
  await db.transaction(async (tx) => {
    await tx.update(creditLineCycles).set({ autopay_failed: true }).where(eq(creditLineCycles.id, cycle.id));
    await notify(tx, {
      member_id: line.member_id,
      kind: "loan_update",
      title: `Your ${line.product_name.toLowerCase()} autopay could not be made`,
      body: `The minimum payment due ${formatBusinessDate(cycle.due_on)} on ${lineNumber(line.id)} was not taken: ${answer.message}. Please pay it under Loans within ${line.grace_days} days to avoid a late fee.`,
      at: now,
    });
  });
  return "failed";
}

async function chargeLineLateFees(db: Db, line_id: number, day: string, now: Date): Promise<number> {
  const cycles = await db
    .select()
    .from(creditLineCycles)
    .where(and(eq(creditLineCycles.line_id, line_id), eq(creditLineCycles.late_fee_charged, false)))
    .orderBy(asc(creditLineCycles.closed_on));
  let charged = 0;
  for (const candidate of cycles) {
    const done = await db.transaction(async (tx) => {
      const line = await lockLine(tx, line_id);
      if (!line || line.status !== "active" || line.late_fee_cents <= 0) return false;
      const [cycle] = await tx.select().from(creditLineCycles).where(eq(creditLineCycles.id, candidate.id));
      if (!cycle || cycle.late_fee_charged || minimumLeft(cycle) === 0) return false;
      if (addCalendarDays(cycle.due_on, line.grace_days) >= day) return false;
      const fees = await institutionAccount(tx, "fees_income");
      const posted = await postTransfer(tx, {
        idempotency_key: `line:${line_id}:late-fee:${cycle.due_on}`,
        initiator: SYSTEM,
        kind: "loan_fee",
        created_by: "line-servicing",
        memo: `${lineNumber(line_id)}: late fee, minimum due ${cycle.due_on}`,
        category: "Fees",
        effective_date: day,
        entries: [
          { account_id: line.receivable_account_id, amount_cents: -line.late_fee_cents },
          { account_id: fees.id, amount_cents: line.late_fee_cents },
        ],
      });
      if (!posted.ok) throw new Error(`line ${line_id}: late fee could not be posted (${posted.code})`);
      await tx.update(creditLineCycles).set({ late_fee_charged: true }).where(eq(creditLineCycles.id, cycle.id));
      await tx
        .update(creditLines)
        .set({ fees_due_cents: line.fees_due_cents + line.late_fee_cents })
        .where(eq(creditLines.id, line_id));
      await notify(tx, {
        member_id: line.member_id,
        kind: "loan_update",
        title: `A late fee was charged on your ${line.product_name.toLowerCase()}`,
        body: `The minimum payment due ${formatBusinessDate(cycle.due_on)} on ${lineNumber(line_id)} was not paid within ${line.grace_days} days, so the ${formatCents(line.late_fee_cents)} late fee was added. Please pay under Loans.`,
        at: now,
      });
      return true;
    });
    if (done) charged++;
  }
  return charged;
}

import type { Actor } from "~/domain/actor";
import { referenceNumber } from "~/domain/account-display";
import "../member-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { pino } from "pino";
import type { Database } from "~/server/db/client.server";
import {
  auditLog,
  billPayees,
  billPayments,
  billPaymentSeries,
  jobRuns,
  ledgerTransactions,
  notifications,
} from "~/server/db/schema";
import { getBalances, institutionAccount, setAccountStatus } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { addPayee } from "~/server/bill-pay/payees.server";
import { cancelBillPayment, editBillPayment, scheduleBillPayment } from "~/server/bill-pay/bill-pay.server";
import { payDueBillPayments } from "~/server/bill-pay/due-payments.server";
import { billPaymentsJob } from "~/server/jobs/registry.server";
import { JobRunner } from "~/server/jobs/runner.server";
import { manualJobClock } from "~/server/jobs/clock.server";
import type { JobDefinition } from "~/server/jobs/job";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { businessDayOnOrAfter } from "~/domain/payment-dates";
import { billPaySchema, editBillPaymentSchema } from "~/domain/bill-pay";
import { addDays, seriesPaymentDate, type SeriesRule } from "~/domain/schedule";
import { openTestDatabase } from "../test-database";
import { key, newMember } from "../member-support";
import { deposit, expectLedgerVerifies } from "../ledger-fixtures";
import { staff } from "../../factories";
import { reverseMemberTransaction } from "~/server/member-accounts/reversals.server";
import { memberTransactionsPage } from "~/server/member-accounts/transactions.server";
import { memberAccounts } from "~/server/ledger/accounts.server";
import {
  memberHistoryCsv,
  memberHistoryPage,
  parseHistoryFilters,
  type MemberTransaction,
} from "~/server/accounts/history.server";
import { dashboard } from "~/server/accounts/overview.server";

/**
 * Bill Pay's service and job (docs/product.md#bill-pay) on PGlite and PostgreSQL: scheduling holds
 * the amount; the job pays it on its date (the hold settles against the bill-pay settlement
 * account) or fails it for its reason (the hold released, the member told); Cancel releases the
 * hold; Edit re-holds in one transaction; a recurring series schedules its next payment; another
 * member's account or payee is refused. The ledger verifies after each test.
 */
let database: Database;
let db: Database["db"];
const ORIGIN = { request_id: "bill-pay-test-0001", ip: "203.0.113.7" };
const today = businessDate(institution().time_zone);
/** The first day a payment may fall on. */
const first_day = businessDayOnOrAfter(addDays(today, 1));
const second_day = businessDayOnOrAfter(addDays(first_day, 1));

/** A business date as the member's pages write it: "Nov 30, 2026". */
const pageDate = (date: string) =>
  new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" }).format(
    new Date(`${date}T12:00:00Z`),
  );

/** Noon in the credit union's time zone on `date` (its business date is `date` in any US zone). */
function on(date: string): Date {
  return new Date(`${date}T17:00:00Z`);
}

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});

async function balances(account_id: number) {
  const [a] = await getBalances(db, [account_id]);
  return { current: a!.current_cents, held: a!.held_cents, available: a!.available_cents };
}

function form(fields: Record<string, string>) {
  return billPaySchema(today).parse({ payee_account_number: "", memo: "", idempotency_key: key(), ...fields });
}

async function member(checking_cents: number) {
  const m = await newMember(db, { checking_cents, savings_cents: 10_000 });
  const who: Actor = { id: m.member.id, email: m.member.email };
  const payee = await addPayee(
    db,
    who,
    { name: "City Power", account_number: "ACCT-1234 56", address: "1 Grid Road" },
    ORIGIN,
  );
  if (!payee.ok) throw new Error(payee.message);
  return { ...m, who, payee_id: payee.payee.id };
}

async function payment(id: number) {
  const [row] = await db.select().from(billPayments).where(eq(billPayments.id, id));
  return row!;
}

async function transactionStatus(id: number) {
  const [row] = await db
    .select({ status: ledgerTransactions.status })
    .from(ledgerTransactions)
    .where(eq(ledgerTransactions.id, id));
  return row!.status;
}

async function note(member_id: string, kind: (typeof notifications.$inferSelect)["kind"]) {
  const [row] = await db
    .select()
    .from(notifications)
    .where(and(eq(notifications.member_id, member_id), eq(notifications.kind, kind)));
  return row!;
}

async function kindsOfNotifications(member_id: string) {
  return (
    await db.select({ kind: notifications.kind }).from(notifications).where(eq(notifications.member_id, member_id))
  ).map((n) => n.kind);
}

describe("a one-off payment", () => {
  it("is held when scheduled, once per key, and paid by the job on its date against the bill-pay settlement account", async () => {
    const m = await member(50_000);
    const settlement = await institutionAccount(db, "bill_pay_settlement");
    const settlementBefore = (await getBalances(db, [settlement.id]))[0]!.current_cents;
    const f = form({
      payee: `payee:${m.payee_id}`,
      from_account_id: String(m.checking.id),
      amount: "125.50",
      payment_date: first_day,
      memo: "November",
    });
    const done = await scheduleBillPayment(db, m.who, f, ORIGIN);
    expect(done).toMatchObject({
      ok: true,
      amount_cents: 12_550,
      payment_date: first_day,
      payee_name: "City Power",
      replayed: false,
    });
    if (!done.ok) return;
    expect(await balances(m.checking.id)).toEqual({ current: 50_000, held: 12_550, available: 37_450 });
    const scheduled = await payment(done.payment_id);
    expect(scheduled).toMatchObject({
      status: "scheduled",
      amount_cents: 12_550,
      payment_date: first_day,
      memo: "November",
    });
    expect(await transactionStatus(scheduled.hold_transaction_id!)).toBe("pending");

    // The same submission again (a double click, a retry) holds nothing more.
    expect(await scheduleBillPayment(db, m.who, f, ORIGIN)).toMatchObject({
      ok: true,
      payment_id: done.payment_id,
      replayed: true,
    });
    expect((await balances(m.checking.id)).held).toBe(12_550);
    expect(await kindsOfNotifications(m.member.id)).toEqual(["payment_pending"]);

    // The day before, nothing is due; on the date it is paid; a second run pays nothing again.
    expect(await payDueBillPayments(db, on(today))).toMatchObject({ paid: 0, failed: 0 });
    expect(await payDueBillPayments(db, on(first_day))).toMatchObject({ date: first_day, paid: 1, failed: 0 });
    expect(await payDueBillPayments(db, on(first_day))).toMatchObject({ paid: 0, failed: 0 });
    const paid = await payment(done.payment_id);
    expect(paid).toMatchObject({ status: "paid", failure_reason: null, resolved_by: "system:bill-pay" });
    expect(await transactionStatus(paid.hold_transaction_id!)).toBe("posted");
    expect(await balances(m.checking.id)).toEqual({ current: 37_450, held: 0, available: 37_450 });
    expect((await getBalances(db, [settlement.id]))[0]!.current_cents).toBe(settlementBefore + 12_550);
    expect(await kindsOfNotifications(m.member.id)).toEqual(["payment_pending", "bill_paid"]);
    // The dates in the pages' words ("Nov 30, 2026"), never 2026-11-30.
    expect((await note(m.member.id, "payment_pending")).title).toBe(
      `Bill payment of $125.50 to City Power is scheduled for ${pageDate(first_day)}`,
    );
    expect((await note(m.member.id, "bill_paid")).body).toBe(
      `Your payment to City Power ••3456 was paid on ${pageDate(first_day)}.`,
    );
    const audit = await db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(eq(auditLog.member_id, m.member.id));
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(["bill_pay.payee_add", "bill_pay.schedule", "bill_pay.paid"]),
    );
    await expectLedgerVerifies(db);
  });

  it("fails on its date when the account was frozen since: the hold is released and the member told why", async () => {
    const m = await member(20_000);
    const done = await scheduleBillPayment(
      db,
      m.who,
      form({
        payee: `payee:${m.payee_id}`,
        from_account_id: String(m.checking.id),
        amount: "50",
        payment_date: first_day,
      }),
      ORIGIN,
    );
    if (!done.ok) throw new Error(done.message);
    expect((await setAccountStatus(db, m.checking.id, "frozen")).ok).toBe(true);
    expect(await payDueBillPayments(db, on(first_day))).toMatchObject({ paid: 0, failed: 1 });
    const failed = await payment(done.payment_id);
    expect(failed).toMatchObject({
      status: "failed",
      failure_reason: "Transactions on this account are blocked for security reasons.",
    });
    expect(await transactionStatus(failed.hold_transaction_id!)).toBe("failed");
    expect(await balances(m.checking.id)).toEqual({ current: 20_000, held: 0, available: 20_000 });
    const [told] = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "bill_payment_failed")));
    // Dates in the pages' words; the reason a sentence of its own, ended once.
    expect(told!.body).toBe(
      `The payment of ${pageDate(first_day)} was not made: Transactions on this account are blocked for security reasons. The $50.00 held for it is available again.`,
    );
    await expectLedgerVerifies(db);
  });

  it("is refused, holding nothing, above the available balance, from another member's account, from savings, or to another member's payee", async () => {
    const m = await member(10_000);
    const other = await member(10_000);
    const base = {
      payee: `payee:${m.payee_id}`,
      from_account_id: String(m.checking.id),
      amount: "50",
      payment_date: first_day,
    };
    expect(await scheduleBillPayment(db, m.who, form({ ...base, amount: "100.01" }), ORIGIN)).toMatchObject({
      ok: false,
      message: "Insufficient funds",
      field: "amount",
    });
    expect(
      await scheduleBillPayment(db, m.who, form({ ...base, from_account_id: String(other.checking.id) }), ORIGIN),
    ).toMatchObject({ ok: false, message: "Please choose one of your accounts", field: "from_account_id" });
    expect(
      await scheduleBillPayment(db, m.who, form({ ...base, from_account_id: String(m.savings.id) }), ORIGIN),
    ).toMatchObject({ ok: false, field: "from_account_id" });
    expect(
      await scheduleBillPayment(db, m.who, form({ ...base, payee: `payee:${other.payee_id}` }), ORIGIN),
    ).toMatchObject({ ok: false, message: "Please choose a payee", field: "payee" });
    expect(await balances(m.checking.id)).toEqual({ current: 10_000, held: 0, available: 10_000 });
    expect(await balances(other.checking.id)).toEqual({ current: 10_000, held: 0, available: 10_000 });
    expect(await db.select().from(billPayments).where(eq(billPayments.member_id, m.member.id))).toEqual([]);
    await expectLedgerVerifies(db);
  });

  it("a quick pick is saved as a payee with its account number, once", async () => {
    const m = await member(10_000);
    const pick = {
      payee: "pick:0",
      payee_account_number: "99-1234",
      from_account_id: String(m.checking.id),
      amount: "10",
      payment_date: first_day,
    };
    expect(await scheduleBillPayment(db, m.who, form(pick), ORIGIN)).toMatchObject({
      ok: true,
      payee_name: institution().bill_pay_quick_picks[0],
    });
    expect(await scheduleBillPayment(db, m.who, form(pick), ORIGIN)).toMatchObject({ ok: true, replayed: false });
    const payees = await db
      .select()
      .from(billPayees)
      .where(and(eq(billPayees.member_id, m.member.id), eq(billPayees.account_number, "99-1234")));
    expect(payees).toHaveLength(1);
    await expectLedgerVerifies(db);
  });
});

describe("cancel and edit before the date", () => {
  it("Cancel releases the hold; a second cancel, another member's cancel and a cancel on the date are refused", async () => {
    const m = await member(30_000);
    const other = await member(1_000);
    const done = await scheduleBillPayment(
      db,
      m.who,
      form({
        payee: `payee:${m.payee_id}`,
        from_account_id: String(m.checking.id),
        amount: "75",
        payment_date: first_day,
      }),
      ORIGIN,
    );
    if (!done.ok) throw new Error(done.message);
    expect(await cancelBillPayment(db, other.who, done.payment_id, ORIGIN)).toMatchObject({
      ok: false,
      kind: "not_found",
      message: "This payment was not found.",
    });
    expect(await cancelBillPayment(db, m.who, done.payment_id, ORIGIN, on(first_day))).toMatchObject({
      ok: false,
      kind: "conflict",
    });
    expect((await balances(m.checking.id)).held).toBe(7_500);
    expect(await cancelBillPayment(db, m.who, done.payment_id, ORIGIN)).toEqual({
      ok: true,
      released_cents: 7_500,
      series_ended: false,
    });
    expect(await balances(m.checking.id)).toEqual({ current: 30_000, held: 0, available: 30_000 });
    expect(await cancelBillPayment(db, m.who, done.payment_id, ORIGIN)).toMatchObject({
      ok: false,
      kind: "conflict",
      message: "This payment was already cancelled.",
    });
    const cancelled = await payment(done.payment_id);
    expect(cancelled.status).toBe("cancelled");
    expect(await transactionStatus(cancelled.hold_transaction_id!)).toBe("failed");
    // The job does not pay it.
    await payDueBillPayments(db, on(first_day));
    expect((await payment(done.payment_id)).status).toBe("cancelled");
    expect(await kindsOfNotifications(m.member.id)).toEqual(["payment_pending", "payment_cancelled"]);
    expect((await note(m.member.id, "payment_cancelled")).body).toBe(
      `You cancelled the payment of ${pageDate(first_day)}. $75.00 is available again.`,
    );
    await expectLedgerVerifies(db);
  });

  it("staff cannot release a scheduled payment's hold from the member's transactions: the payment would wait on money no longer held", async () => {
    const m = await member(30_000);
    const done = await scheduleBillPayment(
      db,
      m.who,
      form({
        payee: `payee:${m.payee_id}`,
        from_account_id: String(m.checking.id),
        amount: "40",
        payment_date: first_day,
      }),
      ORIGIN,
    );
    if (!done.ok) throw new Error(done.message);
    const hold_id = (await payment(done.payment_id)).hold_transaction_id!;
    const admin = await staff(db);
    expect((await memberTransactionsPage(db, m.member.id)).rows.find((r) => r.id === hold_id)).toMatchObject({
      status: "pending",
      pending_owner: "bill_payment",
    });
    expect(
      await reverseMemberTransaction(db, {
        staff: admin,
        origin: ORIGIN,
        member_id: m.member.id,
        transaction_id: hold_id,
      }),
    ).toMatchObject({ ok: false, code: "resolved_elsewhere" });
    expect(await transactionStatus(hold_id)).toBe("pending");
    // The member's Cancel and the job still work on it.
    expect(await cancelBillPayment(db, m.who, done.payment_id, ORIGIN)).toEqual({
      ok: true,
      released_cents: 4_000,
      series_ended: false,
    });
    const paid = await scheduleBillPayment(
      db,
      m.who,
      form({
        payee: `payee:${m.payee_id}`,
        from_account_id: String(m.checking.id),
        amount: "25",
        payment_date: first_day,
      }),
      ORIGIN,
    );
    if (!paid.ok) throw new Error(paid.message);
    await payDueBillPayments(db, on(first_day));
    expect((await payment(paid.payment_id)).status).toBe("paid");
    await expectLedgerVerifies(db);
  });

  it("Edit re-holds in one transaction: only the difference must be available; a refusal keeps the old hold; a repeat changes nothing", async () => {
    const m = await member(10_000);
    const done = await scheduleBillPayment(
      db,
      m.who,
      form({
        payee: `payee:${m.payee_id}`,
        from_account_id: String(m.checking.id),
        amount: "60",
        payment_date: first_day,
      }),
      ORIGIN,
    );
    if (!done.ok) throw new Error(done.message);
    const before = await payment(done.payment_id);
    const edit = (amount: string, payment_date = second_day, idempotency_key = key()) =>
      editBillPaymentSchema(today).parse({
        payment_id: String(done.payment_id),
        amount,
        payment_date,
        memo: "Changed",
        idempotency_key,
      });

    // $100.01 is more than the $40 free plus the $60 given back.
    expect(await editBillPayment(db, m.who, edit("100.01"), ORIGIN)).toMatchObject({
      ok: false,
      message: "Insufficient funds",
      field: "amount",
    });
    expect(await payment(done.payment_id)).toMatchObject({
      amount_cents: 6_000,
      payment_date: first_day,
      hold_transaction_id: before.hold_transaction_id,
    });
    expect(await transactionStatus(before.hold_transaction_id!)).toBe("pending");
    expect(await balances(m.checking.id)).toEqual({ current: 10_000, held: 6_000, available: 4_000 });

    // $100.00 is exactly what there is.
    const change = edit("100");
    expect(await editBillPayment(db, m.who, change, ORIGIN)).toEqual({
      ok: true,
      payment_id: done.payment_id,
      replayed: false,
    });
    const after = await payment(done.payment_id);
    expect(after).toMatchObject({
      amount_cents: 10_000,
      payment_date: second_day,
      memo: "Changed",
      status: "scheduled",
    });
    expect(after.hold_transaction_id).not.toBe(before.hold_transaction_id);
    expect(await transactionStatus(before.hold_transaction_id!)).toBe("failed");
    expect(await transactionStatus(after.hold_transaction_id!)).toBe("pending");
    expect(await balances(m.checking.id)).toEqual({ current: 10_000, held: 10_000, available: 0 });
    expect(await editBillPayment(db, m.who, change, ORIGIN)).toEqual({
      ok: true,
      payment_id: done.payment_id,
      replayed: true,
    });
    expect((await balances(m.checking.id)).held).toBe(10_000);

    // Not paid on the old date; paid on the new one.
    expect(await payDueBillPayments(db, on(first_day))).toMatchObject({ paid: 0 });
    expect(await payDueBillPayments(db, on(second_day))).toMatchObject({ paid: 1 });
    expect(await balances(m.checking.id)).toEqual({ current: 0, held: 0, available: 0 });
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.member_id, m.member.id), eq(auditLog.action, "bill_pay.edit")));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.before).toMatchObject({ amount_cents: 6_000, payment_date: first_day });
    await expectLedgerVerifies(db);
  });
});

describe("a recurring series", () => {
  it("schedules and holds its next payment after each one, and ends after its count", async () => {
    const m = await member(100_000);
    const done = await scheduleBillPayment(
      db,
      m.who,
      form({
        payee: `payee:${m.payee_id}`,
        from_account_id: String(m.checking.id),
        amount: "20",
        payment_date: first_day,
        frequency: "weeks",
        every_weeks: "1",
        ends: "count",
        payment_count: "3",
      }),
      ORIGIN,
    );
    if (!done.ok) throw new Error(done.message);
    const [series] = await db.select().from(billPaymentSeries).where(eq(billPaymentSeries.member_id, m.member.id));
    const rule: SeriesRule = {
      frequency: "weeks",
      interval_weeks: 1,
      first_date: first_day,
      end_date: null,
      payment_count: 3,
    };
    const dates = [1, 2, 3].map((n) => seriesPaymentDate(rule, n));
    for (const [i, date] of dates.entries()) {
      expect(await payDueBillPayments(db, on(date))).toMatchObject({
        paid: 1,
        failed: 0,
        next_scheduled: i < 2 ? 1 : 0,
      });
    }
    const rows = await db
      .select()
      .from(billPayments)
      .where(eq(billPayments.series_id, series!.id))
      .orderBy(billPayments.sequence);
    expect(rows.map((r) => [r.sequence, r.payment_date, r.status])).toEqual(dates.map((d, i) => [i + 1, d, "paid"]));
    expect((await db.select().from(billPaymentSeries).where(eq(billPaymentSeries.id, series!.id)))[0]!.status).toBe(
      "ended",
    );
    expect(await balances(m.checking.id)).toEqual({ current: 94_000, held: 0, available: 94_000 });
    await expectLedgerVerifies(db);
  });

  it("a payment the money was not there for is scheduled without a hold and fails for insufficient funds on its date; the series goes on", async () => {
    const m = await member(40_000);
    const done = await scheduleBillPayment(
      db,
      m.who,
      form({
        payee: `payee:${m.payee_id}`,
        from_account_id: String(m.checking.id),
        amount: "300",
        payment_date: first_day,
        frequency: "monthly",
        ends: "count",
        payment_count: "3",
      }),
      ORIGIN,
    );
    if (!done.ok) throw new Error(done.message);
    // The member spends the rest: $300 left, all of it held.
    const cash = await institutionAccount(db, "cash");
    const spent = await postTransfer(db, {
      kind: "withdrawal",
      initiator: "staff:test",
      created_by: "staff:test",
      idempotency_key: key(),
      entries: [
        { account_id: m.checking.id, amount_cents: -10_000 },
        { account_id: cash.id, amount_cents: 10_000 },
      ],
    });
    expect(spent.ok).toBe(true);
    const rule: SeriesRule = {
      frequency: "monthly",
      interval_weeks: null,
      first_date: first_day,
      end_date: null,
      payment_count: 3,
    };
    const [d1, d2, d3] = [1, 2, 3].map((n) => seriesPaymentDate(rule, n)) as [string, string, string];

    expect(await payDueBillPayments(db, on(d1))).toMatchObject({ paid: 1, next_scheduled: 1 });
    const [second] = await db
      .select()
      .from(billPayments)
      .where(and(eq(billPayments.member_id, m.member.id), eq(billPayments.sequence, 2)));
    expect(second).toMatchObject({ status: "scheduled", payment_date: d2, hold_transaction_id: null });
    const paidNote = (
      await db
        .select()
        .from(notifications)
        .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "bill_paid")))
    )[0]!;
    expect(paidNote.body).toContain(`The next payment is scheduled for ${pageDate(d2)} (it is not held yet`);

    expect(await payDueBillPayments(db, on(d2))).toMatchObject({ paid: 0, failed: 1, next_scheduled: 1 });
    expect(await payment(second!.id)).toMatchObject({
      status: "failed",
      failure_reason: "Insufficient funds on the payment date",
      paid_transaction_id: null,
    });
    const [told] = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "bill_payment_failed")));
    expect(told!.title).toBe("Bill payment of $300.00 to City Power failed");
    expect(await balances(m.checking.id)).toEqual({ current: 0, held: 0, available: 0 });

    // Money arrives before the third date: paid without a hold, and the series ends.
    await deposit(db, m.checking.id, 50_000);
    expect(await payDueBillPayments(db, on(d3))).toMatchObject({ paid: 1, next_scheduled: 0 });
    const [third] = await db
      .select()
      .from(billPayments)
      .where(and(eq(billPayments.member_id, m.member.id), eq(billPayments.sequence, 3)));
    expect(third).toMatchObject({ status: "paid", hold_transaction_id: null });
    expect(await transactionStatus(third!.paid_transaction_id!)).toBe("posted");
    expect(await balances(m.checking.id)).toEqual({ current: 20_000, held: 0, available: 20_000 });
    await expectLedgerVerifies(db);
  });

  it("Edit keeps a recurring payment before the series' next one", async () => {
    const m = await member(10_000);
    const done = await scheduleBillPayment(
      db,
      m.who,
      form({
        payee: `payee:${m.payee_id}`,
        from_account_id: String(m.checking.id),
        amount: "10",
        payment_date: first_day,
        frequency: "weeks",
        every_weeks: "1",
        ends: "count",
        payment_count: "2",
      }),
      ORIGIN,
    );
    if (!done.ok) throw new Error(done.message);
    const rule: SeriesRule = {
      frequency: "weeks",
      interval_weeks: 1,
      first_date: first_day,
      end_date: null,
      payment_count: 2,
    };
    const next = seriesPaymentDate(rule, 2);
    const edit = (payment_date: string) =>
      editBillPaymentSchema(today).parse({
        payment_id: String(done.payment_id),
        amount: "10",
        payment_date,
        memo: "",
        idempotency_key: key(),
      });
    expect(await editBillPayment(db, m.who, edit(next), ORIGIN)).toEqual({
      ok: false,
      kind: "bad_input",
      field: "payment_date",
      message: `A recurring payment's date must be before the series' next payment (${pageDate(next)}).`,
    });
    expect((await payment(done.payment_id)).payment_date).toBe(first_day);
    expect(await editBillPayment(db, m.who, edit(second_day), ORIGIN)).toMatchObject({ ok: true });
    await expectLedgerVerifies(db);
  });

  it("Cancel on a recurring payment releases its hold and ends the series", async () => {
    const m = await member(10_000);
    const done = await scheduleBillPayment(
      db,
      m.who,
      form({
        payee: `payee:${m.payee_id}`,
        from_account_id: String(m.checking.id),
        amount: "10",
        payment_date: first_day,
        frequency: "monthly",
        ends: "date",
        end_date: addDays(first_day, 200),
      }),
      ORIGIN,
    );
    if (!done.ok) throw new Error(done.message);
    expect(await cancelBillPayment(db, m.who, done.payment_id, ORIGIN)).toEqual({
      ok: true,
      released_cents: 1_000,
      series_ended: true,
    });
    await payDueBillPayments(db, on(addDays(first_day, 40)));
    expect(await db.select().from(billPayments).where(eq(billPayments.member_id, m.member.id))).toHaveLength(1);
    await expectLedgerVerifies(db);
  });
});

describe("the bill-payments job", () => {
  it("runs on the job clock: a payment due tomorrow is paid once the clock passes 6:00 on its date", async () => {
    const m = await member(5_000);
    const done = await scheduleBillPayment(
      db,
      m.who,
      form({
        payee: `payee:${m.payee_id}`,
        from_account_id: String(m.checking.id),
        amount: "5",
        payment_date: first_day,
      }),
      ORIGIN,
    );
    if (!done.ok) throw new Error(done.message);
    const start = new Date();
    const clock = manualJobClock(start);
    const runner = new JobRunner({
      db,
      kind: database.kind,
      clock,
      jobs: [billPaymentsJob as JobDefinition<never>],
      time_zone: institution().time_zone,
      logger: pino({ level: "silent" }),
      poll_ms: 60_000,
      lease_ms: 60_000,
    });
    await runner.runDue();
    const [slot] = await db
      .select()
      .from(jobRuns)
      .where(and(eq(jobRuns.job, "bill-payments"), eq(jobRuns.state, "queued")));
    expect(slot).toBeDefined();
    expect((await payment(done.payment_id)).status).toBe("scheduled");
    // Move the clock to a minute past the first slot on or after 6:00 on the payment date.
    let outcomes: Awaited<ReturnType<JobRunner["runDue"]>> = [];
    for (let i = 0; i < 10 && (await payment(done.payment_id)).status === "scheduled"; i++) {
      const [next] = await db
        .select()
        .from(jobRuns)
        .where(and(eq(jobRuns.job, "bill-payments"), eq(jobRuns.state, "queued")));
      const now = await clock.now();
      await clock.advance(Math.max(1, next!.run_at.getTime() - now.getTime() + 60_000));
      outcomes = [...outcomes, ...(await runner.runDue())];
    }
    expect(outcomes.every((o) => o.outcome === "succeeded")).toBe(true);
    expect((await payment(done.payment_id)).status).toBe("paid");
    const runs = await db
      .select()
      .from(jobRuns)
      .where(and(eq(jobRuns.job, "bill-payments"), eq(jobRuns.state, "succeeded")));
    expect(runs.some((r) => (r.result as { paid?: number } | null)?.paid === 1)).toBe(true);
    await runner.stop();
    await expectLedgerVerifies(db);
  });
});

describe("a bill payment where the member reads their money", () => {
  it("history, the dashboard's recent list and the CSV name it as Bill Pay does (Scheduled on its date with no time, Cancelled, Failed, Changed), and the spending chart leaves it out until it is paid", async () => {
    const m = await member(100_000);
    const pay = (amount: string, payment_date: string) =>
      scheduleBillPayment(
        db,
        m.who,
        form({ payee: `payee:${m.payee_id}`, from_account_id: String(m.checking.id), amount, payment_date }),
        ORIGIN,
      );
    const next_year = businessDayOnOrAfter(addDays(today, 330));
    const scheduled = await pay("250", next_year);
    const cancelled = await pay("40", second_day);
    const edited = await pay("60", second_day);
    const failing = await pay("15", first_day);
    if (!scheduled.ok || !cancelled.ok || !edited.ok || !failing.ok) throw new Error("not scheduled");
    expect(await cancelBillPayment(db, m.who, cancelled.payment_id, ORIGIN)).toMatchObject({ ok: true });
    const replaced_hold = (await payment(edited.payment_id)).hold_transaction_id!;
    expect(
      await editBillPayment(
        db,
        m.who,
        editBillPaymentSchema(today).parse({
          payment_id: String(edited.payment_id),
          amount: "70",
          payment_date: second_day,
          memo: "",
          idempotency_key: key(),
        }),
        ORIGIN,
      ),
    ).toMatchObject({ ok: true });
    // Frozen on its date: the job fails it (the hold released), as Bill Pay's history says.
    await setAccountStatus(db, m.checking.id, "frozen");
    await payDueBillPayments(db, on(first_day));
    await setAccountStatus(db, m.checking.id, "active");
    expect((await payment(failing.payment_id)).status).toBe("failed");

    const accounts = await memberAccounts(db, m.member.id);
    const page = (params: Record<string, string>) =>
      memberHistoryPage(db, accounts, parseHistoryFilters(new URLSearchParams(params), accounts));
    const d = await dashboard(db, m.member);
    const reads = (rows: readonly MemberTransaction[]) =>
      rows
        .filter((r) => r.kind === "bill_payment")
        .map(
          (r) =>
            `${r.reference_number} ${r.amount_cents} ${r.status_label} ${r.badge} ${r.effective_date} ${r.time === null ? "no time" : "time"}`,
        );
    const hold = async (payment_id: number) => referenceNumber((await payment(payment_id)).hold_transaction_id!);
    const expected = [
      `${await hold(edited.payment_id)} -7000 Scheduled pending ${second_day} no time`,
      `${await hold(failing.payment_id)} -1500 Failed failed ${first_day} no time`,
      `${referenceNumber(replaced_hold)} -6000 Changed reversed ${second_day} no time`,
      `${await hold(cancelled.payment_id)} -4000 Cancelled reversed ${second_day} no time`,
      `${await hold(scheduled.payment_id)} -25000 Scheduled pending ${next_year} no time`,
    ];
    // The unfiltered page, a filtered one (its own statement) and the dashboard's recent list.
    expect(reads((await page({})).rows)).toEqual(expected);
    expect(reads((await page({ type: "debit" })).rows)).toEqual(expected);
    expect(reads(d.recent)).toEqual(expected);

    // The CSV: the same words, and no time beside a date the payment was not scheduled on.
    const csv = (await memberHistoryCsv(db, accounts, {})).split("\r\n");
    const line = (reference_number: string) => csv.find((l) => l.endsWith(reference_number)) ?? "";
    expect(line(await hold(scheduled.payment_id))).toMatch(
      new RegExp(`^${next_year},,".*",Debit,-250\\.00,Scheduled,`),
    );
    expect(line(await hold(cancelled.payment_id))).toMatch(
      new RegExp(`^${second_day},,".*",Debit,-40\\.00,Cancelled,`),
    );
    expect(line(referenceNumber(replaced_hold))).toContain(",-60.00,Changed,");
    // A deposit posted today keeps its time.
    expect(csv.find((l) => l.includes(",Credit,"))).toMatch(/^\d{4}-\d{2}-\d{2},\d{2}:\d{2}:\d{2},/);

    // Held money has not left: the chart counts none of it (and the pending figure counts the two still held).
    expect(d.spending).toMatchObject({ categories: [], total_cents: 0 });
    expect(d.pending).toEqual({ total_cents: 32_000, count: 2 });
    await expectLedgerVerifies(db);
  });
});

import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, count, desc, eq } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { auditLog, ledgerTransactions, notifications } from "~/server/db/schema";
import { memberTransactionsPage } from "~/server/member-accounts/transactions.server";
import { postPendingMemberTransaction } from "~/server/member-accounts/reversals.server";
import { placeStaffHold } from "~/server/member-accounts/holds.server";
import { getBalances, institutionAccount, setAccountStatus } from "~/server/ledger/accounts.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { addTransactions, type NumberedRow } from "~/server/postings/add-transactions.server";
import { readPostingsCsv } from "~/server/postings/csv.server";
import { decidePostingRequest } from "~/server/postings/approvals.server";
import type { DraftRow } from "~/domain/staff-postings";
import { openTestDatabase } from "../test-database";
import { key, newMember } from "../member-support";
import { person } from "../admin-support";

/**
 * Add Transactions (docs/product.md#add-transactions) through its service, on PGlite and on
 * PostgreSQL: the rows post in one database transaction against the counterpart account, or
 * nothing posts; each refusal says its line; the ledger verifies after every test. The limits of
 * dual control are tested in staff-credit-dual-control.test.ts.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
/** The second staff member, who approves what the dual-control rule holds back. */
let checker: { id: string; email: string };
const ORIGIN = { request_id: "postings-test", ip: "203.0.113.5" };
const FIXTURES = path.join(import.meta.dirname, "..", "..", "fixtures", "postings");

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  staff = await person(db, "admin");
  checker = await person(db, "admin");
});
afterAll(async () => {
  await database?.close();
});
afterEach(async () => {
  const report = await verifyLedger(db);
  expect(report.ok, JSON.stringify(report).slice(0, 500)).toBe(true);
});

async function transactionCount(): Promise<number> {
  const [row] = await db.select({ n: count() }).from(ledgerTransactions);
  return Number(row!.n);
}

async function balance(account_id: number) {
  const [a] = await getBalances(db, [account_id]);
  return { current: a!.current_cents, available: a!.available_cents };
}

function rows(...raws: Partial<DraftRow>[]): NumberedRow[] {
  return raws.map((raw, i) => ({
    line: i + 2,
    raw: {
      account: "Checking",
      type: "credit",
      amount: "10.00",
      description: "Row",
      category: "Deposit",
      date: "",
      time: "",
      status: "",
      ...raw,
    },
  }));
}

describe("a valid CSV", () => {
  it("posts every row in one go against the counterpart account: dates as effective dates, Pending rows as holds, audited", async () => {
    const { member, checking, savings } = await newMember(db, { checking_cents: 50_000, savings_cents: 10_000 });
    const cash = await institutionAccount(db, "cash");
    const cashBefore = (await getBalances(db, [cash.id]))[0]!.current_cents;
    const read = readPostingsCsv(new Uint8Array(fs.readFileSync(path.join(FIXTURES, "valid-excel.csv"))));
    if (!read.ok) throw new Error(read.message);
    const before = await transactionCount();
    const started = Date.now();
    // A staff member of its own: the approved million counts toward the maker's totals of the day.
    const maker = await person(db, "admin");
    const result = await addTransactions(db, {
      member_id: member.id,
      staff: maker,
      rows: read.rows,
      batch_key: key(),
      source: "csv",
      origin: ORIGIN,
      file_name: "valid-excel.csv",
    });
    // Its $1,000,000.00 row is above the dual-control limit (docs/security.md#dual-control): the
    // whole file waits, nothing posted, until a second staff member approves it.
    expect(result).toMatchObject({ status: "awaiting_approval", count: 4 });
    expect(await transactionCount()).toBe(before);
    const approved = await decidePostingRequest(db, {
      staff: checker,
      origin: ORIGIN,
      request_id: (result as { request_id: number }).request_id,
      decision: "approve",
    });
    expect(approved).toMatchObject({
      status: "posted",
      message: "Approved and posted: 4 transactions, $1,000,125.50 in credits and $27.25 in debits.",
    });
    expect(await transactionCount()).toBe(before + 4);

    // +125.50 and +1,000,000.00 to checking; -20.00 from savings; a 7.25 hold on checking.
    expect(await balance(checking.id)).toEqual({
      current: 50_000 + 12_550 + 100_000_000,
      available: 50_000 + 12_550 + 100_000_000 - 725,
    });
    expect(await balance(savings.id)).toEqual({ current: 8_000, available: 8_000 });
    expect((await getBalances(db, [cash.id]))[0]!.current_cents).toBe(cashBefore - 12_550 - 100_000_000 + 2_000);

    const posted = await db
      .select()
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.initiator, `staff:${checker.id}`))
      .orderBy(ledgerTransactions.id);
    expect(posted.map((t) => [t.kind, t.status, t.effective_date, t.memo, t.category])).toEqual([
      ["import", "posted", "2024-02-29", "Payroll deposit, ACME Corp", "Income"],
      ["import", "posted", "2024-03-01", 'Gift for "Sam"', "Other"],
      ["import", "posted", "2024-03-02", "Largest allowed amount", "Deposit"],
      ["import", "pending", posted[3]!.effective_date, "Coffee at the corner shop", "Food"],
    ]);
    // The real time of posting, whatever date the row gave.
    for (const t of posted) expect(t.created_at.getTime()).toBeGreaterThanOrEqual(started - 5_000);
    expect(posted.slice(0, 3).every((t) => t.batch_key !== null)).toBe(true);

    const [asked] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "ledger.staff_postings.request"), eq(auditLog.member_id, member.id)));
    expect(asked!.actor_id).toBe(maker.id);
    expect(asked!.after).toMatchObject({
      source: "csv",
      file_name: "valid-excel.csv",
      rows: 4,
      credit_total_cents: 100_012_550,
      debit_total_cents: 2_725,
    });
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "ledger.staff_postings.approve"), eq(auditLog.member_id, member.id)));
    expect(audit!.actor_id).toBe(checker.id);
    expect(audit!.before).toMatchObject({
      requested_by: maker.id,
      accounts: expect.arrayContaining([expect.objectContaining({ id: checking.id, current_cents: 50_000 })]),
    });
    expect(audit!.after).toMatchObject({ status: "posted", posted: 3, held: 1 });
    expect((audit!.after as { rows: unknown[][] }).rows[0]).toEqual([
      2,
      posted[0]!.id,
      checking.id,
      12_550,
      "2024-02-29",
      "09:30:00",
    ]);
  });

  it("a repeat of the same submission posts nothing twice", async () => {
    const { member, checking } = await newMember(db, { checking_cents: 0 });
    const batch_key = key();
    const input = {
      member_id: member.id,
      staff,
      rows: rows({ amount: "5.00" }, { amount: "6.00", status: "Pending" }),
      batch_key,
      source: "table" as const,
      origin: ORIGIN,
    };
    expect(await addTransactions(db, input)).toMatchObject({ status: "added", replayed: false });
    expect(await addTransactions(db, input)).toMatchObject({ status: "added", replayed: true });
    expect(await balance(checking.id)).toEqual({ current: 500, available: 500 });
  });
});

describe("nothing posts unless every row is valid", () => {
  it("lists every bad row by line and posts none of the good ones", async () => {
    const { member, checking } = await newMember(db, { checking_cents: 1_000 });
    const before = await transactionCount();
    const result = await addTransactions(db, {
      member_id: member.id,
      staff,
      rows: rows(
        {},
        { amount: "-3" },
        { category: "Gambling" },
        { date: "2024-02-31" },
        { description: '=HYPERLINK("http://x")' },
      ),
      batch_key: key(),
      source: "csv",
      origin: ORIGIN,
    });
    expect(result).toMatchObject({ ok: false, code: "invalid" });
    if (result.ok || result.code !== "invalid") return;
    expect(result.line_errors.map((e) => e.line)).toEqual([3, 4, 5, 6]);
    expect(result.message).toMatch(/^4 lines have errors: line 3: Amount must be greater than zero/);
    expect(await transactionCount()).toBe(before);
    expect(await balance(checking.id)).toEqual({ current: 1_000, available: 1_000 });
  });

  it("an account of another member is refused, by number", async () => {
    const { member } = await newMember(db, { checking_cents: 1_000 });
    const other = await newMember(db, { checking_cents: 1_000 });
    const before = await transactionCount();
    const result = await addTransactions(db, {
      member_id: member.id,
      staff,
      rows: rows({ account: other.checking.account_number }),
      batch_key: key(),
      source: "csv",
      origin: ORIGIN,
    });
    expect(result).toMatchObject({
      ok: false,
      code: "invalid",
      message: `1 line has an error: line 2: account ${other.checking.account_number} is not one of this member's accounts`,
    });
    expect(await transactionCount()).toBe(before);
    expect(await balance(other.checking.id)).toEqual({ current: 1_000, available: 1_000 });
  });

  it("a member's own account by number posts", async () => {
    const { member, savings } = await newMember(db, { savings_cents: 0 });
    const result = await addTransactions(db, {
      member_id: member.id,
      staff,
      rows: rows({ account: savings.account_number, amount: "1.25" }),
      batch_key: key(),
      source: "table",
      origin: ORIGIN,
    });
    expect(result).toMatchObject({ status: "added", count: 1 });
    expect(await balance(savings.id)).toEqual({ current: 125, available: 125 });
  });

  it("a ledger refusal on one row (insufficient funds) refuses the whole batch, naming the line", async () => {
    const { member, checking } = await newMember(db, { checking_cents: 1_000 });
    const before = await transactionCount();
    const result = await addTransactions(db, {
      member_id: member.id,
      staff,
      rows: rows({ amount: "5.00" }, { type: "debit", amount: "40.00" }),
      batch_key: key(),
      source: "csv",
      origin: ORIGIN,
    });
    expect(result).toEqual({
      ok: false,
      kind: "conflict",
      code: "insufficient_funds",
      message: `line 3 (Checking ${checking.account_number}): Insufficient funds`,
    });
    expect(await transactionCount()).toBe(before);
    expect(await balance(checking.id)).toEqual({ current: 1_000, available: 1_000 });
  });

  it("a refused hold after posted rows takes the posted rows back too (one database transaction)", async () => {
    const { member, checking } = await newMember(db, { checking_cents: 1_000 });
    const before = await transactionCount();
    const auditBefore = (await db.select({ n: count() }).from(auditLog))[0]!.n;
    const result = await addTransactions(db, {
      member_id: member.id,
      staff,
      rows: rows({ amount: "5.00" }, { type: "debit", amount: "20.00", status: "Pending" }),
      batch_key: key(),
      source: "table",
      origin: ORIGIN,
    });
    expect(result).toEqual({
      ok: false,
      kind: "conflict",
      code: "insufficient_funds",
      message: `row 3 (Checking ${checking.account_number}): Insufficient funds`,
    });
    expect(await transactionCount()).toBe(before);
    expect((await db.select({ n: count() }).from(auditLog))[0]!.n).toBe(auditBefore);
    expect(await balance(checking.id)).toEqual({ current: 1_000, available: 1_000 });
  });

  it("a frozen account is refused with the ledger's message", async () => {
    const { member, checking } = await newMember(db, { checking_cents: 1_000 });
    await setAccountStatus(db, checking.id, "frozen");
    const result = await addTransactions(db, {
      member_id: member.id,
      staff,
      rows: rows({ type: "debit", amount: "1.00" }),
      batch_key: key(),
      source: "csv",
      origin: ORIGIN,
    });
    expect(result.ok).toBe(false);
    expect(await balance(checking.id)).toEqual({ current: 1_000, available: 1_000 });
  });

  it("a staff member or an unknown id is not a member", async () => {
    expect(
      await addTransactions(db, {
        member_id: staff.id,
        staff,
        rows: rows({}),
        batch_key: key(),
        source: "csv",
        origin: ORIGIN,
      }),
    ).toMatchObject({ ok: false, kind: "not_found", code: "member_not_found" });
    expect(
      await addTransactions(db, {
        member_id: "nobody",
        staff,
        rows: rows({}),
        batch_key: key(),
        source: "csv",
        origin: ORIGIN,
      }),
    ).toMatchObject({ ok: false, kind: "not_found", code: "member_not_found" });
  });

  it("no rows, or more than the limit, are refused", async () => {
    const { member } = await newMember(db);
    expect(
      await addTransactions(db, {
        member_id: member.id,
        staff,
        rows: [],
        batch_key: key(),
        source: "table",
        origin: ORIGIN,
      }),
    ).toMatchObject({ ok: false, code: "invalid", message: "there are no rows to add" });
    const many = Array.from({ length: 10_001 }, (_, i) => ({ line: i + 2, raw: rows({})[0]!.raw }));
    expect(
      await addTransactions(db, {
        member_id: member.id,
        staff,
        rows: many,
        batch_key: key(),
        source: "csv",
        origin: ORIGIN,
      }),
    ).toMatchObject({
      ok: false,
      code: "invalid",
      message: "more than 10,000 rows; the limit is 10,000 rows and 2 MB",
    });
  });
});

describe("a Pending row, once it completes", () => {
  const request = (member_id: string, transaction_id: number) => ({ staff, origin: ORIGIN, member_id, transaction_id });

  it("staff Post it: the current balance moves as a Completed row's would, audited, the member told; a second Post is refused", async () => {
    const { member, checking } = await newMember(db, { checking_cents: 10_000 });
    const added = await addTransactions(db, {
      member_id: member.id,
      staff,
      rows: rows(
        { type: "credit", amount: "40.00", description: "Check 1042", status: "Pending" },
        { type: "debit", amount: "15.00", description: "Cash withdrawal", status: "Pending" },
      ),
      batch_key: key(),
      source: "table",
      origin: ORIGIN,
    });
    expect(added).toMatchObject({ status: "added" });
    // A pending credit is not available yet; a pending debit already is held.
    expect(await balance(checking.id)).toEqual({ current: 10_000, available: 8_500 });
    const listed = (await memberTransactionsPage(db, member.id)).rows.filter((r) => r.status === "pending");
    expect(listed.map((r) => [r.memo, r.postable, r.pending_owner])).toEqual([
      ["Cash withdrawal", true, null],
      ["Check 1042", true, null],
    ]);
    const credit = listed.find((r) => r.memo === "Check 1042")!;
    const debit = listed.find((r) => r.memo === "Cash withdrawal")!;
    expect(await postPendingMemberTransaction(db, request(member.id, credit.id))).toMatchObject({
      status: "posted",
      message: "Pending transaction posted: the balance is updated",
    });
    expect(await balance(checking.id)).toEqual({ current: 14_000, available: 12_500 });
    expect(await postPendingMemberTransaction(db, request(member.id, debit.id))).toMatchObject({ status: "posted" });
    expect(await balance(checking.id)).toEqual({ current: 12_500, available: 12_500 });
    expect(await postPendingMemberTransaction(db, request(member.id, credit.id))).toMatchObject({
      ok: false,
      kind: "conflict",
      code: "not_pending",
      message: "Error posting transaction: This transaction is no longer pending.",
    });
    const audits = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "ledger.transaction.post"), eq(auditLog.member_id, member.id)));
    expect(audits).toHaveLength(2);
    expect(audits[0]).toMatchObject({ actor_id: staff.id, subject_id: String(credit.id) });
    const [bell] = await db
      .select()
      .from(notifications)
      .where(eq(notifications.member_id, member.id))
      .orderBy(desc(notifications.id))
      .limit(1);
    expect(bell).toMatchObject({
      title: "A pending transaction completed",
      body: "A pending transaction of $15.00 (Cash withdrawal) on your account was completed by the credit union.",
    });
  });

  it("only such rows: a staff hold, another member's row, a completed row and a frozen account's row are refused, nothing posted", async () => {
    const { member, checking } = await newMember(db, { checking_cents: 10_000 });
    const other = await newMember(db, { checking_cents: 10_000 });
    await addTransactions(db, {
      member_id: member.id,
      staff,
      rows: rows(
        { amount: "5.00", description: "Done" },
        { amount: "7.00", description: "Waiting", status: "Pending" },
      ),
      batch_key: key(),
      source: "table",
      origin: ORIGIN,
    });
    const listed = (await memberTransactionsPage(db, member.id)).rows;
    const completed = listed.find((r) => r.memo === "Done")!;
    const waiting = listed.find((r) => r.memo === "Waiting")!;
    expect(completed.postable).toBe(false);
    expect(await postPendingMemberTransaction(db, request(member.id, completed.id))).toMatchObject({
      ok: false,
      code: "not_pending",
    });
    expect(await postPendingMemberTransaction(db, request(other.member.id, waiting.id))).toMatchObject({
      ok: false,
      kind: "not_found",
    });
    const hold = await placeStaffHold(db, {
      staff,
      origin: ORIGIN,
      member_id: member.id,
      account_id: checking.id,
      amount_cents: 300,
      reason: "Check review",
      request_key: key(),
    });
    const hold_id = (hold as { transaction_id: number }).transaction_id;
    expect((await memberTransactionsPage(db, member.id)).rows.find((r) => r.id === hold_id)).toMatchObject({
      postable: false,
      staff_hold: true,
    });
    expect(await postPendingMemberTransaction(db, request(member.id, hold_id))).toMatchObject({
      ok: false,
      code: "resolved_elsewhere",
    });
    expect(await setAccountStatus(db, checking.id, "frozen")).toMatchObject({ ok: true });
    expect(await postPendingMemberTransaction(db, request(member.id, waiting.id))).toMatchObject({
      ok: false,
      code: "account_frozen",
    });
    expect(await balance(checking.id)).toEqual({ current: 10_500, available: 10_200 });
  });
});

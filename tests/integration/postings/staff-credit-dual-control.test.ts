import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { count, eq, sql } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { auditLog, balanceAdjustments, ledgerTransactions, staffPostingRequests } from "~/server/db/schema";
import { getBalances } from "~/server/ledger/accounts.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { addTransactions, type NumberedRow } from "~/server/postings/add-transactions.server";
import {
  awaitingPostingRequestCount,
  awaitingPostingRequests,
  decidePostingRequest,
} from "~/server/postings/approvals.server";
import { readPostingsCsv } from "~/server/postings/csv.server";
import { requestAdjustment } from "~/server/member-accounts/adjustments.server";
import { queueCounts } from "~/server/rails/queues.server";
import type { DraftRow } from "~/domain/staff-postings";
import { openTestDatabase } from "../test-database";
import { key, newMember } from "../member-support";
import { person } from "../admin-support";

/**
 * Dual control of money staff create for a member (docs/security.md#dual-control): one rule for
 * Add Transactions (table and CSV file, the whole file one request) and balance adjustments: per
 * posting, per file, per member over a rolling 24 hours and per staff member over the business
 * day. What waits posts only when a second staff member approves, all or nothing, once.
 */
let database: Database;
let db: Db;
const ORIGIN = { request_id: "dual-control-test", ip: "203.0.113.9" };
/** A fixed moment inside a business day (11:00 in New York): tests move from it. */
const NOON = new Date("2026-11-25T16:00:00Z");
const HOUR = 60 * 60 * 1000;

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});
afterEach(async () => {
  const report = await verifyLedger(db);
  expect(report.ok, JSON.stringify(report).slice(0, 500)).toBe(true);
});

function rows(...raws: Partial<DraftRow>[]): NumberedRow[] {
  return raws.map((raw, i) => ({
    line: i + 2,
    raw: {
      account: "Checking",
      type: "credit",
      amount: "10.00",
      description: "Row",
      category: "Deposit",
      date: "2026-11-24",
      time: "",
      status: "",
      ...raw,
    },
  }));
}

async function current(account_id: number): Promise<number> {
  const [a] = await getBalances(db, [account_id]);
  return a!.current_cents;
}

async function transactionCount(): Promise<number> {
  const [row] = await db.select({ n: count() }).from(ledgerTransactions);
  return Number(row!.n);
}

const staffMember = () => person(db, "admin");

describe("Add Transactions: above the limits the whole table or file waits", () => {
  it("one $50,000.00 credit row waits with the reason; nothing posts; it is listed for approvers", async () => {
    const maker = await staffMember();
    const { member, checking } = await newMember(db, { checking_cents: 1_000 });
    const before = await transactionCount();
    const result = await addTransactions(db, {
      member_id: member.id,
      staff: maker,
      rows: rows({ amount: "50000.00", description: "Wire received" }, { amount: "5.00" }),
      batch_key: key(),
      source: "table",
      origin: ORIGIN,
      now: NOON,
    });
    expect(result).toMatchObject({
      status: "awaiting_approval",
      count: 2,
      replayed: false,
      message:
        "Sent for a second staff member's approval: a row credits $50,000.00, above $10,000.00 per row; the table credits $50,005.00 in all, above $10,000.00. Nothing is posted until another staff member approves the whole table in Payment queues.",
    });
    expect(await transactionCount()).toBe(before);
    expect(await current(checking.id)).toBe(1_000);
    const listed = (await awaitingPostingRequests(db)).find((r) => r.member_id === member.id)!;
    expect(listed).toMatchObject({
      source: "table",
      row_count: 2,
      credit_total_cents: 5_000_500,
      debit_total_cents: 0,
      requested_by: maker.id,
      member_email: member.email,
    });
    expect(listed.rows.map((r) => [r.line, r.account, r.direction, r.amount_cents, r.description])).toEqual([
      [2, `Checking ••${checking.account_number.slice(-4)}`, "credit", 5_000_000, "Wire received"],
      [3, `Checking ••${checking.account_number.slice(-4)}`, "credit", 500, "Row"],
    ]);
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "ledger.staff_postings.request"))
      .orderBy(sql`${auditLog.id} desc`)
      .limit(1);
    expect(audit).toMatchObject({ actor_id: maker.id, member_id: member.id });
  });

  it("a CSV file of small rows whose total passes the file limit waits as one request; under it, it posts", async () => {
    const maker = await staffMember();
    const { member, checking } = await newMember(db, { checking_cents: 0 });
    const csv = (n: number) =>
      readPostingsCsv(
        new TextEncoder().encode(
          [
            "Account Type,Transaction Type,Amount,Description,Category,Date,Time,Status",
            ...Array.from(
              { length: n },
              (_, i) => `Checking,credit,1000.00,Payroll ${i + 1},Income,2026-11-24,09:00,Completed`,
            ),
          ].join("\n"),
        ),
      );
    const eleven = csv(11);
    if (!eleven.ok) throw new Error(eleven.message);
    const waiting = await addTransactions(db, {
      member_id: member.id,
      staff: maker,
      rows: eleven.rows,
      batch_key: key(),
      source: "csv",
      origin: ORIGIN,
      file_name: "payroll.csv",
      now: NOON,
    });
    expect(waiting).toMatchObject({ status: "awaiting_approval", count: 11 });
    expect((waiting as { message: string }).message).toContain("the file credits $11,000.00 in all, above $10,000.00");
    expect(await current(checking.id)).toBe(0);
    const ten = csv(10);
    if (!ten.ok) throw new Error(ten.message);
    expect(
      await addTransactions(db, {
        member_id: member.id,
        staff: maker,
        rows: ten.rows,
        batch_key: key(),
        source: "csv",
        origin: ORIGIN,
        file_name: "payroll-10.csv",
        now: NOON,
      }),
    ).toMatchObject({ status: "added", count: 10 });
    expect(await current(checking.id)).toBe(1_000_000);
  });

  it("debits do not count: a large debit file posts at once, as today", async () => {
    const maker = await staffMember();
    const { member, checking } = await newMember(db, { checking_cents: 3_000_000 });
    expect(
      await addTransactions(db, {
        member_id: member.id,
        staff: maker,
        rows: rows({ type: "debit", amount: "25000.00" }),
        batch_key: key(),
        source: "table",
        origin: ORIGIN,
        now: NOON,
      }),
    ).toMatchObject({ status: "added" });
    expect(await current(checking.id)).toBe(500_000);
  });

  it("a repeat of a waiting submission finds the same request and adds none", async () => {
    const maker = await staffMember();
    const { member } = await newMember(db);
    const input = {
      member_id: member.id,
      staff: maker,
      rows: rows({ amount: "10000.01" }),
      batch_key: key(),
      source: "table" as const,
      origin: ORIGIN,
      now: NOON,
    };
    const first = await addTransactions(db, input);
    const again = await addTransactions(db, input);
    expect(again).toMatchObject({
      status: "awaiting_approval",
      replayed: true,
      request_id: (first as { request_id: number }).request_id,
    });
    const [n] = await db
      .select({ n: count() })
      .from(staffPostingRequests)
      .where(eq(staffPostingRequests.member_id, member.id));
    expect(Number(n!.n)).toBe(1);
  });
});

describe("splitting does not avoid the threshold", () => {
  it("two +$10,000.00 adjustments in a row: the first posts, the second waits, saying the 24-hour total", async () => {
    const maker = await staffMember();
    const { member, checking, savings } = await newMember(db, { checking_cents: 0, savings_cents: 0 });
    const first = await requestAdjustment(db, {
      staff: maker,
      origin: ORIGIN,
      member_id: member.id,
      account_id: checking.id,
      target_cents: 1_000_000,
      reason: "Cash deposit",
      now: NOON,
    });
    expect(first).toMatchObject({ status: "posted" });
    const second = await requestAdjustment(db, {
      staff: maker,
      origin: ORIGIN,
      member_id: member.id,
      account_id: savings.id,
      target_cents: 1_000_000,
      reason: "Cash deposit",
      now: new Date(NOON.getTime() + HOUR),
    });
    expect(second).toMatchObject({
      status: "awaiting_approval",
      message:
        "The adjustment of $10,000.00 waits for a second staff member's approval: it would bring what you credited to this member in 24 hours to $20,000.00, above $10,000.00.",
    });
    expect(await current(savings.id)).toBe(0);
  });

  it("the 24 hours roll: 25 hours later the same credit posts; another staff member's credits are theirs", async () => {
    const maker = await staffMember();
    const other = await staffMember();
    const { member, checking, savings } = await newMember(db, { checking_cents: 0, savings_cents: 0 });
    expect(
      await requestAdjustment(db, {
        staff: maker,
        origin: ORIGIN,
        member_id: member.id,
        account_id: checking.id,
        target_cents: 800_000,
        reason: "First",
        now: NOON,
      }),
    ).toMatchObject({ status: "posted" });
    // Another staff member's credit to the same member is not the maker's.
    expect(
      await addTransactions(db, {
        member_id: member.id,
        staff: other,
        rows: rows({ account: "Savings", amount: "8000.00" }),
        batch_key: key(),
        source: "table",
        origin: ORIGIN,
        now: NOON,
      }),
    ).toMatchObject({ status: "added" });
    // Add Transactions and adjustments count together: $8,000 + $3,000 is above $10,000.
    expect(
      await addTransactions(db, {
        member_id: member.id,
        staff: maker,
        rows: rows({ amount: "3000.00" }),
        batch_key: key(),
        source: "table",
        origin: ORIGIN,
        now: new Date(NOON.getTime() + 23 * HOUR),
      }),
    ).toMatchObject({
      status: "awaiting_approval",
      message: expect.stringContaining(
        "it would bring what you credited to this member in 24 hours to $11,000.00, above $10,000.00",
      ),
    });
    expect(
      await addTransactions(db, {
        member_id: member.id,
        staff: maker,
        rows: rows({ amount: "3000.00" }),
        batch_key: key(),
        source: "table",
        origin: ORIGIN,
        now: new Date(NOON.getTime() + 25 * HOUR),
      }),
    ).toMatchObject({ status: "added" });
    expect(await current(checking.id)).toBe(1_100_000);
    expect(await current(savings.id)).toBe(800_000);
  });

  it("the business day for all members: five members at $10,000.00 post, a sixth credit waits; the next business day it posts", async () => {
    const maker = await staffMember();
    const members = await Promise.all(Array.from({ length: 6 }, () => newMember(db, { checking_cents: 0 })));
    for (const m of members.slice(0, 5)) {
      expect(
        await requestAdjustment(db, {
          staff: maker,
          origin: ORIGIN,
          member_id: m.member.id,
          account_id: m.checking.id,
          target_cents: 1_000_000,
          reason: "Branch deposit",
          now: NOON,
        }),
      ).toMatchObject({ status: "posted" });
    }
    const sixth = members[5]!;
    expect(
      await addTransactions(db, {
        member_id: sixth.member.id,
        staff: maker,
        rows: rows({ amount: "0.01" }),
        batch_key: key(),
        source: "table",
        origin: ORIGIN,
        now: NOON,
      }),
    ).toMatchObject({
      status: "awaiting_approval",
      message: expect.stringContaining(
        "it would bring what you credited to all members this business day to $50,000.01, above $50,000.00",
      ),
    });
    // 13:00 the next day in New York: a new business day (and the sixth member had nothing from this staff member).
    expect(
      await addTransactions(db, {
        member_id: sixth.member.id,
        staff: maker,
        rows: rows({ amount: "0.01" }),
        batch_key: key(),
        source: "table",
        origin: ORIGIN,
        now: new Date(NOON.getTime() + 22 * HOUR),
      }),
    ).toMatchObject({ status: "added" });
  });

  it("two requests of the same staff member at the same moment cannot both pass under the total", async () => {
    const maker = await staffMember();
    const { member, checking } = await newMember(db, { checking_cents: 0 });
    const send = () =>
      addTransactions(db, {
        member_id: member.id,
        staff: maker,
        rows: rows({ amount: "6000.00" }),
        batch_key: key(),
        source: "table",
        origin: ORIGIN,
        now: NOON,
      });
    const answers = await Promise.all([send(), send()]);
    expect(answers.map((a) => (a.ok ? a.status : "refused")).sort()).toEqual(["added", "awaiting_approval"]);
    expect(await current(checking.id)).toBe(600_000);
  });
});

describe("the second staff member decides", () => {
  async function waitingFile(extra: Partial<DraftRow>[] = []) {
    const maker = await staffMember();
    const checker = await staffMember();
    const fixture = await newMember(db, { checking_cents: 10_000, savings_cents: 5_000 });
    const result = await addTransactions(db, {
      member_id: fixture.member.id,
      staff: maker,
      rows: rows(
        { amount: "20000.00", description: "Estate settlement" },
        { amount: "7.25", status: "Pending", description: "Check 1043" },
        ...extra,
      ),
      batch_key: key(),
      source: "csv",
      file_name: "estate.csv",
      origin: ORIGIN,
      now: NOON,
    });
    if (!result.ok || result.status !== "awaiting_approval") throw new Error(JSON.stringify(result));
    return { ...fixture, maker, checker, request_id: result.request_id };
  }

  it("the maker cannot approve or decline their own request, and the database refuses it too", async () => {
    const { maker, request_id, checking } = await waitingFile();
    expect(
      await decidePostingRequest(db, { staff: maker, origin: ORIGIN, request_id, decision: "approve" }),
    ).toMatchObject({
      ok: false,
      kind: "forbidden",
      code: "maker_cannot_approve",
      message: "You sent these transactions: another staff member must approve or decline them.",
    });
    expect(
      await decidePostingRequest(db, { staff: maker, origin: ORIGIN, request_id, decision: "decline", reason: "Mine" }),
    ).toMatchObject({ ok: false, kind: "forbidden" });
    await expect(
      db
        .update(staffPostingRequests)
        .set({ decided_by: maker.id, status: "posted" })
        .where(eq(staffPostingRequests.id, request_id)),
    ).rejects.toThrow();
    expect(await current(checking.id)).toBe(10_000);
  });

  it("a second staff member approves: every row posts (the pending row as a hold), audited; it counts toward the maker's totals", async () => {
    const { maker, checker, request_id, checking, member } = await waitingFile();
    const countsBefore = (await queueCounts(db)).sections.adjustments!;
    const approved = await decidePostingRequest(db, {
      staff: checker,
      origin: ORIGIN,
      request_id,
      decision: "approve",
      now: new Date(NOON.getTime() + HOUR),
    });
    expect(approved).toMatchObject({
      status: "posted",
      message: "Approved and posted: 2 transactions, $20,007.25 in credits and $0.00 in debits.",
    });
    expect(await current(checking.id)).toBe(10_000 + 2_000_000);
    const posted = await db
      .select()
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.initiator, `staff:${checker.id}`));
    expect(posted.map((t) => [t.memo, t.status]).sort()).toEqual([
      ["Check 1043", "pending"],
      ["Estate settlement", "posted"],
    ]);
    expect((await queueCounts(db)).sections.adjustments).toBe(countsBefore - 1);
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "ledger.staff_postings.approve"))
      .orderBy(sql`${auditLog.id} desc`)
      .limit(1);
    expect(audit).toMatchObject({ actor_id: checker.id, member_id: member.id, subject_id: String(request_id) });
    // The approved $20,007.25 is the maker's: a further $1.00 to the member now waits.
    expect(
      await addTransactions(db, {
        member_id: member.id,
        staff: maker,
        rows: rows({ amount: "1.00" }),
        batch_key: key(),
        source: "table",
        origin: ORIGIN,
        now: new Date(NOON.getTime() + 2 * HOUR),
      }),
    ).toMatchObject({ status: "awaiting_approval" });
    // Decided once: a second approval is refused and posts nothing.
    expect(
      await decidePostingRequest(db, { staff: checker, origin: ORIGIN, request_id, decision: "approve" }),
    ).toMatchObject({ ok: false, code: "already_decided", message: "This request was already approved." });
    expect(await current(checking.id)).toBe(10_000 + 2_000_000);
  });

  it("all or nothing: a row the ledger refuses at approval posts nothing and the request still waits", async () => {
    const { checker, request_id, checking, savings } = await waitingFile([
      { account: "Savings", type: "debit", amount: "60.00", description: "Too much" },
    ]);
    const before = await transactionCount();
    const refused = await decidePostingRequest(db, { staff: checker, origin: ORIGIN, request_id, decision: "approve" });
    expect(refused).toMatchObject({ ok: false, kind: "conflict" });
    expect((refused as { message: string }).message).toBe(
      `Failed to approve the transactions: line 4 (Savings ${savings.account_number}): Insufficient funds. Nothing was posted; the request still waits.`,
    );
    expect(await transactionCount()).toBe(before);
    expect(await current(checking.id)).toBe(10_000);
    const [row] = await db.select().from(staffPostingRequests).where(eq(staffPostingRequests.id, request_id));
    expect(row).toMatchObject({ status: "awaiting_approval", decided_by: null });
  });

  it("decline: nothing posts, the reason is kept, and it leaves the queue", async () => {
    const { checker, request_id, checking } = await waitingFile();
    const waitingBefore = await awaitingPostingRequestCount(db);
    expect(
      await decidePostingRequest(db, {
        staff: checker,
        origin: ORIGIN,
        request_id,
        decision: "decline",
        reason: "No paperwork",
      }),
    ).toMatchObject({
      status: "declined",
      message: "Declined: 2 transactions ($20,007.25 in credits) will not post.",
    });
    expect(await current(checking.id)).toBe(10_000);
    const [row] = await db.select().from(staffPostingRequests).where(eq(staffPostingRequests.id, request_id));
    expect(row).toMatchObject({ status: "declined", decline_reason: "No paperwork", decided_by: checker.id });
    expect(await awaitingPostingRequestCount(db)).toBe(waitingBefore - 1);
  });

  it("two approvers at the same moment: one posting, one 'already approved'", async () => {
    const { checker, request_id, checking } = await waitingFile();
    const third = await staffMember();
    const before = await transactionCount();
    const answers = await Promise.all([
      decidePostingRequest(db, { staff: checker, origin: ORIGIN, request_id, decision: "approve" }),
      decidePostingRequest(db, { staff: third, origin: ORIGIN, request_id, decision: "approve" }),
    ]);
    expect(answers.map((a) => (a.ok ? a.status : "refused")).sort()).toEqual(["posted", "refused"]);
    expect(answers.find((a) => !a.ok)).toMatchObject({ code: "already_decided" });
    expect(await transactionCount()).toBe(before + 2);
    expect(await current(checking.id)).toBe(10_000 + 2_000_000);
  });

  it("an adjustment's concurrent approvals post once too (the same rule's other kind)", async () => {
    const maker = await staffMember();
    const [a, b] = [await staffMember(), await staffMember()];
    const { member, checking } = await newMember(db, { checking_cents: 0 });
    const asked = await requestAdjustment(db, {
      staff: maker,
      origin: ORIGIN,
      member_id: member.id,
      account_id: checking.id,
      target_cents: 1_500_000,
      reason: "Inheritance",
      now: NOON,
    });
    expect(asked).toMatchObject({
      status: "awaiting_approval",
      message: "The adjustment of $15,000.00 is above $10,000.00: it waits for a second staff member's approval.",
    });
    const { decideAdjustment } = await import("~/server/member-accounts/adjustments.server");
    const id = (asked as { adjustment_id: number }).adjustment_id;
    const answers = await Promise.all(
      [a, b].map((staff) => decideAdjustment(db, { staff, origin: ORIGIN, adjustment_id: id, decision: "approve" })),
    );
    expect(answers.map((x) => (x.ok ? x.status : "refused")).sort()).toEqual(["posted", "refused"]);
    expect(await current(checking.id)).toBe(1_500_000);
    const [row] = await db.select().from(balanceAdjustments).where(eq(balanceAdjustments.id, id));
    expect(row!.status).toBe("posted");
  });
});

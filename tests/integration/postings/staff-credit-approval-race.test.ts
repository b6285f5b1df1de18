import "../identity-support";
import crypto from "node:crypto";
import { expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { balanceAdjustments, loanPayments, loanStaffActions, loans, staffPostingRequests } from "~/server/db/schema";
import { applyForLoan, decideApplication } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { payLoan } from "~/server/loans/servicing.server";
import { decideLoanAction, requestLoanAction } from "~/server/loans/staff-actions.server";
import { fundedMember } from "../../factories";
import { verifyLedger } from "~/server/ledger/verify.server";
import { addTransactions, type NumberedRow } from "~/server/postings/add-transactions.server";
import { decidePostingRequest } from "~/server/postings/approvals.server";
import { decideAdjustment, requestAdjustment } from "~/server/member-accounts/adjustments.server";
import { staffCreditTotals } from "~/server/staff-credits/dual-control.server";
import { formatCents } from "~/domain/money";
import { fileDatabase, onPostgres } from "../test-database";
import { key, newMember } from "../member-support";
import { person } from "../admin-support";

/**
 * An approval and a request of the same maker at the same moment (docs/security.md#dual-control):
 * the approval posts a credit that counts for the maker, so it takes the maker's staff-credit lock
 * before anything else, and the request sent meanwhile waits for it and counts it. On PostgreSQL
 * the approval is held inside its transaction (a third transaction holds the waiting row) while
 * the request is sent: without the lock the request would count nothing and post at once. PGlite
 * has one connection, so there both run as sent and the totals count both.
 */
const database = fileDatabase({
  beforeClose: async (db) => {
    const report = await verifyLedger(db);
    expect(report.ok, JSON.stringify(report).slice(0, 500)).toBe(true);
  },
});
const ORIGIN = { request_id: "approval-race-test", ip: "203.0.113.10" };
/** 11:00 in New York, inside one business day; the approval and the request follow it. */
const NOON = new Date("2026-11-25T16:00:00Z");
const MINUTE = 60 * 1000;

function creditRow(amount: string): NumberedRow[] {
  return [
    {
      line: 2,
      raw: {
        account: "Checking",
        type: "credit",
        amount,
        description: "Deposit",
        category: "Deposit",
        date: "2026-11-24",
        time: "",
        status: "",
      },
    },
  ];
}

/** Backends of this database waiting for a lock (a row's, or the maker's advisory lock). */
async function waitingForLocks(db: Db): Promise<number> {
  const result = await db.execute(
    sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
  );
  return Number(result.rows[0]!.n);
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Runs `approve` while another transaction holds `lockRow` (the waiting request's row), sends
 * `request` once the approval is blocked inside its transaction, waits until the request is
 * blocked too (or has already answered: the race the maker's lock prevents), then lets both go.
 */
async function approveWhileRequesting<A, R>(
  db: Db,
  lockRow: (tx: Db) => Promise<unknown>,
  approve: () => Promise<A>,
  request: () => Promise<R>,
): Promise<[A, R]> {
  if (!onPostgres) return Promise.all([approve(), request()]);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const holder = db.transaction(async (tx) => {
    await lockRow(tx as unknown as Db);
    held();
    await released;
  });
  await holding;
  const approval = approve();
  await until(async () => (await waitingForLocks(db)) >= 1, "the approval to wait for the row");
  let answered = false;
  const requested = request().finally(() => (answered = true));
  await until(async () => answered || (await waitingForLocks(db)) >= 2, "the request to wait for the maker's lock");
  release();
  await holder;
  return Promise.all([approval, requested]);
}

/** The maker's $1,000.00 credit to the member's account, sent while the approval waits. */
function smallAdjustment(db: Db, maker: { id: string; email: string }, member_id: string, account_id: number) {
  return () =>
    requestAdjustment(db, {
      staff: maker,
      origin: ORIGIN,
      member_id,
      account_id,
      target_cents: 100_000,
      reason: "Cash deposit",
      now: new Date(NOON.getTime() + 2 * MINUTE),
    });
}

/**
 * The approval posted; on PostgreSQL (the approval held first) the request counted it and waits
 * with the total; whatever the order, the maker's 24-hour total holds what posted, nothing more.
 */
async function expectBothCounted(
  db: Db,
  input: {
    approved: { ok: boolean; status?: string };
    sent: { ok: boolean; status?: string };
    maker_id: string;
    member_id: string;
    approved_cents: number;
    sent_cents: number;
  },
) {
  const { approved, sent, approved_cents, sent_cents } = input;
  expect(approved).toMatchObject({ ok: true, status: "posted" });
  if (onPostgres) {
    expect(sent).toMatchObject({
      status: "awaiting_approval",
      message: expect.stringContaining(`in 24 hours to ${formatCents(approved_cents + sent_cents)}, above $10,000.00`),
    });
  }
  const totals = await staffCreditTotals(db, {
    staff_id: input.maker_id,
    member_id: input.member_id,
    now: new Date(NOON.getTime() + 3 * MINUTE),
  });
  const sent_posted = sent.ok && sent.status !== "awaiting_approval";
  expect(totals.member_24h_cents).toBe(approved_cents + (sent_posted ? sent_cents : 0));
}

it("Add Transactions: a request sent while the maker's waiting file is approved counts the approved credit", async () => {
  const db = database.db;
  const maker = await person(db, "admin");
  const checker = await person(db, "admin");
  const { member, checking } = await newMember(db, { checking_cents: 0 });
  const waiting = await addTransactions(db, {
    member_id: member.id,
    staff: maker,
    rows: creditRow("20000.00"),
    batch_key: key(),
    source: "table",
    origin: ORIGIN,
    now: NOON,
  });
  if (!waiting.ok || waiting.status !== "awaiting_approval") throw new Error(JSON.stringify(waiting));
  const request_id = waiting.request_id;

  const [approved, sent] = await approveWhileRequesting(
    db,
    (tx) => tx.select().from(staffPostingRequests).where(eq(staffPostingRequests.id, request_id)).for("update"),
    () =>
      decidePostingRequest(db, {
        staff: checker,
        origin: ORIGIN,
        request_id,
        decision: "approve",
        now: new Date(NOON.getTime() + MINUTE),
      }),
    () =>
      addTransactions(db, {
        member_id: member.id,
        staff: maker,
        rows: creditRow("1000.00"),
        batch_key: key(),
        source: "table",
        origin: ORIGIN,
        now: new Date(NOON.getTime() + 2 * MINUTE),
      }),
  );
  await expectBothCounted(db, {
    approved,
    sent,
    maker_id: maker.id,
    member_id: member.id,
    approved_cents: 2_000_000,
    sent_cents: 100_000,
  });
  // The member's account holds exactly what posted.
  const [balance] = await db
    .execute(sql`select posted_cents from ledger_accounts where id = ${checking.id}`)
    .then((r) => r.rows);
  const sent_posted = sent.ok && sent.status === "added";
  expect(Number(balance!.posted_cents)).toBe(2_000_000 + (sent_posted ? 100_000 : 0));
});

it("balance adjustments: a request sent while the maker's waiting adjustment is approved counts it", async () => {
  const db = database.db;
  const maker = await person(db, "admin");
  const checker = await person(db, "admin");
  const { member, checking, savings } = await newMember(db, { checking_cents: 0, savings_cents: 0 });
  const waiting = await requestAdjustment(db, {
    staff: maker,
    origin: ORIGIN,
    member_id: member.id,
    account_id: checking.id,
    target_cents: 1_500_000,
    reason: "Inheritance",
    now: NOON,
  });
  if (!waiting.ok || waiting.status !== "awaiting_approval") throw new Error(JSON.stringify(waiting));
  const adjustment_id = waiting.adjustment_id;

  const [approved, sent] = await approveWhileRequesting(
    db,
    (tx) => tx.select().from(balanceAdjustments).where(eq(balanceAdjustments.id, adjustment_id)).for("update"),
    () =>
      decideAdjustment(db, {
        staff: checker,
        origin: ORIGIN,
        adjustment_id,
        decision: "approve",
        now: new Date(NOON.getTime() + MINUTE),
      }),
    smallAdjustment(db, maker, member.id, savings.id),
  );
  await expectBothCounted(db, {
    approved,
    sent,
    maker_id: maker.id,
    member_id: member.id,
    approved_cents: 1_500_000,
    sent_cents: 100_000,
  });
});

it("a loan's correction: a request sent while the maker's waiting payment reversal is approved counts it", async () => {
  const db = database.db;
  const maker = await person(db, "admin");
  const checker = await person(db, "admin");
  const { member, checking, savings } = await fundedMember(db, { checking_cents: 20_000_00, savings_cents: 0 });
  const applied = await applyForLoan(
    db,
    member,
    {
      product_slug: "personal",
      amount_cents: 30_000_00,
      term_months: 36,
      purpose: "Roof",
      annual_income_cents: 90_000_00,
      employer: "Seacoast Boatworks",
      idempotency_key: crypto.randomUUID(),
    },
    ORIGIN,
    NOON,
  );
  if (!applied.ok) throw new Error(applied.message);
  await decideApplication(
    db,
    {
      staff: checker,
      origin: ORIGIN,
      application_id: applied.application_id,
      decision: { outcome: "approve", rate_ppm: 89_900, term_months: 36 },
    },
    NOON,
  );
  expect((await acceptOffer(db, member, applied.application_id, ORIGIN, NOON)).ok).toBe(true);
  const [loan] = await db.select().from(loans).where(eq(loans.application_id, applied.application_id));
  const paid = await payLoan(
    db,
    member,
    {
      loan_id: loan!.id,
      from_account_id: checking.id,
      amount: { kind: "amount", amount_cents: 12_000_00 },
      idempotency_key: crypto.randomUUID(),
    },
    ORIGIN,
    NOON,
  );
  expect(paid.ok).toBe(true);
  const [payment] = await db.select().from(loanPayments).where(eq(loanPayments.loan_id, loan!.id));
  const waiting = await requestLoanAction(
    db,
    {
      staff: maker,
      origin: ORIGIN,
      loan_id: loan!.id,
      kind: "correct_entry",
      transaction_id: payment!.transaction_id,
      reason: "Keyed $12,000 instead of $1,200",
    },
    NOON,
  );
  if (!waiting.ok || waiting.status !== "awaiting_approval") throw new Error(JSON.stringify(waiting));
  const action_id = waiting.action_id;

  const [approved, sent] = await approveWhileRequesting(
    db,
    (tx) => tx.select().from(loanStaffActions).where(eq(loanStaffActions.id, action_id)).for("update"),
    () =>
      decideLoanAction(
        db,
        { staff: checker, origin: ORIGIN, loan_id: loan!.id, action_id, decision: { approve: true } },
        new Date(NOON.getTime() + MINUTE),
      ),
    smallAdjustment(db, maker, member.id, savings.id),
  );
  await expectBothCounted(db, {
    approved,
    sent,
    maker_id: maker.id,
    member_id: member.id,
    approved_cents: 12_000_00,
    sent_cents: 100_000,
  });
});

import "../identity-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import {
  auditLog,
  creditLineActivity,
  creditLineCycles,
  creditLines,
  ledgerAccounts,
  ledgerTransactions,
  loanApplications,
  notifications,
  outbox,
  type CreditLineRow,
} from "~/server/db/schema";
import { verifyLedger } from "~/server/ledger/verify.server";
import { trialBalanceAsOf } from "~/server/books/books.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { applyForLoan, decideApplication } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { memberApplication } from "~/server/loans/application-views.server";
import { drawOnLine, payLine, setLineAutopay } from "~/server/loans/lines-of-credit.server";
import { runLineServicing } from "~/server/loans/line-servicing.server";
import { memberLineDetail, memberLines } from "~/server/loans/line-views.server";
import { accrueInterest } from "~/domain/loans/servicing";
import { addCalendarDays } from "~/domain/payment-dates";
import { extractText, getDocumentProxy } from "unpdf";
import { loanServicingJob } from "~/server/jobs/registry.server";
import { logger } from "~/server/logger.server";
import { openTestDatabase } from "../test-database";
import { fundedMember, staff as newStaff } from "../../factories";

/**
 * A line of credit's life (docs/product.md#lines-of-credit, issue 33): applied for by a credit
 * limit, approved, accepted with its account-opening disclosure (nothing paid out), drawn into
 * checking and savings within the available credit (two draws at once never exceed it), interest
 * accrued night by night by the job clock, the month's cycle and its minimum, autopay, a late fee
 * after the grace days, payments fees → interest → principal restoring the available credit; the
 * ledger verified and the books in balance after.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "lines-of-credit", ip: "198.51.100.35" };
const at = (day: string) => new Date(`${day}T15:00:00Z`);
const key = () => crypto.randomUUID();

beforeAll(async () => {
  database = await openTestDatabase({ pool_max: 4 });
  db = database.db;
  staff = await newStaff(db);
});
afterAll(async () => {
  if (db) expect((await verifyLedger(db)).problems).toEqual([]);
  await database?.close();
});

const application = (credit_limit_cents: number) => ({
  product_slug: "line-of-credit",
  amount_cents: credit_limit_cents,
  term_months: null,
  purpose: "Home repairs as they come",
  annual_income_cents: 70_000_00,
  employer: "Seacoast Boatworks",
  idempotency_key: key(),
});

/** A member with an open $5,000 line at 12.5%, opened on `opened_on`. */
async function openLine(opened_on: string, checking_cents = 500_00) {
  const funded = await fundedMember(db, { checking_cents, savings_cents: 200_00 });
  const applied = await applyForLoan(db, funded.member, application(5_000_00), origin, at(opened_on));
  if (!applied.ok) throw new Error(applied.message);
  const decided = await decideApplication(
    db,
    {
      staff,
      origin,
      application_id: applied.application_id,
      decision: { outcome: "approve", rate_ppm: 125_000, term_months: null },
    },
    at(opened_on),
  );
  if (!decided.ok) throw new Error(decided.message);
  const accepted = await acceptOffer(db, funded.member, applied.application_id, origin, at(opened_on));
  if (!accepted.ok) throw new Error(accepted.message);
  const [line] = await db.select().from(creditLines).where(eq(creditLines.application_id, applied.application_id));
  return { ...funded, application_id: applied.application_id, line: line! };
}

const lineRow = async (id: number): Promise<CreditLineRow> =>
  (await db.select().from(creditLines).where(eq(creditLines.id, id)))[0]!;
const balanceOf = async (account_id: number) =>
  (await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, account_id)))[0]!.posted_cents;

describe("applying for and opening a line of credit", () => {
  it("asks for a limit, refuses a limit or offer outside the product, and opens at zero with the disclosure kept", async () => {
    const funded = await fundedMember(db, { checking_cents: 100_00 });
    expect(await applyForLoan(db, funded.member, application(30_000_00), origin, at("2026-03-02"))).toMatchObject({
      ok: false,
      field: "amount",
      message: "Enter a credit limit from $1,000.00 to $25,000.00.",
    });
    const applied = await applyForLoan(db, funded.member, application(8_000_00), origin, at("2026-03-02"));
    if (!applied.ok) throw new Error(applied.message);
    const [row] = await db.select().from(loanApplications).where(eq(loanApplications.id, applied.application_id));
    expect(row).toMatchObject({ open_end: true, term_months: null, amount_cents: 8_000_00 });
    const decide = (decision: Parameters<typeof decideApplication>[1]["decision"]) =>
      decideApplication(db, { staff, origin, application_id: applied.application_id, decision }, at("2026-03-03"));
    expect(await decide({ outcome: "approve", rate_ppm: 50_000, term_months: null })).toMatchObject({
      ok: false,
      field: "rate",
    });
    expect(
      await decide({ outcome: "counter", amount_cents: 8_000_00, rate_ppm: 125_000, term_months: null }),
    ).toMatchObject({ ok: false, field: "amount", message: expect.stringContaining("changes the credit limit") });
    expect(
      await decide({ outcome: "counter", amount_cents: 4_000_00, rate_ppm: 125_000, term_months: null }),
    ).toMatchObject({ ok: true });
    const offered = (await memberApplication(db, funded.member.id, applied.application_id, at("2026-03-03")))!;
    expect(offered).toMatchObject({ open_end: true, may_accept: true, disclosure: null, line_id: null });
    expect(offered.line_disclosure).toMatchObject({
      credit_limit_cents: 4_000_00,
      rate_ppm: 125_000,
      daily_periodic_rate: "0.034247%",
      late_fee_cents: 25_00,
      minimum_payment: { percent_ppm: 30_000, floor_cents: 25_00 },
    });
    const transactionsBefore = (await db.select().from(ledgerTransactions)).length;
    expect(await acceptOffer(db, funded.member, applied.application_id, origin, at("2026-03-04"))).toEqual({
      ok: true,
      application_id: applied.application_id,
    });
    // Nothing paid out: no ledger transaction; the line's receivable opened at zero.
    expect((await db.select().from(ledgerTransactions)).length).toBe(transactionsBefore);
    const [line] = await db.select().from(creditLines).where(eq(creditLines.application_id, applied.application_id));
    expect(line).toMatchObject({
      credit_limit_cents: 4_000_00,
      opened_on: "2026-03-04",
      next_cycle_close_on: "2026-04-04",
      status: "active",
    });
    expect(await balanceOf(line!.receivable_account_id)).toBe(0);
    const [accepted] = await db.select().from(loanApplications).where(eq(loanApplications.id, applied.application_id));
    expect(accepted!.status).toBe("accepted");
    expect(accepted!.disclosure_pdf!.subarray(0, 5).toString()).toBe("%PDF-");
    // The PDF says what the page said (Regulation Z 1026.6(b)), as real text.
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(accepted!.disclosure_pdf!)), {
      mergePages: true,
    });
    for (const words of [
      "Account-opening disclosure: Personal Line of Credit",
      "Credit limit",
      "$4,000.00",
      "12.50% (fixed)",
      "0.034247%",
      "There is no grace period",
      "The greater of 3.00% of the balance",
      "$25.00 if the minimum is not paid within 10 days",
    ])
      expect(text.replace(/\s+/g, " "), words).toContain(words);
    const view = (await memberApplication(db, funded.member.id, applied.application_id, at("2026-03-04")))!;
    expect(view).toMatchObject({ line_id: line!.id, has_pdf: true, loan: null });
    const mail = await db.select().from(outbox).where(eq(outbox.to_email, funded.member.email.toLowerCase()));
    expect(mail.map((m) => m.subject)).toEqual(
      expect.arrayContaining([
        "We received your personal line of credit application",
        "An offer for your personal line of credit application",
        "Your personal line of credit is open: the disclosure you accepted",
      ]),
    );
    expect(await memberLines(db, funded.member.id, at("2026-03-04"))).toEqual([
      expect.objectContaining({
        credit_limit_cents: 4_000_00,
        drawn_cents: 0,
        available_cents: 4_000_00,
        minimum_due: null,
      }),
    ]);
  });
});

describe("draws", () => {
  it("go into checking or savings within the available credit; over it is refused and nothing moves", async () => {
    const { member, checking, savings, line } = await openLine("2026-03-05");
    const drawn = await drawOnLine(
      db,
      member,
      { line_id: line.id, to_account_id: checking.id, amount_cents: 1_500_00, idempotency_key: "draw-1" },
      origin,
      at("2026-03-05"),
    );
    expect(drawn).toMatchObject({ ok: true, amount_cents: 1_500_00, available_cents: 3_500_00, replayed: false });
    // A repeat of the key answers the first draw and moves nothing more.
    expect(
      await drawOnLine(
        db,
        member,
        { line_id: line.id, to_account_id: checking.id, amount_cents: 1_500_00, idempotency_key: "draw-1" },
        origin,
        at("2026-03-05"),
      ),
    ).toMatchObject({ ok: true, replayed: true });
    expect(await balanceOf(checking.id)).toBe(500_00 + 1_500_00);
    expect(await balanceOf(line.receivable_account_id)).toBe(-1_500_00);
    const before = (await db.select().from(ledgerTransactions)).length;
    expect(
      await drawOnLine(
        db,
        member,
        { line_id: line.id, to_account_id: savings.id, amount_cents: 3_500_01, idempotency_key: key() },
        origin,
        at("2026-03-05"),
      ),
    ).toMatchObject({ ok: false, field: "amount", message: "That is more than your available credit of $3,500.00." });
    expect((await db.select().from(ledgerTransactions)).length).toBe(before);
    expect(
      await drawOnLine(
        db,
        member,
        { line_id: line.id, to_account_id: savings.id, amount_cents: 3_500_00, idempotency_key: key() },
        origin,
        at("2026-03-05"),
      ),
    ).toMatchObject({ ok: true, available_cents: 0 });
    expect(await balanceOf(savings.id)).toBe(200_00 + 3_500_00);
    const [tx] = await db.select().from(ledgerTransactions).where(eq(ledgerTransactions.kind, "loan_draw")).limit(1);
    expect(tx).toBeDefined();
  });

  it("two draws at once never exceed the limit: one is made, the other refused", async () => {
    const { member, checking, line } = await openLine("2026-03-06");
    const draw = () =>
      drawOnLine(
        db,
        member,
        { line_id: line.id, to_account_id: checking.id, amount_cents: 3_000_00, idempotency_key: key() },
        origin,
        at("2026-03-06"),
      );
    const answers = await Promise.all([draw(), draw()]);
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(answers.find((a) => !a.ok)).toMatchObject({
      field: "amount",
      message: expect.stringContaining("$2,000.00"),
    });
    expect(await balanceOf(line.receivable_account_id)).toBe(-3_000_00);
    expect(await db.select().from(creditLineActivity).where(eq(creditLineActivity.line_id, line.id))).toHaveLength(1);
  });

  it("another member's line is not found, and an account not the member's is refused", async () => {
    const { line } = await openLine("2026-03-07");
    const other = await fundedMember(db, { checking_cents: 100_00 });
    expect(
      await drawOnLine(
        db,
        other.member,
        { line_id: line.id, to_account_id: other.checking.id, amount_cents: 100_00, idempotency_key: key() },
        origin,
        at("2026-03-07"),
      ),
    ).toMatchObject({ ok: false, kind: "not_found" });
    expect(await memberLineDetail(db, other.member.id, line.id)).toBeNull();
    expect(await balanceOf(line.receivable_account_id)).toBe(0);
  });
});

describe("a line's life by the job clock", () => {
  it("accrues nightly, closes each month's cycle with its minimum, autopays, charges one late fee, and pays down", async () => {
    const { member, checking, savings, line } = await openLine("2026-01-15", 300_00);
    expect(
      await drawOnLine(
        db,
        member,
        { line_id: line.id, to_account_id: checking.id, amount_cents: 2_000_00, idempotency_key: key() },
        origin,
        at("2026-01-15"),
      ),
    ).toMatchObject({ ok: true });
    // The first night, by the loan-servicing job itself (the lines after the loans, counted
    // `line_`): one day's interest on $2,000 at 12.5%; a second run the same day nothing more.
    const night = await loanServicingJob.run({
      db,
      now: at("2026-01-16"),
      payload: {},
      run: { id: 1, key: "line-night", attempt: 1, max_attempts: 1 },
      log: logger,
    });
    expect(night).toMatchObject({ line_interest_cents: 68, line_failed: 0 });
    expect(await runLineServicing(db, at("2026-01-16"))).toMatchObject({ interest_cents: 0 });

    // February 15th: the first cycle closes on the balance with 31 days' interest; the minimum is 3%.
    let day = "2026-01-17";
    for (; day <= "2026-02-15"; day = addCalendarDays(day, 1)) await runLineServicing(db, at(day));
    const interest31 = accrueInterest(2_000_00, 125_000, 31, 0).interest_cents;
    const [first] = await db.select().from(creditLineCycles).where(eq(creditLineCycles.line_id, line.id));
    expect(first).toMatchObject({
      closed_on: "2026-02-15",
      due_on: "2026-03-12",
      balance_cents: 2_000_00 + interest31,
      minimum_due_cents: Math.ceil(((2_000_00 + interest31) * 3) / 100),
    });
    const detail = (await memberLineDetail(db, member.id, line.id, at("2026-02-16")))!;
    expect(detail.minimum_due).toEqual({ amount_cents: first!.minimum_due_cents, due_on: "2026-03-12" });

    // Autopay from checking takes the minimum on the due date: interest first, then principal.
    expect(await setLineAutopay(db, member, line.id, checking.id, origin, at("2026-02-16"))).toEqual({
      ok: true,
      on: true,
    });
    for (; day <= "2026-03-12"; day = addCalendarDays(day, 1)) await runLineServicing(db, at(day));
    const [autopay] = await db.select().from(creditLineActivity).where(eq(creditLineActivity.kind, "autopay"));
    expect(autopay).toMatchObject({
      line_id: line.id,
      amount_cents: first!.minimum_due_cents,
      on: "2026-03-12",
      fees_cents: 0,
    });
    expect(autopay!.interest_cents).toBeGreaterThan(0);
    expect((await memberLineDetail(db, member.id, line.id, at("2026-03-12")))!.minimum_due).toBeNull();

    // April: checking is emptied; the autopay fails (told once) and after 10 grace days the late fee, once.
    const cash = await institutionAccount(db, "cash");
    const left = await balanceOf(checking.id);
    expect(
      (
        await postTransfer(db, {
          idempotency_key: key(),
          initiator: `member:${member.id}`,
          kind: "withdrawal",
          created_by: member.id,
          effective_date: "2026-03-20",
          entries: [
            { account_id: checking.id, amount_cents: -left },
            { account_id: cash.id, amount_cents: left },
          ],
        })
      ).ok,
    ).toBe(true);
    for (; day <= "2026-04-22"; day = addCalendarDays(day, 1)) await runLineServicing(db, at(day));
    const cycles = await db.select().from(creditLineCycles).where(eq(creditLineCycles.line_id, line.id));
    const march = cycles.find((c) => c.closed_on === "2026-03-15")!;
    expect(march).toMatchObject({ due_on: "2026-04-09", autopay_failed: true, late_fee_charged: true, paid_cents: 0 });
    expect((await lineRow(line.id)).fees_due_cents).toBe(25_00);
    const told = await db.select().from(notifications).where(eq(notifications.member_id, member.id));
    expect(told.filter((n) => n.title.includes("autopay could not be made"))).toHaveLength(1);
    expect(told.filter((n) => n.title.includes("late fee"))).toHaveLength(1);
    expect(await runLineServicing(db, at("2026-04-22"))).toMatchObject({ late_fees: 0 });

    // The April cycle carries the unpaid March minimum.
    const april = cycles.find((c) => c.closed_on === "2026-04-15")!;
    expect(april.minimum_due_cents).toBe(
      Math.min(
        april.balance_cents,
        Math.max(Math.ceil((april.balance_cents * 3) / 100), 25_00) + march.minimum_due_cents,
      ),
    );

    // A payment from savings: the fee first, then interest, then principal; the available credit grows.
    const beforePay = (await memberLineDetail(db, member.id, line.id, at("2026-04-23")))!;
    const paid = await payLine(
      db,
      member,
      {
        line_id: line.id,
        from_account_id: savings.id,
        amount: { kind: "amount", amount_cents: 150_00 },
        idempotency_key: key(),
      },
      origin,
      at("2026-04-23"),
    );
    expect(paid).toMatchObject({ ok: true, fees_cents: 25_00 });
    if (!paid.ok) throw new Error(paid.message);
    expect(paid.interest_cents + paid.principal_cents).toBe(125_00);
    const afterPay = (await memberLineDetail(db, member.id, line.id, at("2026-04-23")))!;
    expect(afterPay.available_cents).toBeGreaterThan(beforePay.available_cents);
    expect(afterPay.fees_cents).toBe(0);
    // More than is owed is refused beside the amount, and nothing moves.
    expect(
      await payLine(
        db,
        member,
        {
          line_id: line.id,
          from_account_id: savings.id,
          amount: { kind: "amount", amount_cents: 9_000_00 },
          idempotency_key: key(),
        },
        origin,
        at("2026-04-23"),
      ),
    ).toMatchObject({ ok: false, field: "amount", message: expect.stringContaining("more than you owe") });

    // Paid off from a deposit: the line stays open with its whole limit available again.
    const deposit = await postTransfer(db, {
      idempotency_key: key(),
      initiator: `member:${member.id}`,
      kind: "deposit",
      created_by: member.id,
      effective_date: "2026-04-23",
      entries: [
        { account_id: cash.id, amount_cents: -3_000_00 },
        { account_id: savings.id, amount_cents: 3_000_00 },
      ],
    });
    expect(deposit.ok).toBe(true);
    expect(
      await payLine(
        db,
        member,
        { line_id: line.id, from_account_id: savings.id, amount: { kind: "payoff" }, idempotency_key: key() },
        origin,
        at("2026-04-24"),
      ),
    ).toMatchObject({ ok: true });
    const cleared = (await memberLineDetail(db, member.id, line.id, at("2026-04-24")))!;
    expect(cleared).toMatchObject({ balance_cents: 0, drawn_cents: 0, available_cents: 5_000_00, status: "active" });
    expect((await lineRow(line.id)).accrued_interest_cents).toBe(0);
    expect(await balanceOf(line.receivable_account_id)).toBe(0);

    const books = await trialBalanceAsOf(db, "2026-04-24");
    expect(books.balanced).toBe(true);
    expect((await db.select().from(auditLog).where(eq(auditLog.member_id, member.id))).map((a) => a.action)).toEqual(
      expect.arrayContaining(["loan.accept", "line.draw", "line.autopay_on", "line.autopay", "line.pay"]),
    );
    expect((await verifyLedger(db)).problems).toEqual([]);
  });
});

import "../identity-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { extractText, getDocumentProxy } from "unpdf";
import type { Database, Db } from "~/server/db/client.server";
import {
  auditLog,
  ledgerAccounts,
  ledgerTransactions,
  loanApplications,
  loanScheduledPayments,
  loans,
  notifications,
  outbox,
  outboxAttachments,
} from "~/server/db/schema";
import { verifyLedger } from "~/server/ledger/verify.server";
import { glDayTotals, trialBalanceAsOf } from "~/server/books/books.server";
import { reverseTransaction } from "~/server/ledger/ledger.server";
import { applyForLoan, decideApplication, type ApplyInput } from "~/server/loans/applications.server";
import { acceptOffer, NO_CHECKING } from "~/server/loans/offer-acceptance.server";
import {
  applicationQueue,
  memberApplication,
  memberApplications,
  memberDisclosurePdf,
  staffApplication,
} from "~/server/loans/application-views.server";
import { memberLoans } from "~/server/loans/loan-views.server";
import { isEncryptedField } from "~/server/security/crypto.server";
import { ECOA_NOTICE } from "~/domain/loans/products";
import { openTestDatabase } from "../test-database";
import { fundedMember, staff as newStaff } from "../../factories";

/**
 * Loans, the first slice (docs/product.md#loans, issue 33): apply, decide (approve, counter,
 * decline with Regulation B's reasons), accept an offer after its Truth in Lending disclosure, the
 * disclosure kept as a PDF. Refusals change nothing.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "loan-applications", ip: "198.51.100.33" };
const now = new Date("2026-03-10T15:00:00Z");

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  staff = await newStaff(db);
});
afterAll(async () => {
  if (db) expect((await verifyLedger(db)).problems).toEqual([]);
  await database?.close();
});

const application = (overrides: Partial<ApplyInput> = {}): ApplyInput => ({
  product_slug: "personal",
  amount_cents: 5_000_00,
  term_months: 36,
  purpose: "Kitchen repairs",
  annual_income_cents: 62_000_00,
  employer: "Harbor Freight Lines",
  idempotency_key: crypto.randomUUID(),
  ...overrides,
});

async function applied(overrides: Partial<ApplyInput> = {}) {
  const funded = await fundedMember(db, { checking_cents: 10_000 });
  const answer = await applyForLoan(db, funded.member, application(overrides), origin, now);
  if (!answer.ok) throw new Error(answer.message);
  return { member: funded.member, checking: funded.checking, id: answer.application_id };
}

const balanceOf = async (account_id: number) =>
  (await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, account_id)))[0]!.posted_cents;

const rowOf = async (id: number) => (await db.select().from(loanApplications).where(eq(loanApplications.id, id)))[0]!;
const mailTo = (email: string) => db.select().from(outbox).where(eq(outbox.to_email, email.toLowerCase()));

describe("applying", () => {
  it("stores the request with income and employer encrypted, tells the member, and a repeat makes one", async () => {
    const { member } = await fundedMember(db, { checking_cents: 10_000 });
    const input = application();
    const first = await applyForLoan(db, member, input, origin, now);
    const again = await applyForLoan(db, member, input, origin, now);
    expect(first).toMatchObject({ ok: true, replayed: false });
    expect(again).toMatchObject({ ok: true, replayed: true });
    const rows = await db.select().from(loanApplications).where(eq(loanApplications.member_id, member.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: "submitted",
      amount_cents: 5_000_00,
      term_months: 36,
      product_name: "Personal Loan",
    });
    expect(isEncryptedField(rows[0]!.income_enc)).toBe(true);
    expect(rows[0]!.employer_enc).not.toContain("Harbor");
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "loan.apply"), eq(auditLog.member_id, member.id)));
    expect(JSON.stringify(audit)).not.toContain("Harbor");
    expect(JSON.stringify(audit)).not.toContain("6200000");
    expect((await mailTo(member.email)).map((m) => m.subject)).toEqual(["We received your personal loan application"]);
    expect(await memberApplications(db, member.id, now)).toEqual([
      expect.objectContaining({ status: "submitted", status_label: "Under review", applied_on: "2026-03-10" }),
    ]);
    const staffView = await staffApplication(db, rows[0]!.id, now);
    expect(staffView).toMatchObject({ annual_income_cents: 62_000_00, employer: "Harbor Freight Lines" });
  });

  it("refuses an amount or term outside the product and a product not offered, storing nothing", async () => {
    const { member } = await fundedMember(db, { checking_cents: 10_000 });
    expect(await applyForLoan(db, member, application({ amount_cents: 999_99 }), origin, now)).toMatchObject({
      ok: false,
      field: "amount",
      message: "Enter an amount from $1,000 to $50,000.",
    });
    expect(await applyForLoan(db, member, application({ term_months: 84 }), origin, now)).toMatchObject({
      ok: false,
      field: "term_months",
    });
    expect(await applyForLoan(db, member, application({ product_slug: "yacht" }), origin, now)).toMatchObject({
      ok: false,
      kind: "not_found",
    });
    expect(await db.select().from(loanApplications).where(eq(loanApplications.member_id, member.id))).toEqual([]);
    expect(await mailTo(member.email)).toEqual([]);
  });
});

describe("deciding and accepting", () => {
  it("approve: the member sees the Truth in Lending box, accepts, the loan is booked, and the disclosure is kept as a PDF and emailed", async () => {
    const { member, checking, id } = await applied();
    const decided = await decideApplication(
      db,
      { staff, origin, application_id: id, decision: { outcome: "approve", rate_ppm: 89_900, term_months: 36 } },
      now,
    );
    expect(decided).toMatchObject({ ok: true });
    const offer = await memberApplication(db, member.id, id, now);
    expect(offer).toMatchObject({ status: "approved", may_accept: true, offer_expires_on: "2026-04-09" });
    const box = offer!.disclosure!;
    expect(box.amount_financed_cents).toBe(5_000_00);
    expect(box.finance_charge_cents).toBe(box.total_of_payments_cents - 5_000_00);
    expect(Math.abs(box.apr_bp - 899)).toBeLessThanOrEqual(12); // within 1/8 of a point of the note rate, no fee
    expect(box.payments).toHaveLength(36);
    expect(box.first_payment_on).toBe("2026-04-10");

    const later = new Date("2026-03-12T15:00:00Z");
    expect(await acceptOffer(db, member, id, origin, later)).toEqual({ ok: true, application_id: id });
    const row = await rowOf(id);
    expect(row.status).toBe("accepted");
    // Booked: one ledger transaction from the loan's receivable into the member's checking.
    expect(await balanceOf(checking.id)).toBe(10_000 + 5_000_00);
    const [loan] = await db.select().from(loans).where(eq(loans.application_id, id));
    expect(loan).toMatchObject({ member_id: member.id, principal_cents: 5_000_00, rate_ppm: 89_900, term_months: 36 });
    expect(await balanceOf(loan!.receivable_account_id)).toBe(-5_000_00);
    const [receivable] = await db
      .select()
      .from(ledgerAccounts)
      .where(eq(ledgerAccounts.id, loan!.receivable_account_id));
    expect(receivable).toMatchObject({ owner: "institution", type: "loan_receivable", member_id: null });
    const [paid] = await db
      .select()
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.id, loan!.disbursement_transaction_id));
    expect(paid).toMatchObject({ kind: "loan_disbursement", status: "posted", effective_date: "2026-03-12" });
    const schedule = await db.select().from(loanScheduledPayments).where(eq(loanScheduledPayments.loan_id, loan!.id));
    expect(schedule).toHaveLength(36);
    expect(schedule.reduce((sum, p) => sum + p.principal_cents, 0)).toBe(5_000_00);
    expect(schedule.at(-1)!.balance_after_cents).toBe(0);
    // The disbursement cannot be reversed: the loan would stay on the books without its money.
    expect(
      await reverseTransaction(db, {
        transaction_id: paid!.id,
        idempotency_key: crypto.randomUUID(),
        initiator: `staff:${staff.id}`,
        created_by: staff.id,
      }),
    ).toMatchObject({ ok: false, code: "loan_disbursement_not_reversible" });
    // The member's loans: the balance from the ledger, the next payment, the rate.
    expect(await memberLoans(db, member.id, later)).toEqual([
      expect.objectContaining({
        balance_cents: 5_000_00,
        rate_ppm: 89_900,
        next_payment: { due_on: "2026-04-12", payment_cents: schedule[0]!.payment_cents },
      }),
    ]);
    const pdf = await memberDisclosurePdf(db, member.id, id);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf!)), { mergePages: true });
    const accepted = await memberApplication(db, member.id, id, later);
    const kept = accepted!.disclosure!;
    expect(kept.disbursed_on).toBe("2026-03-12");
    for (const words of [
      "Truth in Lending disclosure",
      "Annual percentage rate",
      "Finance charge",
      "Amount financed",
      "Total of payments",
    ])
      expect(text).toContain(words);
    expect(text).toContain(`${(kept.apr_bp / 100).toFixed(2)}%`);
    expect(text).toContain("$5,000.00");
    const mails = await mailTo(member.email);
    const acceptedMail = mails.find((m) => m.subject.includes("the disclosure you accepted"))!;
    expect(acceptedMail.text_body).toContain("Annual percentage rate");
    const files = await db.select().from(outboxAttachments).where(eq(outboxAttachments.outbox_id, acceptedMail.id));
    expect(files.map((f) => f.content_type)).toEqual(["application/pdf"]);
    // The books: every loan's receivable is one control line of the trial balance and of the day's
    // GL totals, which both still balance (the books would miss the loan otherwise).
    const books = await trialBalanceAsOf(db, "2026-03-12");
    expect(books.balanced).toBe(true);
    expect(books.lines.find((l) => l.code === "loan_receivable")?.balance_cents).toBeLessThanOrEqual(-5_000_00);
    const day = await glDayTotals(db, "2026-03-12");
    expect(day.find((l) => l.code === "loan_receivable")?.debits_cents).toBeGreaterThanOrEqual(5_000_00);
    expect(day.reduce((sum, l) => sum + l.debits_cents, 0)).toBe(day.reduce((sum, l) => sum + l.credits_cents, 0));
    // Accepting twice is the same acceptance: nothing more is paid out.
    expect(await acceptOffer(db, member, id, origin, later)).toEqual({ ok: true, application_id: id });
    expect(await balanceOf(checking.id)).toBe(10_000 + 5_000_00);
    expect(await db.select().from(loans).where(eq(loans.application_id, id))).toHaveLength(1);
  });

  it("counter: other terms within the product; the same terms as asked are refused", async () => {
    const { member, id } = await applied();
    const same = await decideApplication(db, {
      staff,
      origin,
      application_id: id,
      decision: { outcome: "counter", amount_cents: 5_000_00, term_months: 36, rate_ppm: 99_900 },
    });
    expect(same).toMatchObject({ ok: false, field: "amount" });
    const tooHigh = await decideApplication(db, {
      staff,
      origin,
      application_id: id,
      decision: { outcome: "counter", amount_cents: 3_000_00, term_months: 24, rate_ppm: 190_000 },
    });
    expect(tooHigh).toMatchObject({ ok: false, field: "rate" });
    expect((await rowOf(id)).status).toBe("submitted");
    const countered = await decideApplication(
      db,
      {
        staff,
        origin,
        application_id: id,
        decision: { outcome: "counter", amount_cents: 3_000_00, term_months: 24, rate_ppm: 119_900 },
      },
      now,
    );
    expect(countered).toMatchObject({ ok: true });
    const view = await memberApplication(db, member.id, id, now);
    expect(view).toMatchObject({
      status: "countered",
      offer: { amount_cents: 3_000_00, term_months: 24, counter: true },
    });
    expect(view!.disclosure!.amount_financed_cents).toBe(3_000_00);
    // Deciding twice is refused and changes nothing.
    const again = await decideApplication(db, {
      staff,
      origin,
      application_id: id,
      decision: { outcome: "decline", reasons: ["income_insufficient"], other_text: null },
    });
    expect(again).toMatchObject({ ok: false, kind: "conflict" });
    expect((await rowOf(id)).status).toBe("countered");
  });

  it("decline: the notice names the reasons and carries the ECOA notice, in the app and by email", async () => {
    const { member, id } = await applied();
    const noReason = await decideApplication(db, {
      staff,
      origin,
      application_id: id,
      decision: { outcome: "decline", reasons: [], other_text: null },
    });
    expect(noReason).toMatchObject({ ok: false, field: "reasons" });
    const otherBlank = await decideApplication(db, {
      staff,
      origin,
      application_id: id,
      decision: { outcome: "decline", reasons: ["other"], other_text: "  " },
    });
    expect(otherBlank).toMatchObject({ ok: false, field: "other_text" });
    expect((await rowOf(id)).status).toBe("submitted");
    const declined = await decideApplication(
      db,
      {
        staff,
        origin,
        application_id: id,
        decision: {
          outcome: "decline",
          reasons: ["excessive_obligations", "other"],
          other_text: "Too many recent inquiries",
        },
      },
      now,
    );
    expect(declined).toMatchObject({ ok: true });
    const view = await memberApplication(db, member.id, id, now);
    expect(view).toMatchObject({
      status: "declined",
      may_accept: false,
      disclosure: null,
      adverse_action: {
        decided_on: "2026-03-10",
        reasons: ["Excessive obligations in relation to income", "Too many recent inquiries"],
      },
    });
    const notice = (await mailTo(member.email)).find((m) => m.subject.startsWith("Our decision"))!;
    expect(notice.text_body).toContain("Excessive obligations in relation to income");
    expect(notice.text_body).toContain("Too many recent inquiries");
    expect(notice.text_body).toContain(ECOA_NOTICE.slice(0, 80));
    const told = await db.select().from(notifications).where(eq(notifications.member_id, member.id));
    expect(told.map((n) => n.kind)).toEqual(["loan_update", "loan_update"]);
    expect(await acceptOffer(db, member, id, origin, now)).toMatchObject({ ok: false, kind: "conflict" });
  });

  it("a member without an open checking account cannot accept: nothing is booked or changed", async () => {
    const { member, checking, id } = await applied();
    await decideApplication(
      db,
      { staff, origin, application_id: id, decision: { outcome: "approve", rate_ppm: 69_900, term_months: 24 } },
      now,
    );
    await db.update(ledgerAccounts).set({ status: "closed" }).where(eq(ledgerAccounts.id, checking.id));
    expect(await acceptOffer(db, member, id, origin, now)).toMatchObject({ ok: false, message: NO_CHECKING });
    expect((await rowOf(id)).status).toBe("approved");
    expect(await db.select().from(loans).where(eq(loans.application_id, id))).toEqual([]);
    await db.update(ledgerAccounts).set({ status: "active" }).where(eq(ledgerAccounts.id, checking.id));
  });

  it("an offer lapses after 30 days; another member cannot read or accept it; the queue lists it", async () => {
    const { member, id } = await applied();
    const { member: other } = await fundedMember(db, { checking_cents: 10_000 });
    expect((await applicationQueue(db, now)).waiting.map((a) => a.id)).toContain(id);
    await decideApplication(
      db,
      { staff, origin, application_id: id, decision: { outcome: "approve", rate_ppm: 59_900, term_months: 12 } },
      now,
    );
    expect(await memberApplication(db, other.id, id, now)).toBeNull();
    expect(await memberDisclosurePdf(db, other.id, id)).toBeNull();
    expect(await acceptOffer(db, other, id, origin, now)).toMatchObject({ ok: false, kind: "not_found" });
    const late = new Date("2026-04-10T15:00:00Z");
    expect(await memberApplication(db, member.id, id, late)).toMatchObject({ status: "lapsed", may_accept: false });
    expect(await acceptOffer(db, member, id, origin, late)).toMatchObject({ ok: false, kind: "conflict" });
    expect((await rowOf(id)).status).toBe("approved");
  });
});

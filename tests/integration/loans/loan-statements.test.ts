import "../identity-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, inArray, sql } from "drizzle-orm";
import { pino } from "pino";
import { extractText, getDocumentProxy } from "unpdf";
import type { Database, Db } from "~/server/db/client.server";
import { accountStatements, loanEvents, loanPayments, loanStatements, loans, notifications } from "~/server/db/schema";
import { verifyLedger } from "~/server/ledger/verify.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { applyForLoan, decideApplication } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { payLoan, setAutopay } from "~/server/loans/servicing.server";
import { memberLoanDetail, type LoanDetailView } from "~/server/loans/loan-views.server";
import { memberLoanStatementPdf, memberLoanStatements } from "~/server/statements/loan-statements.server";
import { paperDeliveryMembers, seedConsent } from "~/server/electronic-delivery/electronic-delivery.server";
import { dashboard } from "~/server/accounts/overview.server";
import { manualJobClock } from "~/server/jobs/clock.server";
import { JobRunner } from "~/server/jobs/runner.server";
import type { JobDefinition } from "~/server/jobs/job";
import { loanServicingJob, monthlyStatementsJob } from "~/server/jobs/registry.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { openTestDatabase } from "../test-database";
import { accepted } from "../ledger-fixtures";
import { key } from "../member-support";
import { fundedMember, staff as newStaff } from "../../factories";

/**
 * A loan's monthly statement (docs/product.md#loan-statements, issue 33): two loans serviced night
 * by night by the job clock through April (one by autopay, one by hand with an extra payment),
 * then the monthly statement job on 1 May makes each loan's April statement, kept, the member told
 * once, a paper copy marked for the member without E-SIGN consent; its figures are the ledger's
 * and the loan page's, read back from the PDF by an independent reader; a second run makes none.
 * And the dashboard's month figures: a loan paid out is not income, a loan payment not spending.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "loan-statements", ip: "198.51.100.35" };
const at = (day: string) => new Date(`${day}T15:00:00Z`);

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  staff = await newStaff(db);
});
afterAll(async () => {
  if (db) expect((await verifyLedger(db)).problems).toEqual([]);
  await database?.close();
});

async function pdfText(pdf: Uint8Array): Promise<string> {
  const document = await getDocumentProxy(new Uint8Array(pdf));
  const { text } = await extractText(document, { mergePages: true });
  return text;
}

/** A member with a booked personal loan of `amount_cents` at 8.99% for 36 months, paid out on `day`. */
async function bookedLoan(day: string, amount_cents: number) {
  const funded = await fundedMember(db, { checking_cents: 2_000_00 });
  const applied = await applyForLoan(
    db,
    funded.member,
    {
      product_slug: "personal",
      amount_cents,
      term_months: 36,
      purpose: "Roof",
      annual_income_cents: 70_000_00,
      employer: "Seacoast Boatworks",
      idempotency_key: crypto.randomUUID(),
    },
    origin,
    at(day),
  );
  if (!applied.ok) throw new Error(applied.message);
  const decided = await decideApplication(
    db,
    {
      staff,
      origin,
      application_id: applied.application_id,
      decision: { outcome: "approve", rate_ppm: 89_900, term_months: 36 },
    },
    at(day),
  );
  if (!decided.ok) throw new Error(decided.message);
  const done = await acceptOffer(db, funded.member, applied.application_id, origin, at(day));
  if (!done.ok) throw new Error(done.message);
  const [loan] = await db.select().from(loans).where(eq(loans.application_id, applied.application_id));
  return { ...funded, loan: loan! };
}

/** The ledger's own sums for a loan by the end of a day, read straight from the entries. */
async function ledgerOwed(loan: { id: number; receivable_account_id: number }, day: string) {
  const receivable = await db.execute(sql`
    select coalesce(sum(e.amount_cents), 0)::text as cents
      from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
     where e.account_id = ${loan.receivable_account_id} and t.effective_date <= ${day}::date`);
  const interest = await db.execute(sql`
    select coalesce(sum(e.amount_cents), 0)::text as cents
      from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
      join ledger_accounts a on a.id = e.account_id and a.type = 'interest_receivable'
     where t.effective_date <= ${day}::date
       and t.id in (select transaction_id from loan_events where loan_id = ${loan.id}
                    union select transaction_id from loan_payments where loan_id = ${loan.id})`);
  return {
    principal_and_fees_cents: -Number(receivable.rows[0]!.cents),
    interest_cents: -Number(interest.rows[0]!.cents),
  };
}

describe("a loan's monthly statement", () => {
  it("is made by the monthly job for April after a month of payments, equal to the ledger and the loan page, once", async () => {
    const a = await bookedLoan("2026-03-12", 5_000_00);
    await seedConsent(db, a.member.id, at("2026-03-01"));
    expect(await setAutopay(db, a.member, a.loan.id, a.checking.id, origin, at("2026-03-12"))).toMatchObject({
      ok: true,
    });
    const b = await bookedLoan("2026-03-20", 2_000_00);

    const clock = manualJobClock(new Date("2026-03-12T16:00:00Z"));
    const runner = new JobRunner({
      db,
      kind: database.kind,
      clock,
      jobs: [loanServicingJob, monthlyStatementsJob] as JobDefinition<never>[],
      time_zone: institution().time_zone,
      logger: pino({ level: "silent" }),
      poll_ms: 60_000,
      lease_ms: 60_000,
    });
    await runner.runDue();
    const page: Record<string, LoanDetailView> = {};
    for (let now = await clock.now(); now < new Date("2026-05-01T16:00:00Z");) {
      now = await clock.advance(24 * 60 * 60_000);
      const day = businessDate(institution().time_zone, now);
      // B pays by hand: a payment in April and an extra one later in the month.
      if (day === "2026-04-15" || day === "2026-04-25") {
        const paid = await payLoan(
          db,
          b.member,
          {
            loan_id: b.loan.id,
            from_account_id: b.checking.id,
            amount: { kind: "amount", amount_cents: day === "2026-04-15" ? 200_00 : 75_00 },
            idempotency_key: key(),
          },
          origin,
          now,
        );
        expect(paid).toMatchObject({ ok: true });
      }
      const outcomes = await runner.runDue();
      expect(outcomes.every((o) => o.outcome === "succeeded")).toBe(true);
      if (day === "2026-03-31" || day === "2026-04-30") {
        page[`a:${day}`] = (await memberLoanDetail(db, a.member.id, a.loan.id, now))!;
        page[`b:${day}`] = (await memberLoanDetail(db, b.member.id, b.loan.id, now))!;
      }
    }

    // The job made March's on 1 April and April's on 1 May, for both loans; each member told.
    const kept = await db
      .select()
      .from(loanStatements)
      .where(inArray(loanStatements.loan_id, [a.loan.id, b.loan.id]))
      .orderBy(loanStatements.loan_id, loanStatements.period_month);
    expect(kept.map((s) => [s.loan_id, s.period_month, s.created_by])).toEqual([
      [a.loan.id, "2026-03", "system:statements"],
      [a.loan.id, "2026-04", "system:statements"],
      [b.loan.id, "2026-03", "system:statements"],
      [b.loan.id, "2026-04", "system:statements"],
    ]);
    // E-SIGN: A consented, B did not, so B's is also to be mailed.
    expect(kept.map((s) => s.mail_paper_copy)).toEqual([false, false, true, true]);
    // And B's paper list counts them with the accounts' statements to mail.
    const accounts_marked = await db
      .select()
      .from(accountStatements)
      .where(and(eq(accountStatements.member_id, b.member.id), eq(accountStatements.mail_paper_copy, true)));
    expect((await paperDeliveryMembers(db, 100_000)).find((m) => m.member_id === b.member.id)).toMatchObject({
      statements_to_mail: accounts_marked.length + 2,
    });
    const told = await db
      .select()
      .from(notifications)
      .where(
        and(eq(notifications.kind, "statement_ready"), inArray(notifications.member_id, [a.member.id, b.member.id])),
      );
    expect(
      told
        .filter((n) => n.title === "Your April 2026 loan statement is ready")
        .map((n) => n.body)
        .sort(),
    ).toEqual(
      [
        `The statement for Personal Loan L-${String(a.loan.id).padStart(6, "0")} is on your Statements page.`,
        `The statement for Personal Loan L-${String(b.loan.id).padStart(6, "0")} is on your Statements page.`,
      ].sort(),
    );

    for (const [who, x] of [
      ["a", a],
      ["b", b],
    ] as const) {
      const april = kept.find((s) => s.loan_id === x.loan.id && s.period_month === "2026-04")!;
      const march_end = page[`${who}:2026-03-31`]!;
      const april_end = page[`${who}:2026-04-30`]!;
      // Equal to the loan page at each month's end, and to the ledger's own sums.
      expect(april.opening_cents).toBe(march_end.balance_cents);
      expect(april.closing_cents).toBe(april_end.balance_cents);
      expect(april.principal_cents).toBe(april_end.owed.principal_cents);
      const ledger = await ledgerOwed(x.loan, "2026-04-30");
      expect(ledger).toEqual({
        principal_and_fees_cents: april_end.owed.principal_cents + april_end.owed.fees_cents,
        interest_cents: april_end.owed.interest_cents,
      });
      // The month's payments and interest, from the loan's records.
      const payments = await db
        .select()
        .from(loanPayments)
        .where(
          and(eq(loanPayments.loan_id, x.loan.id), sql`${loanPayments.paid_on} between '2026-04-01' and '2026-04-30'`),
        )
        .orderBy(loanPayments.id);
      const interest = await db
        .select()
        .from(loanEvents)
        .where(
          and(
            eq(loanEvents.loan_id, x.loan.id),
            eq(loanEvents.kind, "interest"),
            sql`${loanEvents.on} between '2026-04-01' and '2026-04-30'`,
          ),
        );
      expect(april.paid_cents).toBe(payments.reduce((s, p) => s + p.amount_cents, 0));
      expect(april.interest_charged_cents).toBe(interest.reduce((s, e) => s + e.amount_cents, 0));
      expect(april.interest_charged_cents).toBeGreaterThan(0);

      // Read back from the PDF: every figure and every payment with its parts.
      const text = await pdfText(april.pdf);
      expect(text).toContain("Loan statement");
      expect(text).toContain("April 2026: 2026-04-01 to 2026-04-30");
      expect(text).toContain(`Balance owed at the start ${formatCents(march_end.balance_cents)}`);
      expect(text).toContain(`Balance owed at the end ${formatCents(april_end.balance_cents)}`);
      expect(text).toContain(`of which principal outstanding ${formatCents(april_end.owed.principal_cents)}`);
      expect(text).toContain(`Interest charged ${formatCents(april.interest_charged_cents)}`);
      expect(text).toContain(`Payments ${formatCents(-april.paid_cents)}`);
      expect(text).toContain("Interest rate 8.99%");
      expect(text).toContain(institution().support_phone);
      for (const p of payments)
        expect(text).toContain(
          `${p.paid_on} Personal Loan L-${String(x.loan.id).padStart(6, "0")}: ${p.kind === "autopay" ? "autopay" : "payment"} ${formatCents(-p.amount_cents)}`,
        );
      for (const p of payments)
        expect(text).toContain(
          `Applied: principal ${formatCents(p.principal_cents)}, interest ${formatCents(p.interest_cents)}, fees ${formatCents(p.fees_cents)}`,
        );
      // What is due, as the loan page said at the month's end.
      expect(april_end.next_payment).not.toBeNull();
      expect(april.due_on).toBe(april_end.next_payment!.due_on);
      expect(april.amount_due_cents).toBe(april_end.next_payment!.amount_cents);
      expect(text).toContain(`Payment due date ${formatBusinessDate(april.due_on!)}`);
      expect(text).toContain(`Amount due ${formatCents(april.amount_due_cents!)}`);
      expect(text).toContain("late fee will be charged");
    }
    // B paid $275 in April toward a first payment due 20 April: nothing past due.
    expect(kept.find((s) => s.loan_id === b.loan.id && s.period_month === "2026-04")!.past_due_cents).toBe(0);

    // The next weekday's run makes none again and tells no one again.
    const before = told.length;
    await clock.advance(3 * 24 * 60 * 60_000); // Monday 4 May
    expect((await runner.runDue()).every((o) => o.outcome === "succeeded")).toBe(true);
    expect(
      await db
        .select()
        .from(loanStatements)
        .where(inArray(loanStatements.loan_id, [a.loan.id, b.loan.id])),
    ).toHaveLength(4);
    expect(
      await db
        .select()
        .from(notifications)
        .where(
          and(eq(notifications.kind, "statement_ready"), inArray(notifications.member_id, [a.member.id, b.member.id])),
        ),
    ).toHaveLength(before);

    // The member downloads: the kept statement as made; another member's loan is not found; a
    // month before the loan or not ended is refused; nothing more is made.
    const now = await clock.now();
    const mine = await memberLoanStatementPdf(db, a.member.id, String(a.loan.id), "2026-04", now);
    expect(mine).toMatchObject({
      ok: true,
      file_name: `loan-statement-L-${String(a.loan.id).padStart(6, "0")}-2026-04.pdf`,
    });
    expect(Buffer.compare((mine as { pdf: Buffer }).pdf, kept[1]!.pdf)).toBe(0);
    expect(await memberLoanStatementPdf(db, b.member.id, String(a.loan.id), "2026-04", now)).toMatchObject({
      ok: false,
      kind: "not_found",
    });
    for (const month of ["2026-02", "2026-05", "2026-13", "x"])
      expect(await memberLoanStatementPdf(db, a.member.id, String(a.loan.id), month, now)).toMatchObject({
        ok: false,
        kind: "bad_input",
      });
    expect(
      await db
        .select()
        .from(loanStatements)
        .where(inArray(loanStatements.loan_id, [a.loan.id, b.loan.id])),
    ).toHaveLength(4);
    expect(await memberLoanStatements(db, a.member.id, now)).toEqual([
      {
        id: a.loan.id,
        number: `L-${String(a.loan.id).padStart(6, "0")}`,
        product_name: "Personal Loan",
        months: [
          { month: "2026-04", label: "April 2026" },
          { month: "2026-03", label: "March 2026" },
        ],
      },
    ]);
  });
});

describe("the dashboard's month figures", () => {
  it("count neither a loan paid out as income nor a loan payment as spending", async () => {
    const m = await bookedLoan("2026-06-10", 3_000_00);
    const cash = await institutionAccount(db, "cash");
    const move = (amount_cents: number, date: string, category: string) =>
      accepted(
        postTransfer(db, {
          kind: amount_cents > 0 ? "ach_in" : "card_payment",
          initiator: "system:test",
          idempotency_key: key(),
          created_by: "test",
          effective_date: date,
          category,
          memo: category,
          entries: [
            { account_id: m.checking.id, amount_cents },
            { account_id: cash.id, amount_cents: -amount_cents },
          ],
        }),
      );
    await move(1_000_00, "2026-06-12", "Income");
    await move(-50_00, "2026-06-14", "Shopping");
    const paid = await payLoan(
      db,
      m.member,
      {
        loan_id: m.loan.id,
        from_account_id: m.checking.id,
        amount: { kind: "amount", amount_cents: 120_00 },
        idempotency_key: key(),
      },
      origin,
      at("2026-06-15"),
    );
    expect(paid).toMatchObject({ ok: true });
    const d = await dashboard(db, m.member, at("2026-06-20"));
    expect(d.month).toMatchObject({ label: "June 2026", income_cents: 1_000_00, outgoing_cents: 50_00 });
    expect(d.spending.categories).toEqual([{ category: "Shopping", amount_cents: 50_00 }]);
    // The account's own history still shows both, and its balance moved by both.
    expect(d.recent.map((r) => r.amount_cents)).toEqual(expect.arrayContaining([3_000_00, -120_00]));
  });
});

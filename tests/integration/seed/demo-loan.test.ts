import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { loanPayments, loanStatements, loans, users } from "~/server/db/schema";
import { seedDemoAtStartup } from "~/server/seed/startup.server";
import { seedDemoLoan } from "~/server/seed/demo-loan.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { memberLoanDetail } from "~/server/loans/loan-views.server";
import { memberLoanStatementPdf, memberLoanStatements } from "~/server/loans/statements.server";
import { businessDate } from "~/domain/ledger-rules";
import { institution } from "~/config/institution.server";
import { addMonths, monthOfDate } from "~/domain/statements";
import { openTestDatabase } from "../test-database";

/**
 * The demo's loan (app/server/seed/demo-loan.server.ts): Sam Okafor's personal loan, paid out on
 * the 10th three months ago, autopaid on each due date since, with its monthly statements; made
 * once, the ledger in balance.
 */
let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe("the demo's loan", () => {
  it("is Sam's, three months old, paid by autopay on each due date, with a statement for each month since", async () => {
    const db = database.db;
    await seedDemoAtStartup(database);
    const [sam] = await db.select().from(users).where(eq(users.email, "sam.okafor@harborview.example"));
    const booked = await db.select().from(loans).where(eq(loans.member_id, sam!.id));
    expect(booked).toHaveLength(1);
    const now = new Date();
    const this_month = monthOfDate(businessDate(institution().time_zone, now));
    const today = businessDate(institution().time_zone, now);
    expect(booked[0]).toMatchObject({ disbursed_on: `${addMonths(this_month, -3)}-10`, principal_cents: 6_000_00 });
    const payments = await db.select().from(loanPayments).where(eq(loanPayments.loan_id, booked[0]!.id));
    const dues = [2, 1, 0].map((n) => `${addMonths(this_month, -n)}-10`).filter((d) => d <= today);
    expect(payments.map((p) => [p.kind, p.paid_on]).sort()).toEqual(dues.map((d) => ["autopay", d]));
    const detail = await memberLoanDetail(db, sam!.id, booked[0]!.id, now);
    expect(detail!.balance_cents).toBeLessThan(6_000_00 + detail!.owed.interest_cents);
    const [listed] = await memberLoanStatements(db, sam!.id, now);
    expect(listed!.months.map((m) => m.month)).toEqual([1, 2, 3].map((n) => addMonths(this_month, -n)));
    expect(
      await memberLoanStatementPdf(db, sam!.id, String(booked[0]!.id), addMonths(this_month, -1), now),
    ).toMatchObject({ ok: true });
    // Last month's end as the nightly job leaves it: the interest since the 10th accrued, unpaid.
    const [kept] = await db.select().from(loanStatements).where(eq(loanStatements.loan_id, booked[0]!.id));
    expect(kept!.closing_cents).toBeGreaterThan(kept!.principal_cents);
    expect((await verifyLedger(db)).problems).toEqual([]);
    // Once: a second start makes no second loan.
    expect(await seedDemoLoan(db)).toBe(false);
    expect(await db.select().from(loans).where(eq(loans.member_id, sam!.id))).toHaveLength(1);
  });
});

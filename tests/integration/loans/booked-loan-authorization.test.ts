import "../admin-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, ledgerTransactions, loanEvents, loanStaffActions, loans } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { runLoanServicing } from "~/server/loans/servicing.server";
import { addCalendarDays } from "~/domain/payment-dates";
import * as bookedRoute from "~/routes/admin/booked-loan";
import * as queueRoute from "~/routes/admin/loans";
import { person } from "../admin-support";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { bookLoan, castPeople } from "./loan-fixtures";

/**
 * Who may see a booked loan in the back office and correct it (docs/product.md#booked-loans-staff):
 * staff and reviewers read it; only staff who may move money waive a fee, correct an entry or
 * decide another's correction; members, applicants and accountants are sent away. A refused
 * request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "accountant" | "staff" | "checker";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "accountant", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let loan_id = 0;
let fee_transaction_id = 0;
let interest_transaction_id = 0;
const at = (day: string) => new Date(`${day}T15:00:00Z`);

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, { member: { checking_cents: 10_000 } });
  loan_id = await bookLoan(db, cast, { at: at("2026-01-05") });
  // Unpaid past the grace days: a late fee to waive.
  for (let day = "2026-01-06"; day <= "2026-02-16"; day = addCalendarDays(day, 1)) await runLoanServicing(db, at(day));
  const eventTx = async (kind: "late_fee" | "interest") =>
    (
      await db
        .select()
        .from(loanEvents)
        .where(and(eq(loanEvents.loan_id, loan_id), eq(loanEvents.kind, kind)))
    )[0]!.transaction_id!;
  fee_transaction_id = await eventTx("late_fee");
  interest_transaction_id = await eventTx("interest");
  people = await SignedIn.as(db, {
    ...castPeople(cast),
    checker: (await person(db, "admin")).id,
    accountant: (await person(db, "accountant")).id,
  });
});
afterAll(async () => {
  await database?.close();
});
afterEach(async () => {
  expect((await verifyLedger(database.db)).problems).toEqual([]);
});

const context = routeContext({ request_id: "booked-loan-matrix", ip: "203.0.113.83" });
const path = () => `/admin/loans/booked/${loan_id}`;

async function snapshot() {
  const db = database.db;
  const n = async (table: typeof auditLog | typeof ledgerTransactions | typeof loanStaffActions) =>
    Number((await db.select({ n: count() }).from(table))[0]!.n);
  const [loan] = await db.select().from(loans).where(eq(loans.id, loan_id));
  return {
    audits: await n(auditLog),
    transactions: await n(ledgerTransactions),
    actions: await n(loanStaffActions),
    loan,
  };
}

const act = (persona: Persona, form: Record<string, string>) =>
  bookedRoute.action({
    request: people.post(persona, path(), form),
    params: { loanId: String(loan_id) },
    context: context(),
  } as never);

const waive = () => ({ intent: "correct", entry: `waive_fee:${fee_transaction_id}`, reason: "Goodwill" });

describe("a booked loan in the back office", () => {
  it("is for staff and reviewers, listed under Loans; everyone else is sent away", async () => {
    for (const persona of PERSONAS) {
      const outcome = await run(() =>
        bookedRoute.loader({
          request: people.get(persona, path()),
          params: { loanId: String(loan_id) },
          context: context(),
        } as never),
      );
      if (persona === "staff" || persona === "reviewer") {
        expect(outcome, persona).toMatchObject({ kind: "ok" });
        const value = outcome.value as { may_correct: boolean };
        expect(value.may_correct, persona).toBe(persona === "staff");
      } else expectSentAway(outcome, persona, path());
    }
    const queue = await run(() =>
      queueRoute.loader({ request: people.get("reviewer", "/admin/loans"), params: {}, context: context() } as never),
    );
    expect((queue.value as { booked: { id: number }[] }).booked.map((b) => b.id)).toContain(loan_id);
  });

  it("a loan that does not exist is 404", async () => {
    const outcome = await run(() =>
      bookedRoute.loader({
        request: people.get("staff", "/admin/loans/booked/999999"),
        params: { loanId: "999999" },
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 404 });
  });

  itRefuses(
    "waiving a late fee",
    ["anonymous", "applicant", "member", "other_member", "reviewer", "accountant"] as const,
    (p) => act(p, waive()),
    { unchanged: snapshot },
  );
  itRefuses(
    "correcting an interest accrual",
    ["anonymous", "applicant", "member", "other_member", "reviewer", "accountant"] as const,
    (p) => act(p, { intent: "correct", entry: `correct_entry:${interest_transaction_id}`, reason: "Wrong rate" }),
    { unchanged: snapshot },
  );

  it("staff: bad input is a 400 by its field, nothing written; then the fee is waived once", async () => {
    for (const [form, field] of [
      [{ intent: "correct", entry: "", reason: "Goodwill" }, "entry"],
      [{ intent: "correct", entry: `correct_entry:${fee_transaction_id}`, reason: "Goodwill" }, "entry"],
      [{ intent: "correct", entry: `waive_fee:${interest_transaction_id}`, reason: "Goodwill" }, "entry"],
      [{ intent: "correct", entry: `waive_fee:${fee_transaction_id}`, reason: " " }, "reason"],
    ] as const) {
      const before = await snapshot();
      const outcome = await run(() => act("staff", form));
      expect(outcome, JSON.stringify(form)).toMatchObject({ kind: "refused", status: 400 });
      expect((outcome.value as { field?: string }).field, JSON.stringify(form)).toBe(field);
      expect(await snapshot()).toEqual(before);
    }
    expect(await run(() => act("staff", waive()))).toMatchObject({ kind: "ok" });
    expect((await snapshot()).loan!.fees_due_cents).toBe(0);
    const before = await snapshot();
    expect(await run(() => act("checker", waive()))).toMatchObject({ kind: "refused", status: 409 });
    expect(await snapshot()).toEqual(before);
  });

  itRefuses(
    "deciding a correction",
    ["anonymous", "applicant", "member", "other_member", "reviewer", "accountant"] as const,
    (p) => act(p, { intent: "approve", action_id: "1" }),
    { unchanged: snapshot },
  );
});

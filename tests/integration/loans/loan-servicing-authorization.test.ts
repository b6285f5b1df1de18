import "../admin-support";
import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, ledgerTransactions, loanPayments, loans } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import * as loanRoute from "~/routes/member/loan";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { bookLoan, castPeople } from "./loan-fixtures";

/**
 * Who may do what with a booked loan (docs/product.md#loan-servicing): its page, a payment and
 * autopay are its member's only (another member's reads as not found); applicants, reviewers and
 * staff have no member powers. A refused request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let loan_id = 0;
let checking_id = 0;
let other_checking_id = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, { member: { checking_cents: 50_000 }, other_member: { checking_cents: 50_000 } });
  loan_id = await bookLoan(db, cast);
  checking_id = cast.member.checking.id;
  other_checking_id = cast.other_member.checking.id;
  people = await SignedIn.as(db, castPeople(cast));
});
afterAll(async () => {
  await database?.close();
});
afterEach(async () => {
  expect((await verifyLedger(database.db)).problems).toEqual([]);
});

const context = routeContext({ request_id: "loan-servicing-matrix", ip: "203.0.113.82" });
const path = () => `/dashboard/loans/${loan_id}`;

async function snapshot() {
  const db = database.db;
  const n = async (table: typeof auditLog | typeof ledgerTransactions | typeof loanPayments) =>
    Number((await db.select({ n: count() }).from(table))[0]!.n);
  const [loan] = await db.select().from(loans).where(eq(loans.id, loan_id));
  return {
    audits: await n(auditLog),
    transactions: await n(ledgerTransactions),
    payments: await n(loanPayments),
    loan,
  };
}

const payForm = (overrides: Record<string, string> = {}) => ({
  intent: "pay",
  from: String(checking_id),
  pay: "amount",
  amount: "50.00",
  idempotency_key: crypto.randomUUID(),
  ...overrides,
});

const act = (persona: Persona, form: Record<string, string>) =>
  loanRoute.action({
    request: people.post(persona, path(), form),
    params: { loanId: String(loan_id) },
    context: context(),
  } as never);

describe("a loan's page", () => {
  it("is its member's; another member's is not found; everyone else is sent away", async () => {
    for (const persona of PERSONAS) {
      const outcome = await run(() =>
        loanRoute.loader({
          request: people.get(persona, path()),
          params: { loanId: String(loan_id) },
          context: context(),
        } as never),
      );
      if (persona === "member") expect(outcome).toMatchObject({ kind: "ok" });
      else if (persona === "other_member") expect(outcome).toMatchObject({ kind: "refused", status: 404 });
      else expectSentAway(outcome, persona, path());
    }
  });

  it("a payoff quote for a day out of range is answered next to its field", async () => {
    const outcome = await run(() =>
      loanRoute.loader({
        request: people.get("member", `${path()}?payoff_on=1999-01-01`),
        params: { loanId: String(loan_id) },
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "ok" });
    expect((outcome.value as { payoff_problem: string }).payoff_problem).toMatch(/^Choose a day from today to /);
  });
});

describe("paying and autopay", () => {
  itRefuses("a payment", ["anonymous", "applicant", "reviewer", "staff"] as const, (p) => act(p, payForm()), {
    unchanged: snapshot,
  });
  itRefuses(
    "turning autopay on",
    ["anonymous", "applicant", "reviewer", "staff"] as const,
    (p) => act(p, { intent: "autopay", autopay_from: String(checking_id) }),
    { unchanged: snapshot },
  );

  it("another member can neither pay nor set autopay on this loan: not found, nothing written", async () => {
    for (const form of [
      payForm({ from: String(other_checking_id) }),
      { intent: "autopay", autopay_from: String(other_checking_id) },
    ]) {
      const before = await snapshot();
      expect(await run(() => act("other_member", form))).toMatchObject({ kind: "refused", status: 404 });
      expect(await snapshot()).toEqual(before);
    }
  });

  it("bad input is a 400 with the message by its field, nothing written", async () => {
    for (const [override, field, message] of [
      [{ from: "" }, "from", "Choose the account to pay from."],
      [{ from: String(other_checking_id) }, "from", "Please choose one of your open checking or savings accounts."],
      [{ amount: "" }, "amount", "Enter the amount to pay."],
      [{ amount: "lots" }, "amount", "Enter an amount in dollars"],
      [{ amount: "90000" }, "amount", "That is more than you owe"],
      [{ pay: "everything" }, "pay", "Choose how much to pay."],
    ] as const) {
      const before = await snapshot();
      const outcome = await run(() => act("member", payForm(override)));
      expect(outcome, message).toMatchObject({ kind: "refused", status: 400 });
      const reply = (outcome.value as { reply: { error?: Record<string, string[]> } }).reply;
      expect(reply.error?.[field]?.[0], message).toContain(message);
      expect(await snapshot()).toEqual(before);
    }
  });

  it("the member pays and turns autopay on and off", async () => {
    const paid = await run(() => act("member", payForm()));
    expect(paid).toMatchObject({ kind: "redirect", location: `${path()}?paid=1` });
    const on = await run(() => act("member", { intent: "autopay", autopay_from: String(checking_id) }));
    expect(on).toMatchObject({ kind: "redirect", location: `${path()}?autopay=1` });
    expect((await snapshot()).loan!.autopay_account_id).toBe(checking_id);
    await run(() => act("member", { intent: "autopay", autopay_from: "off" }));
    expect((await snapshot()).loan!.autopay_account_id).toBeNull();
  });
});

import "../admin-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq, sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, billPayees, billPayments } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as billPayRoute from "~/routes/member/bill-pay";
import { addPayee } from "~/server/bill-pay/payees.server";
import { scheduleBillPayment } from "~/server/bill-pay/bill-pay.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { businessDayOnOrAfter } from "~/domain/payment-dates";
import { billPaySchema } from "~/domain/bill-pay";
import { addDays } from "~/domain/schedule";
import { openTestDatabase } from "../test-database";
import { signedIn } from "../admin-support";
import { expectSentAway, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { newMember } from "../member-support";
import { fieldErrors } from "../../form-reply";

/**
 * Who may use Bill Pay (docs/product.md#bill-pay): a signed-in member, for their own accounts,
 * payees and payments only. A visitor is sent to sign in; an applicant, a reviewer and staff are
 * sent to their own home (a page) or refused (a post); another member sees none of the member's
 * payees or payments, and cannot cancel, edit or pay from them. Bad input gets its message next to
 * the field and changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let member: Awaited<ReturnType<typeof newMember>>;
let payee_id = 0;
let payment_id = 0;
const today = businessDate(institution().time_zone);
const first_day = businessDayOnOrAfter(addDays(today, 1));
const ORIGIN = { request_id: "bill-pay-matrix-0001", ip: "203.0.113.80" };

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, {
    member: { checking_cents: 50_000, savings_cents: 0 },
    other_member: { checking_cents: 50_000, savings_cents: 0 },
  });
  member = cast.member;
  const who = { id: member.member.id, email: member.member.email };
  const payee = await addPayee(
    db,
    who,
    { name: "Harbor Water", account_number: "W-778899", address: undefined },
    ORIGIN,
  );
  if (!payee.ok) throw new Error(payee.message);
  payee_id = payee.payee.id;
  const scheduled = await scheduleBillPayment(
    db,
    who,
    billPaySchema(today).parse({
      payee: `payee:${payee_id}`,
      payee_account_number: "",
      from_account_id: String(member.checking.id),
      amount: "40",
      payment_date: first_day,
      memo: "",
      idempotency_key: crypto.randomUUID(),
    }),
    ORIGIN,
  );
  if (!scheduled.ok) throw new Error(scheduled.message);
  payment_id = scheduled.payment_id;
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: member.member.id,
    other_member: cast.other_member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "bill-pay-matrix-0002", ip: "203.0.113.81" });
const request = (persona: Persona, form?: Record<string, string>, path = "/dashboard/bill-pay") =>
  people.request(persona, path, form);

const page = (persona: Persona, path = "/dashboard/bill-pay") =>
  run(() =>
    billPayRoute.loader({ request: request(persona, undefined, path), params: {}, context: context() } as never),
  );
const post = (persona: Persona, form: Record<string, string>) =>
  run(() => billPayRoute.action({ request: request(persona, form), params: {}, context: context() } as never));

/** Everything a Bill Pay post could change. */
async function state() {
  const db = database.db;
  const [audit] = await db.select({ n: count() }).from(auditLog);
  const payments = await db
    .select({
      id: billPayments.id,
      status: billPayments.status,
      amount: billPayments.amount_cents,
      date: billPayments.payment_date,
      hold: billPayments.hold_transaction_id,
    })
    .from(billPayments)
    .orderBy(billPayments.id);
  const payees = await db
    .select({ id: billPayees.id, removed: billPayees.removed_at })
    .from(billPayees)
    .orderBy(billPayees.id);
  const ledger = await db.execute(sql`select count(*)::int as n from ledger_transactions`);
  return { audit: Number(audit!.n), payments, payees, ledger: ledger.rows[0] };
}

const POSTS: Array<{ intent: string; form: () => Record<string, string> }> = [
  {
    intent: "schedule",
    form: () => ({
      payee: `payee:${payee_id}`,
      payee_account_number: "",
      from_account_id: String(member.checking.id),
      amount: "5",
      payment_date: first_day,
      memo: "",
      idempotency_key: crypto.randomUUID(),
    }),
  },
  { intent: "cancel", form: () => ({ payment_id: String(payment_id) }) },
  {
    intent: "edit",
    form: () => ({
      payment_id: String(payment_id),
      amount: "1",
      payment_date: first_day,
      memo: "",
      idempotency_key: crypto.randomUUID(),
    }),
  },
  { intent: "add_payee", form: () => ({ name: "Intruder Gas", account_number: "12345", address: "" }) },
  { intent: "remove_payee", form: () => ({ payee_id: String(payee_id) }) },
];

describe("the Bill Pay page: the member's own payees and payments only", () => {
  for (const persona of PERSONAS) {
    it(`/dashboard/bill-pay for ${persona}`, async () => {
      const result = await page(persona);
      if (persona === "member" || persona === "other_member") {
        expect(result.status).toBe(200);
        const data = result.value as {
          payees: { id: number }[];
          upcoming: { id: number }[];
          accounts: { id: number }[];
        };
        expect(data.payees.some((p) => p.id === payee_id)).toBe(persona === "member");
        expect(data.upcoming.some((p) => p.id === payment_id)).toBe(persona === "member");
        expect(data.accounts.some((a) => a.id === member.checking.id)).toBe(persona === "member");
        if (persona === "other_member") expect(result.body).not.toContain("Harbor Water");
        return;
      }
      expect(result.status).toBe(302);
      expectSentAway(result, persona, "/dashboard/bill-pay");
    });
  }

  it("another member's payment cannot be opened for Edit through the address", async () => {
    expect(
      ((await page("other_member", `/dashboard/bill-pay?edit=${payment_id}`)).value as { editing: number | null })
        .editing,
    ).toBeNull();
    expect(
      ((await page("member", `/dashboard/bill-pay?edit=${payment_id}`)).value as { editing: number | null }).editing,
    ).toBe(payment_id);
  });

  for (const { intent, form } of POSTS) {
    for (const persona of PERSONAS.filter((p) => p !== "member")) {
      it(`${intent} by ${persona} is refused and changes nothing`, async () => {
        const before = await state();
        const result = await post(persona, { intent, ...form() });
        if (persona === "other_member") {
          // Their own member session: another member's payment or payee "does not exist", their account is not theirs.
          if (intent === "add_payee") {
            // Adding a payee to their own list is theirs to do; it touches nothing of the member's.
            expect(result.status).toBe(200);
            return;
          }
          expect([400, 404]).toContain(result.status);
          if (intent === "schedule")
            expect(fieldErrors(result.value)).toEqual({ from_account_id: "Please choose one of your accounts" });
        } else {
          expect([401, 403]).toContain(result.status);
        }
        expect(await state()).toEqual(before);
      });
    }
  }

  it("another member's account is refused next to its field even with their own payee", async () => {
    const db = database.db;
    const other = await newMember(db, { checking_cents: 10_000, savings_cents: 0 });
    people.cookies.other_member = await signedIn(db, other.member.id);
    const own = await addPayee(
      db,
      { id: other.member.id, email: other.member.email },
      { name: "Own Power", account_number: "OP-1", address: undefined },
      ORIGIN,
    );
    if (!own.ok) throw new Error(own.message);
    const before = await state();
    const result = await post("other_member", {
      intent: "schedule",
      payee: `payee:${own.payee.id}`,
      payee_account_number: "",
      from_account_id: String(member.checking.id),
      amount: "5",
      payment_date: first_day,
      memo: "",
      idempotency_key: crypto.randomUUID(),
    });
    expect(result.status).toBe(400);
    expect(fieldErrors(result.value)).toEqual({ from_account_id: "Please choose one of your accounts" });
    expect(await state()).toEqual(before);
  });
});

describe("bad input is refused next to its field, and nothing changes", () => {
  const base = () => ({
    intent: "schedule",
    payee: `payee:${payee_id}`,
    payee_account_number: "",
    from_account_id: String(member.checking.id),
    amount: "5",
    payment_date: first_day,
    memo: "",
    idempotency_key: crypto.randomUUID(),
  });
  const CASES: Array<[string, Record<string, string>, Record<string, string>]> = [
    ["a date today", { payment_date: today }, { payment_date: "The earliest payment date is tomorrow" }],
    [
      "a date in the past",
      { payment_date: addDays(today, -3) },
      { payment_date: "The earliest payment date is tomorrow" },
    ],
    [
      "a payee account number with symbols",
      { payee: "pick:1", payee_account_number: "12#45" },
      { payee_account_number: "Please enter a valid account number" },
    ],
    [
      "a recurring rule with no end",
      { frequency: "monthly", ends: "never" },
      { ends: "Recurring payments need an end: choose a last date or a number of payments" },
    ],
    [
      "a count of 0",
      { frequency: "monthly", ends: "count", payment_count: "0" },
      { payment_count: "Please enter a number of payments from 1 to 120" },
    ],
    ["no amount", { amount: "" }, { amount: "Please fill in all required fields" }],
    ["an amount of 0", { amount: "0" }, { amount: "Please enter a valid amount" }],
    ["more than is available", { amount: "500.01" }, { amount: "Insufficient funds" }],
    ["more than the ledger takes", { amount: "9999999999999" }, { amount: "Please enter a valid amount" }],
    ["a typed payee name", { payee: "Harbor Water" }, { payee: "Please choose a payee" }],
  ];
  for (const [name, change, expected] of CASES) {
    it(name, async () => {
      const before = await state();
      const result = await post("member", { ...base(), ...change });
      expect(result.status).toBe(400);
      expect(fieldErrors(result.value)).toEqual(expected);
      expect(await state()).toEqual(before);
    });
  }

  it("an unknown intent is a 400; a forged payment id is not found", async () => {
    const before = await state();
    expect((await post("member", { intent: "pay_everything" })).status).toBe(400);
    expect((await post("member", { intent: "cancel", payment_id: "abc" })).status).toBe(404);
    expect((await post("member", { intent: "cancel", payment_id: "999999" })).status).toBe(404);
    expect(await state()).toEqual(before);
    const report = await verifyLedger(database.db);
    expect(report.problems).toEqual([]);
  });

  it("the member's own cancel works and is audited", async () => {
    const result = await post("member", { intent: "cancel", payment_id: String(payment_id) });
    expect(result.status).toBe(200);
    expect(result.body).toContain("Payment cancelled. $40.00 is available in your account again.");
    const [row] = await database.db.select().from(billPayments).where(eq(billPayments.id, payment_id));
    expect(row!.status).toBe("cancelled");
    const audit = await database.db.select().from(auditLog).where(eq(auditLog.action, "bill_pay.cancel"));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.request_id).toBe("bill-pay-matrix-0002");
    const report = await verifyLedger(database.db);
    expect(report.problems).toEqual([]);
  });
});

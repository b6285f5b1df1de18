import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, desc, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, booksReconciliations, ledgerAccounts } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer, today } from "~/server/ledger/ledger.server";
import * as settlementRoute from "~/routes/books/settlement";
import { RECONCILE_MESSAGES } from "~/domain/books";
import { transferEntries } from "~/domain/ledger-rules";
import { openTestDatabase } from "../test-database";
import { person } from "../admin-support";
import { accepted, newKey, openMember, STAFF } from "../ledger-fixtures";
import { fundedMember } from "../../factories";
import { itRefuses, routeContext, run, SignedIn } from "../authorization-matrix";
import { fieldErrors } from "../../form-reply";

/**
 * The daily settlement report and its reconciliation (docs/product.md#books): an ACH day with two
 * settlements in the ledger, a statement that also counts a third the ledger never received (a
 * missing settlement): the difference is found and the day's entries listed; once the missing
 * one posts, the same statement matches. Who may record a figure; bad input changes nothing.
 */
type Persona = "anonymous" | "pending" | "member" | "reviewer" | "staff" | "accountant";

let database: Database;
let people: SignedIn<Persona>;
let achId = 0;
let memberChecking = 0;
const day = today();

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const alice = await openMember(db, { checking_cents: 1_000_00 });
  memberChecking = alice.checking.id;
  achId = (await institutionAccount(db, "ach_settlement")).id;
  // Two ACH payments out today: the settlement account is credited 150.00 + 50.00.
  for (const cents of [150_00, 50_00])
    await accepted(
      postTransfer(db, {
        ...STAFF,
        idempotency_key: newKey("ach"),
        kind: "ach_out",
        entries: transferEntries(memberChecking, achId, cents),
      }),
    );
  const member = await fundedMember(db, { checking_cents: 10_00 });
  people = await SignedIn.as(db, {
    staff: (await person(db, "admin")).id,
    reviewer: (await person(db, "reviewer")).id,
    accountant: (await person(db, "accountant")).id,
    pending: (await person(db, "pending")).id,
    member: member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "books-reconcile-0001", ip: "203.0.113.79" });
const reconcile = (persona: Persona, form: Record<string, string>) =>
  run(() =>
    settlementRoute.action({
      request: people.post(persona, "/admin/books/settlement", form),
      params: {},
      context: context(),
    } as never),
  );
const report = async () =>
  (
    (await settlementRoute.loader({
      request: people.get("accountant", `/admin/books/settlement?date=${day}`),
      params: {},
      context: context(),
    } as never)) as Awaited<ReturnType<typeof settlementRoute.loader>>
  ).rails;
const stored = async () => (await database.db.select({ n: count() }).from(booksReconciliations))[0]!.n;
const audits = async () => (await database.db.select({ n: count() }).from(auditLog))[0]!.n;

describe("the daily settlement report", () => {
  it("shows each rail's movement through its settlement account, by kind", async () => {
    const rails = await report();
    expect(rails.map((r) => r.rail)).toEqual(["ach", "wire", "bill_pay", "card"]);
    const ach = rails.find((r) => r.rail === "ach")!;
    expect(ach).toMatchObject({ credits_cents: 200_00, debits_cents: 0, net_cents: 200_00, reconciliation: null });
    expect(ach.by_kind).toEqual([{ kind: "ach_out", count: 2, credits_cents: 200_00, debits_cents: 0 }]);
    expect(rails.find((r) => r.rail === "wire")).toMatchObject({ net_cents: 0, account_number: null, entries: [] });
  });
});

describe("the reconciliation", () => {
  it("finds the difference when a settlement on the statement is missing from the ledger, and lists the day's entries", async () => {
    const before = await audits();
    const answer = await reconcile("accountant", { rail: "ach", date: day, statement_amount: "275.00" });
    expect(answer.kind).toBe("ok");
    expect(answer.value).toMatchObject({
      status: "recorded",
      matched: false,
      message: RECONCILE_MESSAGES.recorded_difference,
    });
    const ach = (await report()).find((r) => r.rail === "ach")!;
    expect(ach.reconciliation).toMatchObject({
      statement_cents: 275_00,
      ledger_cents_then: 200_00,
      matched: false,
      difference_cents: 75_00,
    });
    expect(ach.entries.map((e) => e.amount_cents)).toEqual([150_00, 50_00]);
    // Stored with who and when, and audited.
    const [row] = await database.db.select().from(booksReconciliations).orderBy(desc(booksReconciliations.id)).limit(1);
    expect(row).toMatchObject({ rail: "ach", business_date: day, statement_cents: 275_00, ledger_cents: 200_00 });
    expect(row!.entered_by_email).toMatch(/^accountant/);
    expect(await audits()).toBe(before + 1);
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "books.reconciliation.recorded"));
    expect(audit).toMatchObject({ subject_type: "books_reconciliation", ip: "203.0.113.79", member_id: null });
  });

  it("matches once the missing settlement is posted (the ledger is compared as it is now)", async () => {
    await accepted(
      postTransfer(database.db, {
        ...STAFF,
        idempotency_key: newKey("late"),
        kind: "ach_out",
        entries: transferEntries(memberChecking, achId, 75_00),
      }),
    );
    const ach = (await report()).find((r) => r.rail === "ach")!;
    expect(ach.reconciliation).toMatchObject({ matched: true, difference_cents: 0 });
    const again = await reconcile("staff", { rail: "ach", date: day, statement_amount: "$275" });
    expect(again.value).toMatchObject({
      status: "recorded",
      matched: true,
      message: RECONCILE_MESSAGES.recorded_matched,
    });
  });

  it("a negative figure is a net debit; a wire day with nothing in the ledger shows the difference", async () => {
    const answer = await reconcile("accountant", { rail: "wire", date: day, statement_amount: "-1,250.50" });
    expect(answer.value).toMatchObject({ matched: false });
    const wire = (await report()).find((r) => r.rail === "wire")!;
    expect(wire.reconciliation).toMatchObject({ statement_cents: -1_250_50, difference_cents: -1_250_50 });
  });

  it("bad input gets its message next to the field and records nothing", async () => {
    const before = { stored: await stored(), audits: await audits() };
    const cases: [Record<string, string>, string, string][] = [
      [{ rail: "ach", date: day, statement_amount: "" }, "statement_amount", RECONCILE_MESSAGES.amount_missing],
      [{ rail: "ach", date: day, statement_amount: "12.345" }, "statement_amount", RECONCILE_MESSAGES.amount_bad],
      [{ rail: "ach", date: day, statement_amount: "ten" }, "statement_amount", RECONCILE_MESSAGES.amount_bad],
      [{ rail: "checks", date: day, statement_amount: "1" }, "rail", RECONCILE_MESSAGES.rail],
      [{ rail: "ach", date: "2026-02-30", statement_amount: "1" }, "date", "Please enter a date as YYYY-MM-DD"],
      [{ rail: "ach", date: "2999-01-01", statement_amount: "1" }, "date", "Please choose today or an earlier day"],
    ];
    for (const [form, field, message] of cases) {
      const answer = await reconcile("accountant", form);
      expect(answer, message).toMatchObject({ kind: "refused", status: 400 });
      expect(fieldErrors(answer.value)[field], message).toBe(message);
    }
    expect({ stored: await stored(), audits: await audits() }).toEqual(before);
  });

  // Everyone but staff and accountants: refused, nothing stored, no figure shown.
  itRefuses(
    "recording a statement figure",
    ["anonymous", "pending", "member", "reviewer"] as const,
    (persona) =>
      settlementRoute.action({
        request: people.post(persona, "/admin/books/settlement", { rail: "ach", date: day, statement_amount: "1.00" }),
        params: {},
        context: context(),
      } as never),
    {
      unchanged: async () => ({
        stored: await stored(),
        audits: await audits(),
        accounts: await database.db.select().from(ledgerAccounts).orderBy(ledgerAccounts.id),
      }),
      hides: "ach_settlement",
    },
  );

  it("the page is sent away from everyone but staff and accountants", async () => {
    for (const persona of ["anonymous", "pending", "member", "reviewer"] as const) {
      const outcome = await run(() =>
        settlementRoute.loader({
          request: people.get(persona, "/admin/books/settlement"),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome.kind, persona).toBe("redirect");
    }
    for (const persona of ["staff", "accountant"] as const) {
      const outcome = await run(() =>
        settlementRoute.loader({
          request: people.get(persona, "/admin/books/settlement"),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome.kind, persona).toBe("ok");
    }
  });
});

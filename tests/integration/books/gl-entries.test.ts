import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, glEntryRequests, ledgerAccounts, ledgerTransactions } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as entriesRoute from "~/routes/books/entries";
import { trialBalanceAsOf } from "~/server/books/books.server";
import { today } from "~/server/ledger/ledger.server";
import { GL_MESSAGES } from "~/domain/books";
import { openTestDatabase } from "../test-database";
import { person } from "../admin-support";
import { fundedMember } from "../../factories";
import { expectLedgerVerifies } from "../ledger-fixtures";
import { itRefuses, routeContext, run, SignedIn } from "../authorization-matrix";
import { fieldErrors } from "../../form-reply";

/**
 * General-ledger entries under dual control (docs/product.md#books): an accountant proposes, the
 * same person cannot approve (nothing changes), another accountant or staff approves and the
 * ledger posts it, or rejects it; bad input and other roles change nothing.
 */
type Persona = "anonymous" | "pending" | "member" | "reviewer" | "staff" | "accountant" | "controller";

let database: Database;
let people: SignedIn<Persona>;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const member = await fundedMember(db, { checking_cents: 10_00 });
  people = await SignedIn.as(db, {
    staff: (await person(db, "admin")).id,
    reviewer: (await person(db, "reviewer")).id,
    accountant: (await person(db, "accountant")).id,
    controller: (await person(db, "accountant")).id,
    pending: (await person(db, "pending")).id,
    member: member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "books-gl-0001", ip: "203.0.113.80" });
const act = (persona: Persona, form: Record<string, string>) =>
  run(() =>
    entriesRoute.action({
      request: people.post(persona, "/admin/books/entries", form),
      params: {},
      context: context(),
    } as never),
  );
const state = async () => ({
  requests: await database.db.select().from(glEntryRequests).orderBy(glEntryRequests.id),
  transactions: (await database.db.select({ n: count() }).from(ledgerTransactions))[0]!.n,
  audits: (await database.db.select({ n: count() }).from(auditLog))[0]!.n,
  accounts: await database.db.select().from(ledgerAccounts).orderBy(ledgerAccounts.id),
});
const propose = (persona: Persona, amount = "125.00") =>
  act(persona, {
    intent: "propose",
    debit_account: "adjustments",
    credit_account: "fees_income",
    amount,
    memo: "Reclassify a fee",
  });
const newest = async () => (await database.db.select().from(glEntryRequests).orderBy(glEntryRequests.id)).at(-1)!;

describe("general-ledger entries under dual control", () => {
  it("proposing writes the request and moves no money", async () => {
    const before = await state();
    const answer = await propose("accountant");
    expect(answer.value).toMatchObject({ ok: true, message: GL_MESSAGES.proposed });
    const after = await state();
    expect(after.requests).toHaveLength(before.requests.length + 1);
    expect(after.transactions).toBe(before.transactions);
    expect(after.accounts).toEqual(before.accounts);
    expect(after.audits).toBe(before.audits + 1);
    expect(await newest()).toMatchObject({ status: "awaiting_approval", amount_cents: 125_00 });
  });

  it("the proposer cannot approve it (403), and nothing changes", async () => {
    const entry = await newest();
    const before = await state();
    const answer = await act("accountant", { intent: "approve", entry_id: String(entry.id) });
    expect(answer).toMatchObject({ kind: "refused", status: 403 });
    expect((answer.value as { message: string }).message).toBe(GL_MESSAGES.own_entry);
    expect(await state()).toEqual(before);
  });

  it("another accountant approves: the ledger posts it between the two institution accounts", async () => {
    const entry = await newest();
    const answer = await act("controller", { intent: "approve", entry_id: String(entry.id) });
    expect(answer.value).toMatchObject({ ok: true, message: GL_MESSAGES.approved });
    const posted = await newest();
    expect(posted).toMatchObject({ status: "posted", transaction_id: expect.any(Number) });
    const [tx] = await database.db
      .select()
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.id, posted.transaction_id!));
    expect(tx).toMatchObject({ kind: "adjustment", status: "posted", memo: "Reclassify a fee" });
    const tb = await trialBalanceAsOf(database.db, today());
    const byCode = Object.fromEntries(tb.lines.map((l) => [l.code, l]));
    expect(byCode.adjustments).toMatchObject({ debit_cents: 125_00 });
    expect(byCode.fees_income).toMatchObject({ credit_cents: 125_00 });
    expect(tb.balanced).toBe(true);
    await expectLedgerVerifies(database.db);
    // Approving again is refused: it was decided, and nothing posts twice.
    const before = await state();
    const again = await act("staff", { intent: "approve", entry_id: String(entry.id) });
    expect(again).toMatchObject({ kind: "refused", status: 409 });
    expect(await state()).toEqual(before);
  });

  it("staff reject an accountant's entry with a reason: nothing posts", async () => {
    await propose("accountant", "9.99");
    const entry = await newest();
    const before = await state();
    const missing = await act("staff", { intent: "reject", entry_id: String(entry.id), reason: "" });
    expect(missing).toMatchObject({ kind: "refused", status: 400 });
    expect(fieldErrors(missing.value).reason).toBe(GL_MESSAGES.reason_missing);
    const answer = await act("staff", { intent: "reject", entry_id: String(entry.id), reason: "Wrong account" });
    expect(answer.value).toMatchObject({ ok: true, message: GL_MESSAGES.rejected });
    const after = await state();
    expect(after.transactions).toBe(before.transactions);
    expect(after.accounts).toEqual(before.accounts);
    expect(await newest()).toMatchObject({ status: "rejected", reject_reason: "Wrong account" });
  });

  it("bad input gets its message next to the field and proposes nothing", async () => {
    const before = await state();
    const cases: [Record<string, string>, string, string][] = [
      [
        { debit_account: "", credit_account: "cash", amount: "1", memo: "x" },
        "debit_account",
        GL_MESSAGES.debit_account,
      ],
      [
        { debit_account: "checking", credit_account: "cash", amount: "1", memo: "x" },
        "debit_account",
        GL_MESSAGES.debit_account,
      ],
      [
        { debit_account: "cash", credit_account: "cash", amount: "1", memo: "x" },
        "credit_account",
        GL_MESSAGES.same_account,
      ],
      [
        { debit_account: "cash", credit_account: "adjustments", amount: "", memo: "x" },
        "amount",
        GL_MESSAGES.amount_missing,
      ],
      [
        { debit_account: "cash", credit_account: "adjustments", amount: "0", memo: "x" },
        "amount",
        GL_MESSAGES.amount_bad,
      ],
      [
        { debit_account: "cash", credit_account: "adjustments", amount: "1.234", memo: "x" },
        "amount",
        GL_MESSAGES.amount_bad,
      ],
      [
        { debit_account: "cash", credit_account: "adjustments", amount: "1", memo: " " },
        "memo",
        GL_MESSAGES.memo_missing,
      ],
    ];
    for (const [form, field, message] of cases) {
      const answer = await act("accountant", { intent: "propose", ...form });
      expect(answer, message).toMatchObject({ kind: "refused", status: 400 });
      expect(fieldErrors(answer.value)[field], message).toBe(message);
    }
    expect(await state()).toEqual(before);
  });

  itRefuses(
    "proposing an entry",
    ["anonymous", "pending", "member", "reviewer"] as const,
    (persona) =>
      entriesRoute.action({
        request: people.post(persona, "/admin/books/entries", {
          intent: "propose",
          debit_account: "cash",
          credit_account: "adjustments",
          amount: "1.00",
          memo: "Not allowed",
        }),
        params: {},
        context: context(),
      } as never),
    { unchanged: state },
  );

  it("approving by a member, a reviewer or a visitor is refused and changes nothing", async () => {
    await propose("accountant", "3.00");
    const entry = await newest();
    const before = await state();
    for (const persona of ["anonymous", "pending", "member", "reviewer"] as const) {
      const answer = await act(persona, { intent: "approve", entry_id: String(entry.id) });
      expect(answer.kind, persona).toBe("refused");
      expect([401, 403], persona).toContain(answer.status);
    }
    expect(await state()).toEqual(before);
  });
});

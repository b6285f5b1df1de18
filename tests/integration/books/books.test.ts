import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { parse } from "csv-parse/sync";
import { extractText, getDocumentProxy } from "unpdf";
import type { Database } from "~/server/db/client.server";
import { ledgerAccounts } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { placeHold, postTransfer, reverseTransaction, today } from "~/server/ledger/ledger.server";
import { accountBook, glDayTotals, institutionBalances, trialBalanceAsOf } from "~/server/books/books.server";
import { glExportCsv } from "~/server/books/trial-balance-files.server";
import { institution } from "~/config/institution.server";
import { GL_EXPORT_MESSAGES } from "~/domain/books";
import { trialBalanceCsv, trialBalancePdf } from "~/server/books/trial-balance-files.server";
import { transferEntries } from "~/domain/ledger-rules";
import { openTestDatabase } from "../test-database";
import { accepted, expectLedgerVerifies, newKey, openMember, STAFF } from "../ledger-fixtures";

/**
 * The institution's books (docs/product.md#books) read from a ledger with money of every shape:
 * deposits, a fee, a payment to the ACH settlement account, a posting dated yesterday, a hold
 * (pending: no money moved) and a reversed transfer. The trial balance is the sum of all the
 * accounts, balances to zero, and agrees with the accounts' own cached balances; the CSV is read
 * back with csv-parse and the PDF with pdf.js (unpdf), not with the code that wrote them.
 */

let database: Database;
const day = today();
const yesterday = (() => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
})();

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const alice = await openMember(db, { checking_cents: 500_00, savings_cents: 1_000_00 });
  const bob = await openMember(db, { checking_cents: 200_00 });
  const fees = await institutionAccount(db, "fees_income");
  const ach = await institutionAccount(db, "ach_settlement");
  const cash = await institutionAccount(db, "cash");
  await accepted(
    postTransfer(db, {
      ...STAFF,
      idempotency_key: newKey("fee"),
      kind: "fee",
      entries: transferEntries(alice.checking.id, fees.id, 5_00),
    }),
  );
  await accepted(
    postTransfer(db, {
      ...STAFF,
      idempotency_key: newKey("ach"),
      kind: "ach_out",
      entries: transferEntries(bob.checking.id, ach.id, 40_00),
    }),
  );
  // Dated yesterday: in yesterday's books and today's.
  await accepted(
    postTransfer(db, {
      ...STAFF,
      idempotency_key: newKey("old"),
      kind: "deposit",
      entries: transferEntries(cash.id, bob.savings.id, 75_00),
      effective_date: yesterday,
    }),
  );
  // A hold moves no money until it settles: not in the books.
  await accepted(
    placeHold(db, {
      ...STAFF,
      idempotency_key: newKey("hold"),
      kind: "card_payment",
      entries: transferEntries(alice.checking.id, cash.id, 12_34),
    }),
  );
  // A transfer and its reversal: both posted, they cancel out.
  const moved = await accepted(
    postTransfer(db, {
      ...STAFF,
      idempotency_key: newKey("t"),
      kind: "transfer",
      entries: transferEntries(alice.savings.id, alice.checking.id, 60_00),
    }),
  );
  await accepted(
    reverseTransaction(db, {
      ...STAFF,
      idempotency_key: newKey("rev"),
      transaction_id: moved.transaction.id,
      memo: "test",
    }),
  );
});
afterAll(async () => {
  await database?.close();
});

describe("the trial balance", () => {
  it("is the sum of all the accounts: debits equal credits, and the balances sum to zero", async () => {
    const tb = await trialBalanceAsOf(database.db, day);
    expect(tb.balanced).toBe(true);
    expect(tb.total_debit_cents).toBe(tb.total_credit_cents);
    expect(tb.lines.reduce((sum, line) => sum + line.balance_cents, 0)).toBe(0);
    expect(tb.total_debit_cents).toBeGreaterThan(0);
    await expectLedgerVerifies(database.db);
  });

  it("agrees, line by line, with every account's own balance for today", async () => {
    const tb = await trialBalanceAsOf(database.db, day);
    const accounts = await database.db.select().from(ledgerAccounts);
    for (const line of tb.lines) {
      const of = line.code.startsWith("members_")
        ? accounts.filter((a) => a.owner === "member" && `members_${a.type}` === line.code)
        : accounts.filter((a) => a.owner === "institution" && a.type === line.code);
      expect(line.balance_cents, line.code).toBe(of.reduce((sum, a) => sum + a.posted_cents, 0));
    }
    const byCode = Object.fromEntries(tb.lines.map((l) => [l.code, l]));
    expect(byCode.fees_income).toMatchObject({ credit_cents: 5_00, debit_cents: 0 });
    expect(byCode.ach_settlement).toMatchObject({ credit_cents: 40_00 });
    // Cash paid out every deposit: a debit balance (500 + 1,000 + 200 + 75 dollars).
    expect(byCode.cash).toMatchObject({ debit_cents: 1_775_00, credit_cents: 0 });
    // An account no posting has opened yet is still a line, at zero.
    expect(byCode.wire_settlement).toMatchObject({ debit_cents: 0, credit_cents: 0 });
  });

  it("as of yesterday holds only what was dated yesterday or before", async () => {
    const tb = await trialBalanceAsOf(database.db, yesterday);
    expect(tb.balanced).toBe(true);
    const byCode = Object.fromEntries(tb.lines.map((l) => [l.code, l]));
    expect(byCode.cash).toMatchObject({ debit_cents: 75_00 });
    expect(byCode.members_savings).toMatchObject({ credit_cents: 75_00 });
    expect(byCode.fees_income!.credit_cents).toBe(0);
  });

  it("as CSV, read back by a CSV parser: one row per account and a TOTAL row whose debits equal its credits", async () => {
    const tb = await trialBalanceAsOf(database.db, day);
    const rows = parse(trialBalanceCsv(tb), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(tb.lines.length + 1);
    const total = rows.at(-1)!;
    expect(total.code).toBe("TOTAL");
    expect(total.debit).toBe(total.credit);
    const cents = (text: string | undefined) => Math.round(Number(text || "0") * 100);
    expect(rows.slice(0, -1).reduce((sum, r) => sum + cents(r.debit), 0)).toBe(cents(total.debit));
    expect(rows.slice(0, -1).reduce((sum, r) => sum + cents(r.credit), 0)).toBe(cents(total.credit));
    expect(rows.find((r) => r.code === "fees_income")).toMatchObject({
      account: "Fees income",
      credit: "5.00",
      as_of: day,
    });
  });

  it("as PDF, read back by pdf.js: the day, every account, the totals and 'In balance'", async () => {
    const tb = await trialBalanceAsOf(database.db, day);
    const pdf = await trialBalancePdf(tb, "Avery Chen");
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true });
    expect(text).toContain(`Trial balance as of the end of ${day}`);
    for (const line of tb.lines) expect(text).toContain(line.name);
    expect(text).toContain("$1,775.00");
    expect(text).toContain("In balance: total debits equal total credits.");
    expect(text).toContain("Avery Chen");
  });
});

describe("an institution account's book", () => {
  it("lists every institution account with its balance", async () => {
    const accounts = await institutionBalances(database.db, day);
    expect(accounts.map((a) => a.type)).toContain("card_settlement");
    expect(accounts.find((a) => a.type === "fees_income")).toMatchObject({
      balance_cents: 5_00,
      account_number: expect.stringMatching(/^\d{10}$/),
    });
    expect(accounts.find((a) => a.type === "wire_settlement")).toMatchObject({
      balance_cents: 0,
      account_number: null,
    });
  });

  it("shows cash day by day with running balances, and the day's entries without the hold", async () => {
    const book = await accountBook(database.db, "cash", day);
    expect(book.opening_cents).toBe(0);
    expect(book.days.map((d) => d.date)).toEqual([yesterday, day]);
    expect(book.days[0]).toMatchObject({ debits_cents: 75_00, credits_cents: 0, closing_cents: -75_00 });
    expect(book.days[1]).toMatchObject({ debits_cents: 1_700_00, closing_cents: -1_775_00 });
    expect(book.entries.every((e) => e.kind === "deposit")).toBe(true);
    expect(book.entries).toHaveLength(3);
    const earlier = await accountBook(database.db, "cash", day, yesterday);
    expect(earlier.entries).toHaveLength(1);
    expect(earlier.entries[0]).toMatchObject({ amount_cents: -75_00 });
  });

  it("of an account not opened yet is empty, not an error", async () => {
    const book = await accountBook(database.db, "wire_settlement", day);
    expect(book).toMatchObject({ account_number: null, opening_cents: 0, days: [], entries: [] });
  });

  it("does not change what it reads", async () => {
    const before = await database.db.select().from(ledgerAccounts).where(eq(ledgerAccounts.owner, "institution"));
    await trialBalanceAsOf(database.db, day);
    await accountBook(database.db, "cash", day);
    expect(await database.db.select().from(ledgerAccounts).where(eq(ledgerAccounts.owner, "institution"))).toEqual(
      before,
    );
  });
});

describe("the day's general-ledger export", () => {
  it("writes every line with the profile's account code; the day's debits equal its credits", async () => {
    const codes = institution().gl_account_codes;
    expect(codes).toBeDefined();
    const made = glExportCsv(day, await glDayTotals(database.db, day), codes);
    if (!made.ok) throw new Error(made.message);
    const rows = parse(made.csv, { columns: true }) as Record<string, string>[];
    // Every institution account (11 kinds, loan interest among them) and the members' 3 lines.
    expect(rows).toHaveLength(14);
    expect(rows.find((r) => r.account === "Fees income")).toMatchObject({
      gl_account: codes!.fees_income,
      credit: "5.00",
      date: day,
    });
    const cents = (text: string) => Math.round(Number(text) * 100);
    const debits = rows.reduce((sum, r) => sum + cents(r.debit!), 0);
    expect(debits).toBe(rows.reduce((sum, r) => sum + cents(r.credit!), 0));
    expect(debits).toBeGreaterThan(0);
    // Yesterday's file holds only yesterday's deposit.
    const earlier = glExportCsv(yesterday, await glDayTotals(database.db, yesterday), codes);
    if (!earlier.ok) throw new Error(earlier.message);
    expect(
      (parse(earlier.csv, { columns: true }) as Record<string, string>[]).find((r) => r.account === "Cash"),
    ).toMatchObject({ debit: "75.00" });
  });

  it("is not made, and says so, when the profile has no codes or misses one: a code is never invented", async () => {
    const lines = await glDayTotals(database.db, day);
    expect(glExportCsv(day, lines, undefined)).toMatchObject({ ok: false, message: GL_EXPORT_MESSAGES.no_codes });
    const { cash: _cash, ...withoutCash } = institution().gl_account_codes!;
    expect(glExportCsv(day, lines, withoutCash)).toEqual({
      ok: false,
      message: `${GL_EXPORT_MESSAGES.some_missing} Cash.`,
      missing: ["Cash"],
    });
  });
});

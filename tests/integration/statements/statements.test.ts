import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { extractText, getDocumentProxy } from "unpdf";
import type { Database, Db } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { institutionAccount, memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { placeHold, postTransfer, reverseTransaction } from "~/server/ledger/ledger.server";
import { seedDemoHistory } from "~/server/seed/demo-history.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";
import {
  availableMonths,
  readStatementFigures,
  statementData,
  statementFor,
} from "~/server/statements/statements.server";
import { renderStatementPdf } from "~/server/statements/pdf.server";
import { monthBounds } from "~/domain/statements";
import { formatCents } from "~/domain/money";
import { institution } from "~/config/institution.server";
import { openTestDatabase } from "../test-database";
import { accepted } from "../ledger-fixtures";
import { key, newMember } from "../member-support";

let database: Database;
let db: Db;
beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
});
afterAll(async () => {
  expect((await verifyLedger(db)).ok).toBe(true);
  await database?.close();
});

const NOW = new Date("2026-11-22T15:00:00Z");

/** The ledger's own balance at the end of a day, summed from the entries (independent of the statement code). */
async function ledgerBalanceAt(account_id: number, date: string): Promise<number> {
  const result = await db.execute(sql`
    select coalesce(sum(e.amount_cents), 0)::text as cents
      from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
     where e.account_id = ${account_id} and t.status in ('posted', 'reversed') and t.effective_date <= ${date}::date`);
  return Number(result.rows[0]!.cents);
}

async function pdfText(pdf: Uint8Array): Promise<string> {
  const document = await getDocumentProxy(new Uint8Array(pdf));
  const { text } = await extractText(document, { mergePages: true });
  return text;
}

async function post(account_id: number, amount_cents: number, date: string, memo: string) {
  const cash = await institutionAccount(db, "cash");
  return accepted(
    postTransfer(db, {
      kind: amount_cents < 0 ? "card_payment" : "ach_in",
      initiator: "system:test",
      idempotency_key: key(),
      created_by: "test",
      effective_date: date,
      memo,
      entries: [
        { account_id, amount_cents },
        { account_id: cash.id, amount_cents: -amount_cents },
      ],
    }),
  );
}

describe("statements from the demo's ledger", () => {
  it("every account of the demo: each month's closing is the ledger's balance at the month's end, and opening + in - out = closing", async () => {
    for (const s of DEMO_SIGNINS.filter((p) => p.kind === "member")) {
      await db.insert(users).values({
        id: `demo-${s.email}`,
        name: `${s.first_name} ${s.last_name}`,
        email: s.email,
        role: "user",
        emailVerified: true,
      });
    }
    expect(await seedDemoHistory(db, NOW)).toBe(true);
    const members = DEMO_SIGNINS.filter((p) => p.kind === "member");
    let checked = 0;
    for (const m of members) {
      const accounts = await memberAccounts(db, `demo-${m.email}`);
      expect(accounts.length).toBeGreaterThan(0);
      for (const account of accounts) {
        const months = await availableMonths(db, account, NOW);
        // The demo's history starts on the 1st six months back: May to October 2026, newest first.
        expect(months).toEqual(["2026-10", "2026-09", "2026-08", "2026-07", "2026-06", "2026-05"]);
        let previous_closing: number | null = null;
        for (const month of [...months].reverse()) {
          const { start, end } = monthBounds(month);
          const f = await readStatementFigures(db, account.id, month);
          expect(f.closing_cents).toBe(await ledgerBalanceAt(account.id, end));
          expect(f.opening_cents).toBe(await ledgerBalanceAt(account.id, previousDay(start)));
          expect(f.opening_cents + f.credits_cents - f.debits_cents).toBe(f.closing_cents);
          expect(f.posted.at(-1)?.balance_cents ?? f.opening_cents).toBe(f.closing_cents);
          if (previous_closing !== null) expect(f.opening_cents).toBe(previous_closing);
          previous_closing = f.closing_cents;
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(members.length * 2 * 6);
  });
});

function previousDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

describe("one account's statement", () => {
  let account: AccountView;
  it("lists posted lines with running balances, reversals, pending apart, nothing outside the month", async () => {
    const m = await newMember(db, { first_name: "Robin", last_name: "Statement", checking_cents: 0, savings_cents: 0 });
    account = m.checking;
    await post(account.id, 250_000, "2026-09-30", "September pay");
    await post(account.id, 300_000, "2026-10-01", "October pay");
    await post(account.id, -12_345, "2026-10-05", "Market Basket");
    const wrong = await post(account.id, -5_000, "2026-10-10", "Charged twice");
    await accepted(
      reverseTransaction(db, {
        transaction_id: wrong.transaction.id,
        initiator: "system:test",
        idempotency_key: key(),
        created_by: "test",
        memo: "Refund of the double charge",
        effective_date: "2026-10-12",
      }),
    );
    const cash = await institutionAccount(db, "cash");
    await accepted(
      placeHold(db, {
        kind: "card_payment",
        initiator: "system:test",
        idempotency_key: key(),
        created_by: "test",
        memo: "Hardware store (pending)",
        effective_date: "2026-10-30",
        entries: [
          { account_id: account.id, amount_cents: -2_500 },
          { account_id: cash.id, amount_cents: 2_500 },
        ],
      }),
    );
    await post(account.id, -999, "2026-11-02", "November coffee");

    const f = await readStatementFigures(db, account.id, "2026-10");
    expect(f.opening_cents).toBe(250_000);
    expect(f.posted.map((l) => [l.description, l.amount_cents, l.balance_cents])).toEqual([
      ["October pay", 300_000, 550_000],
      ["Market Basket", -12_345, 537_655],
      ["Charged twice", -5_000, 532_655],
      ["Refund of the double charge", 5_000, 537_655],
    ]);
    expect(f.posted[2]!.status).toBe("reversed");
    expect(f.credits_cents).toBe(305_000);
    expect(f.debits_cents).toBe(17_345);
    expect(f.closing_cents).toBe(537_655);
    expect(f.pending.map((l) => [l.description, l.amount_cents])).toEqual([["Hardware store (pending)", -2_500]]);

    // The months offered: September (the first posting) and October; not November (in progress).
    expect(await availableMonths(db, account, NOW)).toEqual(["2026-10", "2026-09"]);
  });

  it("the PDF, read back by an independent reader, shows the institution, the member, the period, both balances and every line", async () => {
    const data = await statementData(db, account, "2026-10");
    const text = await pdfText(await renderStatementPdf(data));
    const p = institution();
    for (const expected of [
      p.name,
      p.address.street,
      `Routing number ${p.routing_number}`,
      "Robin Statement",
      "1 Main Street",
      `•••• ${account.account_number.slice(-4)}`,
      "October 2026: 2026-10-01 to 2026-10-31",
      `Opening balance`,
      formatCents(250_000),
      "Closing balance",
      formatCents(537_655),
      `Money in`,
      formatCents(305_000),
      formatCents(17_345),
      "Hardware store (pending)",
    ]) {
      expect(text).toContain(expected);
    }
    for (const line of data.figures.posted) {
      expect(text).toContain(`${line.effective_date} ${line.description}`);
      expect(text).toContain(`${formatCents(line.amount_cents)} ${formatCents(line.balance_cents)}`);
    }
    expect(text).not.toContain(account.account_number);
    expect(text).not.toContain("November coffee");
    expect(text).not.toContain("September pay");
  });

  it("is made once per account and month and served as made afterwards", async () => {
    const first = await statementFor(db, account, "2026-10", "member:test");
    expect(first.made).toBe(true);
    expect(first.statement.closing_cents).toBe(537_655);
    // The ledger moves on (a back-dated posting): the kept statement does not change.
    await post(account.id, 1_00, "2026-10-15", "Late posting");
    const again = await statementFor(db, account, "2026-10", "member:test");
    expect(again.made).toBe(false);
    expect(again.statement.id).toBe(first.statement.id);
    expect(Buffer.compare(again.statement.pdf, first.statement.pdf)).toBe(0);
    const [{ n } = { n: 0 }] = (
      await db.execute(sql`select count(*)::int as n from account_statements where account_id = ${account.id}`)
    ).rows as { n: number }[];
    expect(Number(n)).toBe(1);
  });
});

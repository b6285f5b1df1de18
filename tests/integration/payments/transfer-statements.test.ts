import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { notifications } from "~/server/db/schema";
import { postTransfer } from "~/server/ledger/ledger.server";
import { transferBetweenAccounts } from "~/server/payments/between-accounts.server";
import { transferToMember } from "~/server/payments/to-member.server";
import { betweenAccountsSchema, toMemberSchema } from "~/domain/transfers";
import { onPostgres, openTestDatabase } from "../test-database";
import { key, newMember } from "../member-support";
import { sessionCookie } from "../../factories";
import { sessionUserFromCookie } from "~/server/auth/session.server";

/**
 * A member's transfer takes the ledger's posting path: one database transaction of as many
 * round trips as the ledger alone (BEGIN with the row locks, one write statement holding the
 * transaction, its entries, the balances and the notifications, COMMIT), not a savepoint inside
 * the service's own transaction with a statement per notification. Throughput where members
 * feel it follows from the count (bench/README.md, "Member transfers over HTTP"). Counted on
 * node-postgres, where each round trip is one call of the client's `query`.
 */

let database: Database;
let db: Db;
beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});

/** The statements (round trips) `work` sends to PostgreSQL, in order, and the name of each prepared one. */
async function statementsOf<T>(
  work: () => Promise<T>,
): Promise<{ result: T; statements: string[]; names: (string | undefined)[] }> {
  const statements: string[] = [];
  const names: (string | undefined)[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; name?: string };
    statements.push(typeof first === "string" ? first : String(first?.text ?? ""));
    names.push(typeof first === "string" ? undefined : first?.name);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    return { result: await work(), statements, names };
  } finally {
    pg.Client.prototype.query = query;
  }
}

const internal = (from: number, to: number, amount: string, k = key()) =>
  betweenAccountsSchema.parse({
    from_account_id: String(from),
    to_account_id: String(to),
    amount,
    reference: "Rent",
    idempotency_key: k,
  });

describe.skipIf(!onPostgres)("statements per member transfer (PostgreSQL)", () => {
  it("Between Accounts: the ledger alone's three round trips, the notification written with the posting", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const ledger = await statementsOf(() =>
      postTransfer(db, {
        kind: "transfer",
        initiator: `member:${a.member.id}`,
        idempotency_key: key(),
        created_by: a.member.id,
        entries: [
          { account_id: a.checking.id, amount_cents: -1 },
          { account_id: a.savings.id, amount_cents: 1 },
        ],
      }),
    );
    const member = await statementsOf(() =>
      transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "1.00")),
    );
    expect(member.result.ok).toBe(true);
    expect(ledger.statements).toHaveLength(3);
    expect(member.statements).toHaveLength(ledger.statements.length);
    expect(member.statements[0]).toMatch(/^BEGIN; SELECT .* FOR UPDATE$/s);
    expect(member.statements[1]).toMatch(/INSERT INTO notifications/);
    expect(member.statements[2]).toBe("COMMIT");
  });

  it("a signed-in request reads its session with one statement, prepared once per connection rather than built and planned each time", async () => {
    const a = await newMember(db);
    const cookie = await sessionCookie(db, a.member.id);
    await sessionUserFromCookie(db, cookie, { touch: false });
    const { result, statements, names } = await statementsOf(() => sessionUserFromCookie(db, cookie, { touch: false }));
    expect(result).toMatchObject({ id: a.member.id, role: "user" });
    expect(statements).toHaveLength(1);
    expect(names).toEqual(["mutual_session_by_token"]);
  });

  it("To Another Member: five statements in its transaction (locks, the member's lock, today's total, the write with both notifications, COMMIT)", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const b = await newMember(db);
    const form = toMemberSchema.parse({
      from_account_id: String(a.checking.id),
      recipient_email: b.member.email,
      amount: "1.00",
      reference: "Lunch",
      idempotency_key: key(),
    });
    const { result, statements } = await statementsOf(() => transferToMember(db, a.member, form));
    expect(result.ok).toBe(true);
    const begin = statements.findIndex((s) => s.startsWith("BEGIN"));
    expect(statements.slice(begin)).toHaveLength(5);
    expect(statements.filter((s) => /INSERT INTO notifications/.test(s))).toHaveLength(1);
    // Before the transaction: the key, the member's accounts, the look-up's rate limit, the
    // recipient and their accounts, today's total (the checks a code step also runs).
    expect(statements.length).toBeLessThanOrEqual(11);
  });
});

describe("notifications written with the posting", () => {
  it("carry the transfer's reference number, and the member's own text as typed", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const b = await newMember(db);
    const sent = await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "2.00"));
    if (!sent.ok) throw new Error(sent.message);
    const typed = "{reference} MU00000001 \\ ' % _";
    const form = toMemberSchema.parse({
      from_account_id: String(a.checking.id),
      recipient_email: b.member.email,
      amount: "3.00",
      reference: typed,
      idempotency_key: key(),
    });
    const to_member = await transferToMember(db, a.member, form);
    if (!to_member.ok) throw new Error(to_member.message);
    const mine = await db
      .select()
      .from(notifications)
      .where(eq(notifications.member_id, a.member.id))
      .orderBy(notifications.id);
    const theirs = await db.select().from(notifications).where(eq(notifications.member_id, b.member.id));
    expect(mine.map((n) => [n.kind, n.title])).toEqual([
      ["transfer_sent", "Transfer of $2.00 completed"],
      ["transfer_sent", `You sent $3.00 to ${b.member.name}`],
    ]);
    expect(mine[0]!.body).toMatch(
      new RegExp(
        `^\\$2\\.00 moved from Checking •••• \\d{4} to Savings •••• \\d{4}\\. Reference ${sent.reference_number}\\.$`,
      ),
    );
    expect(mine[1]!.body).toMatch(
      new RegExp(`^From Checking •••• \\d{4}\\. Reference ${to_member.reference_number}\\.$`),
    );
    expect(theirs).toHaveLength(1);
    expect(theirs[0]!.body).toMatch(/^Into Checking •••• \d{4}: "/);
    expect(theirs[0]!.body).toBe(
      `${theirs[0]!.body.split(":")[0]}: "${typed}". Reference ${to_member.reference_number}.`,
    );
  });

  it("a reference number past eight digits is not cut", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    await db.execute(sql`select setval('ledger_transactions_id_seq', 123456789)`);
    const sent = await transferBetweenAccounts(
      db,
      a.member,
      internal(a.checking.id, a.savings.id, "1.00", crypto.randomUUID()),
    );
    if (!sent.ok) throw new Error(sent.message);
    expect(sent.reference_number).toBe("MU123456790");
    const [n] = await db.select().from(notifications).where(eq(notifications.member_id, a.member.id));
    expect(n!.body).toContain("Reference MU123456790.");
  });
});

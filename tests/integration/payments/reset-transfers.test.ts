import "../member-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, gt, sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, ledgerAccounts, users } from "~/server/db/schema";
import { today } from "~/server/ledger/ledger.server";
import { monthOf } from "~/domain/ledger-rules";
import {
  TRANSFER_COUNTS_PAGE_SIZE,
  listTransferCounts,
  parsePageAfter,
  resetAllMemberTransferCounts,
} from "~/server/payments/transfer-counts.server";
import { openTestDatabase } from "../test-database";

/**
 * Reset Transfer Counts with more members than one screen, or one query, should hold: the list
 * used to stop silently at 5,000 members and "Reset all" to skip everyone after them. 5,050
 * members are inserted in one statement; every 101st has made two savings transfers this month,
 * the last of them (member 5,050) beyond the old 5,000 cut.
 */
const MEMBERS = 5_050;
const WITH_TRANSFERS = Math.floor(MEMBERS / 101);

let database: Database;
const staff = { id: "staff-reset-bulk", email: "staff-reset-bulk@harborview.example" };

beforeAll(async () => {
  database = await openTestDatabase();
  const db = database.db;
  await db
    .insert(users)
    .values({ id: staff.id, name: "Staff", email: staff.email, role: "admin", emailVerified: true });
  await db.execute(sql`
    insert into users (id, name, email, role, email_verified)
    select 'bulk-' || lpad(n::text, 5, '0'), 'Member ' || n, 'bulk' || lpad(n::text, 5, '0') || '@members.example', 'user', true
    from generate_series(1, ${MEMBERS}) n`);
  await db.execute(sql`
    insert into ledger_accounts (account_number, owner, type, member_id, name, transfer_count, transfer_count_month)
    select (1000000000 + n)::text, 'member', 'savings', 'bulk-' || lpad(n::text, 5, '0'), 'Savings', 2, ${monthOf(today())}
    from generate_series(101, ${MEMBERS}, 101) n`);
  // Staff are not members: their count is neither listed nor reset.
  await db.insert(ledgerAccounts).values({
    account_number: "1999999999",
    owner: "member",
    type: "savings",
    member_id: staff.id,
    name: "Savings",
    transfer_count: 3,
    transfer_count_month: monthOf(today()),
  });
}, 120_000);

afterAll(async () => {
  await database?.close();
});

describe("reset transfer counts with more than 5,000 members", () => {
  it("pages through every member by email, with the real totals", async () => {
    const first = await listTransferCounts(database.db);
    expect(first.total).toBe(MEMBERS);
    expect(first.with_transfers).toBe(WITH_TRANSFERS);
    expect(first.members).toHaveLength(TRANSFER_COUNTS_PAGE_SIZE);

    const emails: string[] = [];
    let counted = 0;
    let pages = 0;
    let after: string | null = null;
    do {
      const page = await listTransferCounts(database.db, { after });
      pages += 1;
      for (const member of page.members) {
        emails.push(member.email);
        counted += member.current_count;
      }
      after = page.next_after;
    } while (after !== null);
    expect(pages).toBe(Math.ceil(MEMBERS / TRANSFER_COUNTS_PAGE_SIZE));
    expect(emails).toHaveLength(MEMBERS);
    expect(new Set(emails).size).toBe(MEMBERS);
    expect(emails).toEqual([...emails].sort());
    expect(emails).not.toContain(staff.email);
    expect(emails.at(-1)).toBe("bulk05050@members.example");
    expect(counted).toBe(WITH_TRANSFERS * 2);
  });

  it("reads an address's page start as given, and refuses one that cannot be an email", () => {
    expect(parsePageAfter(null)).toBeNull();
    expect(parsePageAfter("")).toBeNull();
    expect(parsePageAfter("bulk00050@members.example")).toBe("bulk00050@members.example");
    expect(parsePageAfter("bulk\u0000@members.example")).toBe("invalid");
    expect(parsePageAfter("a".repeat(321))).toBe("invalid");
  });

  it("resets every member's count, past the first 5,000, and reports the real numbers", async () => {
    const result = await resetAllMemberTransferCounts(database.db, staff, { request_id: "req-bulk", ip: "192.0.2.10" });
    expect(result).toEqual({ status: "reset", reset: WITH_TRANSFERS, skipped: MEMBERS - WITH_TRANSFERS });

    const left = await database.db
      .select({ member_id: ledgerAccounts.member_id, count: ledgerAccounts.transfer_count })
      .from(ledgerAccounts)
      .where(and(eq(ledgerAccounts.type, "savings"), gt(ledgerAccounts.transfer_count, 0)));
    expect(left).toEqual([{ member_id: staff.id, count: 3 }]);
    expect((await listTransferCounts(database.db)).with_transfers).toBe(0);

    const [audit] = await database.db.select().from(auditLog).where(eq(auditLog.action, "transfers.count_reset_all"));
    expect(audit).toMatchObject({
      actor_id: staff.id,
      after: { reset: WITH_TRANSFERS, skipped: MEMBERS - WITH_TRANSFERS },
    });
    const before = (audit!.before as { counts: { member_id: string; before: number }[] }).counts;
    expect(before).toHaveLength(WITH_TRANSFERS);
    expect(before).toContainEqual({ member_id: "bulk-05050", before: 2 });

    // Nothing left to reset: everyone is skipped.
    expect(await resetAllMemberTransferCounts(database.db, staff)).toEqual({
      status: "reset",
      reset: 0,
      skipped: MEMBERS,
    });
  });
});

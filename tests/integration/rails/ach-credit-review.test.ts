import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { achCreditReviews, achInboundEntries, auditLog, ledgerAccounts, notifications } from "~/server/db/schema";
import { getBalances, setAccountStatus } from "~/server/ledger/accounts.server";
import { receiveAchFile } from "~/server/rails/inbound.server";
import { exportReturnFile, returnFile } from "~/server/rails/inbound-returns.server";
import {
  CREDIT_REVIEW_MESSAGES,
  creditReviewsCount,
  releaseCreditReview,
  returnCreditReview,
  waitingCreditReviews,
} from "~/server/rails/inbound-review.server";
import { queueCounts } from "~/server/rails/queues.server";
import { reverseMemberTransaction } from "~/server/member-accounts/reversals.server";
import { memberTransactionsPage } from "~/server/member-accounts/transactions.server";
import { fileDatabase } from "../test-database";
import { expectLedgerVerifies } from "../ledger-fixtures";
import { newMember } from "../member-support";
import { staff as newStaff } from "../../factories";
import { readNachaFile } from "../../unit/nacha-reader";
import { buildInboundFile } from "../../unit/nacha-inbound-builder";

/**
 * Incoming credits to review (docs/product.md#incoming-credits-to-review): every incoming ACH
 * credit is checked in the posting's transaction; one meeting a rule posts with its amount held
 * and waits for staff, who release it (available) or return it (R17 or R23: the credit reversed,
 * the entry in the next return file, read back here by the tests' own NACHA reader). The ledger
 * verifies after each step.
 */
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "test", ip: "198.51.100.8" };
fileDatabase({ pool_max: 6, onOpen: async (database) => void (staff = await newStaff((db = database.db))) });

let modifier = 0;
async function upload(batches: Parameters<typeof buildInboundFile>[0]) {
  const text = buildInboundFile(batches, { modifier: "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[modifier++ % 26] });
  const result = await receiveAchFile(db, {
    bytes: new TextEncoder().encode(`${text}`),
    file_name: `fed-${modifier}.ach`,
    staff,
    origin,
  });
  if (!result.ok) throw new Error(result.message);
  return result;
}

/** A member whose accounts were opened 90 days ago (not new), named as given. */
async function established(first_name: string, last_name: string) {
  const m = await newMember(db, { first_name, last_name, checking_cents: 10_000 });
  await db
    .update(ledgerAccounts)
    .set({ opened_at: sql`now() - interval '90 days'` })
    .where(eq(ledgerAccounts.member_id, m.member.id));
  return m;
}

const balances = async (account_id: number) => {
  const [a] = await getBalances(db, [account_id]);
  return { current: a!.current_cents, available: a!.available_cents };
};

async function reviewOf(account_id: number) {
  return db.select().from(achCreditReviews).where(eq(achCreditReviews.account_id, account_id));
}

describe("Incoming credits to review", () => {
  it("a credit naming someone else posts with its money held; staff release it; a credit naming the holder is available at once", async () => {
    const jordan = await established("Jordan", "Morgan");
    const lee = await established("Lee", "Park");
    const result = await upload([
      {
        company_name: "Acme Payroll",
        company_id: "1111111111",
        entries: [
          { code: "22", account_number: jordan.checking.account_number, amount_cents: 250_000, name: "CHRIS BLAKE" },
          { code: "22", account_number: lee.checking.account_number, amount_cents: 250_000, name: "PARK LEE" },
        ],
      },
    ]);
    expect(result).toMatchObject({ posted: 2, returned: 0 });
    // Posted (the current balance has it), not available.
    expect(await balances(jordan.checking.id)).toEqual({ current: 260_000, available: 10_000 });
    expect(await balances(lee.checking.id)).toEqual({ current: 260_000, available: 260_000 });
    const [review] = await reviewOf(jordan.checking.id);
    expect(review).toMatchObject({ status: "waiting", amount_cents: 250_000 });
    expect(review!.reasons.map((r) => r.rule)).toEqual(["name_mismatch"]);
    expect(await reviewOf(lee.checking.id)).toEqual([]);
    expect(await creditReviewsCount(db)).toBe(1);
    expect((await queueCounts(db)).sections.credit_reviews).toBe(1);
    const [row] = await waitingCreditReviews(db);
    expect(row).toMatchObject({ individual_name: "CHRIS BLAKE", amount_cents: 250_000, company_name: "ACME PAYROLL" });
    expect(row!.account).toMatch(/^Checking •••• \d{4}$/);
    expect(row!.reasons[0]!.detail).toContain("The name on the entry, CHRIS BLAKE, is not the account holder's");
    // The member reads a deposit on hold, no rule named.
    const [note] = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, jordan.member.id), eq(notifications.kind, "ach_received")));
    expect(note!.body).toBe(
      `It was added to your Checking •••• ${jordan.checking.account_number.slice(-4)} and is on hold for now; it will be available once the hold is released.`,
    );
    await expectLedgerVerifies(db);
    // The hold is the queue's: staff cannot release it (or reverse the credit) on the member's page.
    const request = { staff, origin, member_id: jordan.member.id };
    expect(
      (await memberTransactionsPage(db, jordan.member.id)).rows.find((r) => r.id === review!.hold_transaction_id),
    ).toMatchObject({ pending_owner: "credit_review" });
    expect(
      await reverseMemberTransaction(db, { ...request, transaction_id: review!.hold_transaction_id }),
    ).toMatchObject({ ok: false, code: "resolved_elsewhere" });
    expect(
      await reverseMemberTransaction(db, { ...request, transaction_id: review!.credit_transaction_id }),
    ).toMatchObject({ ok: false });
    expect(await balances(jordan.checking.id)).toEqual({ current: 260_000, available: 10_000 });

    const released = await releaseCreditReview(db, review!.id, staff, origin);
    expect(released).toEqual({
      ok: true,
      message: "The credit of $2,500.00 was released; it is available to the member.",
    });
    expect(await balances(jordan.checking.id)).toEqual({ current: 260_000, available: 260_000 });
    expect(await creditReviewsCount(db)).toBe(0);
    const [audit] = await db.select().from(auditLog).where(eq(auditLog.action, "ach_inbound.credit_released"));
    expect(audit).toMatchObject({ actor_id: staff.id, member_id: jordan.member.id });
    // Decided once.
    expect(await releaseCreditReview(db, review!.id, staff, origin)).toMatchObject({
      ok: false,
      kind: "conflict",
      message: CREDIT_REVIEW_MESSAGES.decided,
    });
    expect(await returnCreditReview(db, review!.id, "R23", staff, origin)).toMatchObject({
      ok: false,
      kind: "conflict",
    });
    expect(await releaseCreditReview(db, 999_999, staff, origin)).toMatchObject({ ok: false, kind: "not_found" });
    await expectLedgerVerifies(db);
  });

  it("staff return one flagged credit as R23 and another as R17: the credits reversed, both in the return file (R17 marked QUESTIONABLE), the ledger balanced", async () => {
    const a = await established("Avery", "Stone");
    const b = await established("Blair", "Quinn");
    await upload([
      {
        company_name: "Quick Loans",
        company_id: "2222222222",
        description: "DEPOSIT",
        entries: [
          { code: "22", account_number: a.checking.account_number, amount_cents: 300_000, name: "DANA FROST" },
          { code: "32", account_number: b.savings.account_number, amount_cents: 150_000, name: "EVAN HOLT" },
        ],
      },
    ]);
    const [ra] = await reviewOf(a.checking.id);
    const [rb] = await reviewOf(b.savings.id);
    // No code, or another code: refused next to the field, nothing changes.
    for (const code of ["", "R24", "r23"])
      expect(await returnCreditReview(db, ra!.id, code, staff, origin)).toMatchObject({
        ok: false,
        kind: "bad_input",
        field: "return_code",
        message: CREDIT_REVIEW_MESSAGES.code,
      });
    expect(await balances(a.checking.id)).toEqual({ current: 310_000, available: 10_000 });

    expect(await returnCreditReview(db, ra!.id, "R23", staff, origin)).toEqual({
      ok: true,
      message:
        "The credit of $3,000.00 was returned as R23 (Refused by the member); it waits in Returned items for the return file.",
    });
    expect(await returnCreditReview(db, rb!.id, "R17", staff, origin)).toMatchObject({ ok: true });
    // The money left: back to what the member had; nothing held.
    expect(await balances(a.checking.id)).toEqual({ current: 10_000, available: 10_000 });
    expect(await balances(b.savings.id)).toEqual({ current: 0, available: 0 });
    const entries = await db
      .select()
      .from(achInboundEntries)
      .where(eq(achInboundEntries.company_name, "QUICK LOANS"))
      .orderBy(achInboundEntries.line);
    expect(entries.map((e) => [e.status, e.return_code])).toEqual([
      ["returned", "R23"],
      ["returned", "R17"],
    ]);
    const [note] = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, a.member.id), eq(notifications.kind, "ach_returned")));
    expect(note!.title).toBe("The deposit of $3,000.00 from Quick Loans was sent back");
    await expectLedgerVerifies(db);

    const exported = await exportReturnFile(db, staff, origin);
    if (!exported.ok) throw new Error(exported.message);
    const read = readNachaFile((await returnFile(db, exported.file.id))!.content, { returns: true });
    const returned = read.batches.flatMap((batch) =>
      batch.entries.map((e) => [
        batch.company_name,
        e.transaction_code,
        e.account_number,
        e.amount_cents,
        e.addenda[0]!.text.slice(0, 3),
        e.addenda[0]!.text.slice(3, 18),
        e.addenda[0]!.text.slice(32, 76).trim(),
      ]),
    );
    expect(returned).toEqual([
      ["QUICK LOANS", "21", a.checking.account_number, 300_000, "R23", entries[0]!.trace_number, ""],
      ["QUICK LOANS", "31", b.savings.account_number, 150_000, "R17", entries[1]!.trace_number, "QUESTIONABLE"],
    ]);
    await expectLedgerVerifies(db);
  });

  it("velocity: the third different originator of the day to one account is held, across files; the same originator again adds none", async () => {
    const m = await established("Casey", "Reed");
    const credit = (company_id: string, company_name: string, amount_cents: number) => ({
      company_name,
      company_id,
      entries: [{ code: "22", account_number: m.checking.account_number, amount_cents, name: "CASEY REED" }],
    });
    await upload([credit("3000000001", "First Co", 5_000), credit("3000000001", "First Co", 5_100)]);
    await upload([credit("3000000002", "Second Co", 5_200)]);
    expect(await reviewOf(m.checking.id)).toEqual([]);
    await upload([credit("3000000003", "Third Co", 5_300)]);
    const reviews = await reviewOf(m.checking.id);
    expect(reviews.map((r) => [r.amount_cents, r.reasons.map((x) => x.rule)])).toEqual([[5_300, ["velocity"]]]);
    expect(reviews[0]!.reasons[0]!.detail).toBe("Credits from 3 different originators to this account today.");
    expect(await balances(m.checking.id)).toEqual({ current: 30_600, available: 25_300 });
    await expectLedgerVerifies(db);
  });

  it("a new account's first large credit is held, a second is not; a credit after an unfreeze is held", async () => {
    const fresh = await newMember(db, { first_name: "Drew", last_name: "Lane" });
    await upload([
      {
        company_name: "Big Employer",
        company_id: "4000000001",
        entries: [
          { code: "22", account_number: fresh.checking.account_number, amount_cents: 600_000, name: "DREW LANE" },
        ],
      },
    ]);
    const first = await reviewOf(fresh.checking.id);
    expect(first.map((r) => r.reasons.map((x) => x.rule))).toEqual([["new_account"]]);
    await releaseCreditReview(db, first[0]!.id, staff, origin);
    await upload([
      {
        company_name: "Big Employer",
        company_id: "4000000001",
        entries: [
          { code: "22", account_number: fresh.checking.account_number, amount_cents: 610_000, name: "DREW LANE" },
        ],
      },
    ]);
    expect(await reviewOf(fresh.checking.id)).toHaveLength(1);

    const thawed = await established("Emery", "Cole");
    await setAccountStatus(db, thawed.checking.id, "frozen");
    await setAccountStatus(db, thawed.checking.id, "active");
    await db.insert(auditLog).values({
      action: "ledger.account.unfreeze",
      actor_id: staff.id,
      subject_type: "ledger_account",
      subject_id: String(thawed.checking.id),
      member_id: thawed.member.id,
    });
    await upload([
      {
        company_name: "Some Sender",
        company_id: "4000000002",
        entries: [
          { code: "22", account_number: thawed.checking.account_number, amount_cents: 120_000, name: "EMERY COLE" },
        ],
      },
    ]);
    const [review] = await reviewOf(thawed.checking.id);
    expect(review!.reasons.map((r) => r.rule)).toEqual(["recently_unfrozen"]);
    // Frozen again before staff decide: the return is refused and changes nothing; release still works.
    await setAccountStatus(db, thawed.checking.id, "frozen");
    expect(await returnCreditReview(db, review!.id, "R17", staff, origin)).toMatchObject({
      ok: false,
      kind: "conflict",
      message: CREDIT_REVIEW_MESSAGES.blocked,
    });
    expect((await reviewOf(thawed.checking.id))[0]!.status).toBe("waiting");
    expect(await releaseCreditReview(db, review!.id, staff, origin)).toMatchObject({ ok: true });
    await expectLedgerVerifies(db);
  });
});

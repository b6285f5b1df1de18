import "../identity-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import {
  ledgerAccounts,
  ledgerTransactions,
  loanApplications,
  loans,
  notifications,
  sharePledges,
} from "~/server/db/schema";
import { verifyLedger } from "~/server/ledger/verify.server";
import { trialBalanceAsOf } from "~/server/books/books.server";
import { institutionAccount, setAccountStatus } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { applyForLoan, decideApplication, type ApplyInput } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { memberApplication } from "~/server/loans/application-views.server";
import { payLoan, runLoanServicing, setAutopay } from "~/server/loans/servicing.server";
import { loanPledge } from "~/server/loans/share-secured.server";
import { addCalendarDays } from "~/domain/payment-dates";
import { openTestDatabase } from "../test-database";
import { fundedMember, staff as newStaff } from "../../factories";

/**
 * A share-secured loan's life (docs/product.md#share-secured-loans, issue 33): the member pledges
 * savings when applying, up to the product's percent of what is available; booking holds the
 * amount borrowed (available drops, the balance stays); the hold keeps the account open and a
 * withdrawal beyond what is available is refused; autopay by the job clock lowers the hold to the
 * principal owed; the payoff releases it. The ledger verified and the books in balance after.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "share-secured", ip: "198.51.100.35" };
const at = (day: string) => new Date(`${day}T15:00:00Z`);

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  staff = await newStaff(db);
});
afterAll(async () => {
  if (db) expect((await verifyLedger(db)).problems).toEqual([]);
  await database?.close();
});

const account = async (id: number) => (await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, id)))[0]!;
const application = (overrides: Partial<ApplyInput>): ApplyInput => ({
  product_slug: "share-secured",
  amount_cents: 4_000_00,
  term_months: 12,
  purpose: "Build credit",
  annual_income_cents: 40_000_00,
  employer: "Harbor Bakery",
  idempotency_key: crypto.randomUUID(),
  ...overrides,
});

describe("applying for a share-secured loan", () => {
  it("needs one of the member's own open savings, and no more than the percent of what is available", async () => {
    const { member, checking, savings } = await fundedMember(db, { checking_cents: 100_00, savings_cents: 5_000_00 });
    const other = await fundedMember(db, { savings_cents: 9_000_00 });
    const count = async () => (await db.select().from(loanApplications)).length;
    const before = await count();
    expect(await applyForLoan(db, member, application({}), origin)).toMatchObject({
      ok: false,
      field: "pledged_account",
      message: "Choose the savings account to pledge.",
    });
    for (const pledged_account_id of [checking.id, other.savings.id])
      expect(await applyForLoan(db, member, application({ pledged_account_id }), origin)).toMatchObject({
        ok: false,
        field: "pledged_account",
      });
    // 90% of $5,000 is $4,500.
    expect(
      await applyForLoan(db, member, application({ pledged_account_id: savings.id, amount_cents: 4_500_01 }), origin),
    ).toMatchObject({
      ok: false,
      field: "amount",
      message: "At most $4,500.00 may be borrowed against Personal Savings (90% of its $5,000.00 available).",
    });
    expect(await count()).toBe(before);
    const applied = await applyForLoan(
      db,
      member,
      application({ pledged_account_id: savings.id, amount_cents: 4_500_00 }),
      origin,
    );
    expect(applied).toMatchObject({ ok: true });
    const [pledge] = await db.select().from(sharePledges).where(eq(sharePledges.account_id, savings.id));
    expect(pledge).toMatchObject({ status: "pledged", held_cents: 0, loan_id: null });
    // Staff cannot offer more than the savings secure.
    expect(
      await decideApplication(db, {
        staff,
        origin,
        application_id: applied.ok ? applied.application_id : 0,
        decision: { outcome: "counter", amount_cents: 4_600_00, rate_ppm: 40_000, term_months: 12 },
      }),
    ).toMatchObject({ ok: false, field: "amount" });
  });

  it("a personal loan ignores a pledged account", async () => {
    const { member, savings } = await fundedMember(db, { savings_cents: 5_000_00 });
    const applied = await applyForLoan(
      db,
      member,
      application({ product_slug: "personal", pledged_account_id: savings.id }),
      origin,
    );
    expect(applied.ok).toBe(true);
    expect(await db.select().from(sharePledges).where(eq(sharePledges.account_id, savings.id))).toEqual([]);
  });
});

describe("a share-secured loan's life", () => {
  it("holds the amount borrowed, lowers the hold after each payment by the job clock, and releases it at payoff", async () => {
    const { member, checking, savings } = await fundedMember(db, { checking_cents: 3_000_00, savings_cents: 5_000_00 });
    const applied = await applyForLoan(
      db,
      member,
      application({ pledged_account_id: savings.id, amount_cents: 4_000_00 }),
      origin,
      at("2026-03-02"),
    );
    if (!applied.ok) throw new Error(applied.message);
    const decided = await decideApplication(
      db,
      {
        staff,
        origin,
        application_id: applied.application_id,
        decision: { outcome: "approve", rate_ppm: 40_000, term_months: 12 },
      },
      at("2026-03-02"),
    );
    expect(decided.ok).toBe(true);

    // The disclosure names the security interest before and after acceptance.
    const offered = await memberApplication(db, member.id, applied.application_id, at("2026-03-02"));
    expect(offered!.disclosure!.security_interest).toContain(
      `security interest in your Personal Savings (account ending ${savings.account_number.slice(-4)})`,
    );
    expect(await acceptOffer(db, member, applied.application_id, origin, at("2026-03-02"))).toMatchObject({ ok: true });
    const [loan] = await db.select().from(loans).where(eq(loans.application_id, applied.application_id));
    const accepted = await memberApplication(db, member.id, applied.application_id, at("2026-03-02"));
    expect(accepted!.disclosure!.security_interest).toContain("security interest");

    // Booked: $4,000 held in savings; its balance stays $5,000, $1,000 available.
    expect(await account(savings.id)).toMatchObject({ posted_cents: 5_000_00, held_cents: 4_000_00 });
    expect(await loanPledge(db, loan!.id, member.id)).toMatchObject({ status: "held", held_cents: 4_000_00 });
    expect(await loanPledge(db, loan!.id, "someone-else")).toBeNull();
    const [hold] = await db
      .select()
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.kind, "share_pledge"))
      .orderBy(ledgerTransactions.id);
    expect(hold).toMatchObject({ status: "pending" });

    // The pledged savings cannot be closed, and a withdrawal beyond what is available is refused.
    expect(await setAccountStatus(db, savings.id, "closed")).toMatchObject({ ok: false, code: "balance_not_zero" });
    const cash = await institutionAccount(db, "cash");
    const withdraw = (amount_cents: number) =>
      postTransfer(db, {
        idempotency_key: crypto.randomUUID(),
        initiator: `member:${member.id}`,
        kind: "withdrawal",
        created_by: member.id,
        entries: [
          { account_id: savings.id, amount_cents: -amount_cents },
          { account_id: cash.id, amount_cents },
        ],
      });
    expect(await withdraw(1_000_01)).toMatchObject({ ok: false, code: "insufficient_funds" });
    expect(await account(savings.id)).toMatchObject({ posted_cents: 5_000_00, held_cents: 4_000_00 });

    // Autopay from checking on each due date by the job clock: after each, the hold is the principal owed.
    expect((await setAutopay(db, member, loan!.id, checking.id, origin, at("2026-03-02"))).ok).toBe(true);
    for (let day = "2026-03-03"; day <= "2026-05-03"; day = addCalendarDays(day, 1)) {
      const run = await runLoanServicing(db, at(day));
      expect(run.failed).toBe(0);
    }
    const receivable = await account(loan!.receivable_account_id);
    const after = (await db.select().from(loans).where(eq(loans.id, loan!.id)))[0]!;
    const principal_owed = -receivable.posted_cents - after.fees_due_cents;
    expect(principal_owed).toBeLessThan(4_000_00);
    expect(await account(savings.id)).toMatchObject({ posted_cents: 5_000_00, held_cents: principal_owed });
    expect(await loanPledge(db, loan!.id)).toMatchObject({ status: "held", held_cents: principal_owed });
    // One hold in force; each earlier one released.
    const holds = await db.select().from(ledgerTransactions).where(eq(ledgerTransactions.kind, "share_pledge"));
    const mine = holds.filter((h) => h.memo?.includes(`L-${String(loan!.id).padStart(6, "0")}`));
    expect(mine.map((h) => h.status).sort()).toEqual(["failed", "failed", "pending"]);

    // The payoff from checking releases the hold: all of the savings is available again.
    const paid = await payLoan(
      db,
      member,
      {
        loan_id: loan!.id,
        from_account_id: checking.id,
        amount: { kind: "payoff" },
        idempotency_key: crypto.randomUUID(),
      },
      origin,
      at("2026-05-04"),
    );
    expect(paid).toMatchObject({ ok: true, paid_off: true });
    expect(await account(savings.id)).toMatchObject({ posted_cents: 5_000_00, held_cents: 0 });
    expect(await loanPledge(db, loan!.id)).toMatchObject({ status: "released", held_cents: 0 });
    const told = await db.select().from(notifications).where(eq(notifications.member_id, member.id));
    expect(told.map((n) => n.title)).toContain("Your pledged savings are released");
    // Now the savings can be emptied and closed.
    expect(await withdraw(5_000_00)).toMatchObject({ ok: true });
    expect(await setAccountStatus(db, savings.id, "closed")).toMatchObject({ ok: true });

    const books = await trialBalanceAsOf(db, "2026-05-04");
    expect(books.balanced).toBe(true);
  });

  it("refuses the booking, changing nothing, when the pledged savings no longer cover the loan", async () => {
    const { member, savings } = await fundedMember(db, { checking_cents: 100_00, savings_cents: 2_000_00 });
    const applied = await applyForLoan(
      db,
      member,
      application({ pledged_account_id: savings.id, amount_cents: 1_800_00 }),
      origin,
    );
    if (!applied.ok) throw new Error(applied.message);
    expect(
      (
        await decideApplication(db, {
          staff,
          origin,
          application_id: applied.application_id,
          decision: { outcome: "approve", rate_ppm: 40_000, term_months: 12 },
        })
      ).ok,
    ).toBe(true);
    const cash = await institutionAccount(db, "cash");
    expect(
      (
        await postTransfer(db, {
          idempotency_key: crypto.randomUUID(),
          initiator: `member:${member.id}`,
          kind: "withdrawal",
          created_by: member.id,
          entries: [
            { account_id: savings.id, amount_cents: -1_000_00 },
            { account_id: cash.id, amount_cents: 1_000_00 },
          ],
        })
      ).ok,
    ).toBe(true);
    const answer = await acceptOffer(db, member, applied.application_id, origin);
    expect(answer).toMatchObject({ ok: false, message: expect.stringContaining("pledged savings no longer cover") });
    expect(await db.select().from(loans).where(eq(loans.application_id, applied.application_id))).toEqual([]);
    expect(await account(savings.id)).toMatchObject({ posted_cents: 1_000_00, held_cents: 0 });
    const [row] = await db.select().from(loanApplications).where(eq(loanApplications.id, applied.application_id));
    expect(row!.status).toBe("approved");
  });
});

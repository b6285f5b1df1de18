import "../member-support";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { externalPayments, linkedAccounts, outbox, sanctionsScreenings } from "~/server/db/schema";
import { getBalances } from "~/server/ledger/accounts.server";
import { linkAccount } from "~/server/linked-accounts/linked-accounts.server";
import { loadSanctionsLists } from "~/server/sanctions/lists.server";
import { setAppDatabase } from "~/server/db/db.server";
import { loadDashboard, transferAction } from "~/routes/member/dashboard.server";
import type { SessionUser } from "~/server/auth/session.server";
import { linkAccountSchema } from "~/domain/linked-accounts";
import { openNumber } from "~/server/payments/payment-destination.server";
import { openTestDatabase } from "../test-database";
import { expectLedgerVerifies } from "../ledger-fixtures";
import { key, lastTransferCode, newMember } from "../member-support";

/**
 * To US Bank to a member's own verified linked account (docs/product.md#to-us-bank): the form posts
 * the link's id, the server reads the account number from the member's sealed link; another
 * member's link, or one not verified, is refused and changes nothing; limits and sanctions
 * screening apply as for a typed account.
 */
let database: Database;
let db: Db;
const origin = { request_id: "us-bank-linked", ip: "198.51.100.8" };
const ACCOUNT_NUMBER = "4000123456789";

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  setAppDatabase(database);
  const fixtures = path.resolve(import.meta.dirname, "../../fixtures/sanctions");
  const loaded = await loadSanctionsLists(db, {
    files: ["SDN.CSV", "ALT.CSV", "ADD.CSV"].map((name) => ({
      name,
      bytes: fs.readFileSync(path.join(fixtures, name)),
    })),
    published_on: "2026-11-28",
    loader: null,
  });
  if (!loaded.ok) throw new Error(loaded.message);
});
afterAll(async () => {
  if (database) await expectLedgerVerifies(db);
  await database?.close();
});

/** A member with a linked account; verified unless told otherwise (as confirming the micro-deposits leaves it). */
async function memberWithLink(
  status: "verified" | "pending" | "failed" | "removed" = "verified",
  name: { first_name?: string; last_name?: string } = {},
) {
  const m = await newMember(db, { checking_cents: 100_000, ...name });
  const link = await linkAccount(
    db,
    m.member,
    linkAccountSchema.parse({
      routing_number: "121000248",
      account_number: ACCOUNT_NUMBER,
      account_type: "savings",
      nickname: "Rainy day",
    }),
    origin,
  );
  if (status !== "pending") await db.update(linkedAccounts).set({ status }).where(eq(linkedAccounts.id, link.id));
  const user = { ...m.member, role: "user" } as unknown as SessionUser;
  return { ...m, link, user };
}

function post(user: SessionUser, fields: Record<string, string>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return transferAction(user, form, origin);
}

async function available(account_id: number) {
  const [a] = await getBalances(db, [account_id]);
  return a!.available_cents;
}

async function paymentsOf(member_id: string) {
  return db.select().from(externalPayments).where(eq(externalPayments.member_id, member_id));
}

describe("To US Bank to a linked account", () => {
  it("offers the member's verified links, masked, and sends to one with the number read from the sealed link", async () => {
    const m = await memberWithLink();
    const page = await loadDashboard(m.user, "ach");
    expect(page.linked_payees).toEqual([
      expect.objectContaining({ id: m.link.id, nickname: "Rainy day", masked: "••6789", account_type: "savings" }),
    ]);
    expect(JSON.stringify(page)).not.toContain(ACCOUNT_NUMBER);
    const fields = {
      from_account_id: String(m.checking.id),
      payee: String(m.link.id),
      amount: "125.00",
      reference: "To savings elsewhere",
      idempotency_key: key(),
    };
    const review = await post(m.user, { intent: "ach-review", ...fields });
    expect(review).toMatchObject({ status: "otp", summary: expect.stringContaining("••6789") });
    expect(JSON.stringify(review)).not.toContain(ACCOUNT_NUMBER);
    const code = await lastTransferCode(db, m.member.email);
    const sent = await post(m.user, { intent: "ach-send", ...fields, otp: code });
    expect(sent).toMatchObject({ status: "done", amount_cents: 12_500 });
    expect(JSON.stringify(sent)).not.toContain(ACCOUNT_NUMBER);
    const [payment] = await paymentsOf(m.member.id);
    expect(payment).toMatchObject({ kind: "ach", status: "pending", amount_cents: 12_500 });
    expect(payment!.details).toMatchObject({
      routing_number: "121000248",
      account_last4: ACCOUNT_NUMBER.slice(-4),
      account_type: "savings",
      account_name: m.member.name,
      linked_account_id: String(m.link.id),
    });
    expect(openNumber(payment!, "account_number")).toBe(ACCOUNT_NUMBER);
    expect(await available(m.checking.id)).toBe(100_000 - 12_500);
    // The same form again is answered with the first payment.
    expect(await post(m.user, { intent: "ach-send", ...fields, otp: code })).toMatchObject({
      status: "done",
      amount_cents: 12_500,
    });
    expect(await paymentsOf(m.member.id)).toHaveLength(1);
  });

  it("refuses another member's link, a pending, failed or removed one, and an unknown id: nothing held, no code sent", async () => {
    const m = await memberWithLink();
    const other = await memberWithLink();
    const pending = await memberWithLink("pending");
    const failed = await memberWithLink("failed");
    const removed = await memberWithLink("removed");
    const mails = async () => (await db.select().from(outbox).where(eq(outbox.to_email, m.member.email))).length;
    for (const [who, link_id] of [
      [m, other.link.id],
      [pending, pending.link.id],
      [failed, failed.link.id],
      [removed, removed.link.id],
      [m, 999_999_999],
    ] as const) {
      const before_mail = await mails();
      const fields = {
        from_account_id: String(who.checking.id),
        payee: String(link_id),
        amount: "10.00",
        reference: "Not allowed",
        idempotency_key: key(),
      };
      for (const intent of ["ach-review", "ach-send", "ach-passkey"]) {
        const answer = await post(who.user, { intent, ...fields, otp: "123456" });
        expect(answer).toMatchObject({
          status: "refused",
          code: "linked_account_unavailable",
          message: "Please choose one of your verified linked accounts",
          reply: { error: { payee: ["Please choose one of your verified linked accounts"] } },
        });
      }
      expect(await paymentsOf(who.member.id)).toEqual([]);
      expect(await available(who.checking.id)).toBe(100_000);
      expect(await mails()).toBe(before_mail);
    }
  });

  it("applies the per-transfer limit and a missing choice's message as for a typed account", async () => {
    const m = await memberWithLink();
    const over = await post(m.user, {
      intent: "ach-review",
      from_account_id: String(m.checking.id),
      payee: String(m.link.id),
      amount: "999999.00",
      reference: "Too much",
      idempotency_key: key(),
    });
    expect(over).toMatchObject({ status: "refused", code: "over_transfer_max" });
    const blank = await post(m.user, {
      intent: "ach-review",
      from_account_id: String(m.checking.id),
      payee: "abc",
      amount: "1.00",
      reference: "x",
      idempotency_key: key(),
    });
    expect(blank).toMatchObject({ status: "refused", code: "invalid", reply: { error: { payee: expect.any(Array) } } });
    expect(await paymentsOf(m.member.id)).toEqual([]);
  });

  it("screens the member's own name as the payee: a possible match is held for review", async () => {
    const m = await memberWithLink("verified", { first_name: "Jose Luis", last_name: "Gonzales Moreno" });
    const fields = {
      from_account_id: String(m.checking.id),
      payee: String(m.link.id),
      amount: "20.00",
      reference: "Screened",
      idempotency_key: key(),
    };
    await post(m.user, { intent: "ach-review", ...fields });
    const sent = await post(m.user, { intent: "ach-send", ...fields, otp: await lastTransferCode(db, m.member.email) });
    expect(sent).toMatchObject({ status: "done", in_review: true });
    const [payment] = await paymentsOf(m.member.id);
    expect(payment!.status).toBe("screening");
    const [screening] = await db
      .select()
      .from(sanctionsScreenings)
      .where(eq(sanctionsScreenings.subject_id, String(payment!.id)));
    expect(screening).toMatchObject({ screened_name: "Jose Luis Gonzales Moreno" });
  });
});

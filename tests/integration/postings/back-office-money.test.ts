import "../member-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import {
  auditLog,
  balanceAdjustments,
  externalPayments,
  ledgerAccounts,
  memberAccountSettings,
  notifications,
} from "~/server/db/schema";
import { getAccount, institutionAccount } from "~/server/ledger/accounts.server";
import { placeHold, postTransfer } from "~/server/ledger/ledger.server";
import { getTransaction } from "~/server/ledger/history.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { transferEntries } from "~/domain/ledger-rules";
import {
  AccountEditSchema,
  AdjustBalanceSchema,
  PlaceHoldSchema,
  ACCOUNT_NUMBER_MESSAGE,
  ROUTING_NUMBER_MESSAGE,
  AMOUNT_DECIMALS_MESSAGE,
  AMOUNT_MESSAGE,
  AMOUNT_TOO_LARGE_MESSAGE,
} from "~/domain/member-accounts";
import { editMemberAccount } from "~/server/member-accounts/account-edit.server";
import { awaitingAdjustments, decideAdjustment, requestAdjustment } from "~/server/member-accounts/adjustments.server";
import { placeStaffHold, releaseStaffHold, staffHolds } from "~/server/member-accounts/holds.server";
import { reverseAllMemberTransactions, reverseMemberTransaction } from "~/server/member-accounts/reversals.server";
import { memberTransactionsPage } from "~/server/member-accounts/transactions.server";
import { transferBetweenAccounts } from "~/server/payments/between-accounts.server";
import { issueDebitCard } from "~/server/cards/cards.server";
import { memberCardsView } from "~/server/cards/controls.server";
import { authorizeCardPurchase } from "~/server/cards/authorization.server";
import { betweenAccountsSchema } from "~/domain/transfers";
import { institution } from "~/config/institution.server";
import { openTestDatabase, onPostgres } from "../test-database";
import { fundedMember, person } from "../../factories";
import { newKey } from "../ledger-fixtures";

/**
 * The back office's money actions (docs/product.md#member-accounts-staff) on the real database:
 * every rule and refusal, nothing posted on a refusal, and the ledger verifies after each test.
 */
let database: Database;
const db = (): Db => database.db;
const ORIGIN = { request_id: "money-test-0001", ip: "203.0.113.5" };
let maker: { id: string; email: string };
let checker: { id: string; email: string };

beforeAll(async () => {
  database = await openTestDatabase({ pool_max: 6 });
  maker = await person(db(), "admin");
  checker = await person(db(), "admin");
});
afterAll(async () => {
  await database?.close();
});
afterEach(async () => {
  expect((await verifyLedger(db())).problems).toEqual([]);
});

async function balance(account_id: number) {
  const account = await getAccount(db(), account_id);
  return { current: account!.current_cents, available: account!.available_cents, status: account!.status };
}

async function transactionCount(): Promise<number> {
  const result = await db().execute(sql`select count(*)::int as n from ledger_transactions`);
  return Number(result.rows[0]!.n);
}

async function auditsOf(action: string, subject_id: string | number) {
  return db()
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.subject_id, String(subject_id))))
    .orderBy(desc(auditLog.id));
}

function staffRequest(member_id: string, staff = maker) {
  return { staff, origin: ORIGIN, member_id };
}

describe("User Transactions", () => {
  it("lists every transaction of the member's accounts newest first, in keyset pages without repeats", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000, savings_cents: 5_000 });
    // Own transfers touch two of the member's accounts: each shows once.
    for (let i = 0; i < 5; i++) {
      await postTransfer(db(), {
        idempotency_key: newKey("own"),
        initiator: `member:${m.member.id}`,
        created_by: m.member.id,
        kind: "transfer",
        entries: transferEntries(m.checking.id, m.savings.id, 100 + i),
        memo: `own ${i}`,
      });
    }
    const seen: number[] = [];
    let before: string | null = null;
    do {
      const page = await memberTransactionsPage(db(), m.member.id, { before, limit: 3 });
      seen.push(...page.rows.map((r) => r.id));
      before = page.next_before;
    } while (before);
    expect(seen).toHaveLength(7); // two deposits and five transfers
    expect(new Set(seen).size).toBe(7);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
    const first = await memberTransactionsPage(db(), m.member.id);
    expect(first.rows[0]!.legs).toHaveLength(2);
    expect(first.rows[0]!.created_by_email).toBe(m.member.email);
    expect(first.rows.at(-1)!.status).toBe("posted");
  });

  it("shows only the member's own legs, never another member's account", async () => {
    const a = await fundedMember(db(), { checking_cents: 10_000 });
    const b = await fundedMember(db());
    await postTransfer(db(), {
      idempotency_key: newKey("m2m"),
      initiator: `member:${a.member.id}`,
      created_by: a.member.id,
      kind: "member_transfer",
      entries: transferEntries(a.checking.id, b.checking.id, 2_500),
    });
    const page = await memberTransactionsPage(db(), b.member.id);
    expect(page.rows).toHaveLength(1);
    expect(page.rows[0]!.legs).toEqual([expect.objectContaining({ account_id: b.checking.id, amount_cents: 2_500 })]);
  });
});

describe("Reverse one transaction", () => {
  it("posts the reversing transaction, the original shows Reversed, audited with before and after, and the member is told", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000 });
    const [deposit] = (await memberTransactionsPage(db(), m.member.id)).rows;
    const result = await reverseMemberTransaction(db(), { ...staffRequest(m.member.id), transaction_id: deposit!.id });
    expect(result).toMatchObject({
      status: "reversed",
      message: "Transaction reversed and balance updated successfully",
    });
    expect((await getTransaction(db(), deposit!.id))!.transaction.status).toBe("reversed");
    expect(await balance(m.checking.id)).toMatchObject({ current: 0, available: 0 });
    const [audit] = await auditsOf("ledger.transaction.reverse", deposit!.id);
    expect(audit).toMatchObject({ actor_id: maker.id, member_id: m.member.id });
    expect(audit!.before).toMatchObject({ status: "posted" });
    expect(audit!.after).toMatchObject({ status: "reversed" });
    const [notice] = await db()
      .select()
      .from(notifications)
      .where(eq(notifications.member_id, m.member.id))
      .orderBy(desc(notifications.id))
      .limit(1);
    expect(notice).toMatchObject({ kind: "account_correction", title: "A transaction was reversed" });
  });

  it("refuses a reversal of a reversal, and a second reversal (the same staff or another), posting nothing", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000 });
    const [deposit] = (await memberTransactionsPage(db(), m.member.id)).rows;
    await reverseMemberTransaction(db(), { ...staffRequest(m.member.id), transaction_id: deposit!.id });
    const [reversal] = (await memberTransactionsPage(db(), m.member.id)).rows;
    expect(reversal!.kind).toBe("reversal");
    const count = await transactionCount();
    const ofReversal = await reverseMemberTransaction(db(), {
      ...staffRequest(m.member.id),
      transaction_id: reversal!.id,
    });
    expect(ofReversal).toMatchObject({ ok: false, kind: "conflict", code: "reversal_not_reversible" });
    expect((ofReversal as { message: string }).message).toContain("Error reversing transaction");
    expect(
      await reverseMemberTransaction(db(), { ...staffRequest(m.member.id), transaction_id: deposit!.id }),
    ).toMatchObject({ ok: false, code: "already_reversed" });
    expect(
      await reverseMemberTransaction(db(), { ...staffRequest(m.member.id, checker), transaction_id: deposit!.id }),
    ).toMatchObject({ ok: false, code: "already_reversed" });
    expect(await transactionCount()).toBe(count);
  });

  it("answers Transaction not found for another member's transaction or an unknown id", async () => {
    const a = await fundedMember(db(), { checking_cents: 10_000 });
    const b = await fundedMember(db(), { checking_cents: 10_000 });
    const [ofA] = (await memberTransactionsPage(db(), a.member.id)).rows;
    expect(
      await reverseMemberTransaction(db(), { ...staffRequest(b.member.id), transaction_id: ofA!.id }),
    ).toMatchObject({ ok: false, kind: "not_found", message: "Transaction not found" });
    expect(
      await reverseMemberTransaction(db(), { ...staffRequest(b.member.id), transaction_id: 999_999_999 }),
    ).toMatchObject({ ok: false, kind: "not_found" });
    expect((await getTransaction(db(), ofA!.id))!.transaction.status).toBe("posted");
  });

  it("releases a pending transaction instead of reversing it", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000 });
    const adjustments = await institutionAccount(db(), "adjustments");
    const hold = await placeHold(db(), {
      idempotency_key: newKey("h"),
      initiator: "system:test",
      created_by: "system:test",
      kind: "withdrawal",
      entries: transferEntries(m.checking.id, adjustments.id, 4_000),
    });
    expect(await balance(m.checking.id)).toMatchObject({ available: 6_000 });
    const id = (hold as { transaction: { id: number } }).transaction.id;
    expect((await memberTransactionsPage(db(), m.member.id)).rows.find((r) => r.id === id)).toMatchObject({
      status: "pending",
      pending_owner: null,
    });
    expect(await reverseMemberTransaction(db(), { ...staffRequest(m.member.id), transaction_id: id })).toMatchObject({
      status: "released",
    });
    expect((await getTransaction(db(), id))!.transaction.status).toBe("failed");
    expect(await balance(m.checking.id)).toMatchObject({ current: 10_000, available: 10_000 });
  });

  it("leaves a member's queued payment to the payments queue: marked in the list, Release refused, the hold stays", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000 });
    const settlement = await institutionAccount(db(), "ach_settlement");
    const hold = await placeHold(db(), {
      idempotency_key: newKey("ach"),
      initiator: `member:${m.member.id}`,
      created_by: m.member.id,
      kind: "ach_out",
      entries: transferEntries(m.checking.id, settlement.id, 3_000),
    });
    const id = (hold as { transaction: { id: number } }).transaction.id;
    await db()
      .insert(externalPayments)
      .values({
        member_id: m.member.id,
        kind: "ach",
        from_account_id: m.checking.id,
        hold_transaction_id: id,
        amount_cents: 3_000,
        details: { routing_number: "021000021" },
        idempotency_key: newKey("p"),
      });
    expect((await memberTransactionsPage(db(), m.member.id)).rows.find((r) => r.id === id)).toMatchObject({
      status: "pending",
      pending_owner: "payment",
    });
    expect(await reverseMemberTransaction(db(), { ...staffRequest(m.member.id), transaction_id: id })).toMatchObject({
      ok: false,
      code: "resolved_elsewhere",
      message: "Error reversing transaction: this is a payment waiting in the payments queue: cancel it there.",
    });
    expect((await getTransaction(db(), id))!.transaction.status).toBe("pending");
    expect(await balance(m.checking.id)).toMatchObject({ available: 7_000 });
  });

  it("refuses a reversal that would take a member below zero (the money was spent), posting nothing", async () => {
    const a = await fundedMember(db(), { checking_cents: 10_000 });
    const b = await fundedMember(db());
    await postTransfer(db(), {
      idempotency_key: newKey("m2m"),
      initiator: `member:${a.member.id}`,
      created_by: a.member.id,
      kind: "member_transfer",
      entries: transferEntries(a.checking.id, b.checking.id, 5_000),
    });
    const cash = await institutionAccount(db(), "cash");
    await postTransfer(db(), {
      idempotency_key: newKey("spend"),
      initiator: `member:${b.member.id}`,
      created_by: b.member.id,
      kind: "withdrawal",
      entries: transferEntries(b.checking.id, cash.id, 5_000),
    });
    const received = (await memberTransactionsPage(db(), b.member.id)).rows.find((r) => r.kind === "member_transfer")!;
    const result = await reverseMemberTransaction(db(), { ...staffRequest(b.member.id), transaction_id: received.id });
    expect(result).toMatchObject({ ok: false, code: "insufficient_funds" });
    expect((await getTransaction(db(), received.id))!.transaction.status).toBe("posted");
  });

  it.runIf(onPostgres)("two staff reversing the same transaction at once: exactly one reversal", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000 });
    const [deposit] = (await memberTransactionsPage(db(), m.member.id)).rows;
    const results = await Promise.all([
      reverseMemberTransaction(db(), { ...staffRequest(m.member.id, maker), transaction_id: deposit!.id }),
      reverseMemberTransaction(db(), { ...staffRequest(m.member.id, checker), transaction_id: deposit!.id }),
      reverseMemberTransaction(db(), { ...staffRequest(m.member.id, maker), transaction_id: deposit!.id }),
    ]);
    expect(results.filter((r) => r.ok && r.status === "reversed")).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toHaveLength(2);
    const reversals = await db().execute(
      sql`select count(*)::int as n from ledger_transactions where reverses_id = ${deposit!.id}`,
    );
    expect(Number(reversals.rows[0]!.n)).toBe(1);
    expect(await balance(m.checking.id)).toMatchObject({ current: 0 });
  });
});

describe("Reverse All Transactions", () => {
  it("needs the member's email typed again, then reverses every posted one in one batch", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000, savings_cents: 3_000 });
    await postTransfer(db(), {
      idempotency_key: newKey("own"),
      initiator: `member:${m.member.id}`,
      created_by: m.member.id,
      kind: "transfer",
      entries: transferEntries(m.checking.id, m.savings.id, 2_000),
    });
    const count = await transactionCount();
    expect(
      await reverseAllMemberTransactions(db(), { ...staffRequest(m.member.id), confirm_email: "someone@else.example" }),
    ).toMatchObject({ ok: false, kind: "bad_input", field: "confirm_email" });
    expect(await transactionCount()).toBe(count);
    const result = await reverseAllMemberTransactions(db(), {
      ...staffRequest(m.member.id),
      confirm_email: ` ${m.member.email.toUpperCase()} `,
    });
    expect(result).toMatchObject({ status: "reversed", count: 3, message: "Successfully reversed 3 transactions" });
    expect(await balance(m.checking.id)).toMatchObject({ current: 0 });
    expect(await balance(m.savings.id)).toMatchObject({ current: 0 });
    const rows = (await memberTransactionsPage(db(), m.member.id)).rows;
    expect(rows.filter((r) => r.kind !== "reversal").every((r) => r.status === "reversed")).toBe(true);
    expect(await auditsOf("ledger.transaction.reverse_all", m.member.id)).toHaveLength(1);
    // Again: nothing left to reverse (reversals are never reversed).
    expect(
      await reverseAllMemberTransactions(db(), { ...staffRequest(m.member.id), confirm_email: m.member.email }),
    ).toMatchObject({ ok: false, code: "nothing_to_reverse" });
  });

  it("reverses nothing at all when one of them cannot be reversed", async () => {
    const a = await fundedMember(db(), { checking_cents: 10_000 });
    const b = await fundedMember(db());
    await postTransfer(db(), {
      idempotency_key: newKey("m2m"),
      initiator: `member:${a.member.id}`,
      created_by: a.member.id,
      kind: "member_transfer",
      entries: transferEntries(a.checking.id, b.checking.id, 5_000),
    });
    const cash = await institutionAccount(db(), "cash");
    // b spends it: reversing a's transfer would take b below zero.
    await postTransfer(db(), {
      idempotency_key: newKey("spend"),
      initiator: `member:${b.member.id}`,
      created_by: b.member.id,
      kind: "withdrawal",
      entries: transferEntries(b.checking.id, cash.id, 5_000),
    });
    const count = await transactionCount();
    const result = await reverseAllMemberTransactions(db(), {
      ...staffRequest(a.member.id),
      confirm_email: a.member.email,
    });
    expect(result).toMatchObject({ ok: false });
    expect((result as { message: string }).message).toMatch(/^Error reversing transactions/);
    expect(await transactionCount()).toBe(count);
    expect(await balance(a.checking.id)).toMatchObject({ current: 5_000 });
  });
});

describe("Accounts: inline Edit", () => {
  const edit = (account_id: number, fields: Partial<Record<string, string>>, current: { account_number: string }) =>
    AccountEditSchema.safeParse({
      account_id: String(account_id),
      account_number: current.account_number,
      routing_number: institution().routing_number,
      status: "active",
      status_reason: "",
      ...fields,
    });

  it("checks the account number and routing number rules with their messages", () => {
    const current = { account_number: "1234567890" };
    expect(edit(1, { account_number: "0123456789" }, current).error?.issues[0]!.message).toBe(ACCOUNT_NUMBER_MESSAGE);
    expect(edit(1, { account_number: "12345" }, current).error?.issues[0]!.message).toBe(ACCOUNT_NUMBER_MESSAGE);
    expect(edit(1, { account_number: "123 456 7890" }, current).data?.account_number).toBe("1234567890");
    expect(edit(1, { routing_number: "123456789" }, current).error?.issues[0]!.message).toBe(ROUTING_NUMBER_MESSAGE);
    expect(edit(1, { routing_number: "021000021" }, current).success).toBe(true);
    expect(edit(1, { status: "frozen" }, current).error?.issues[0]!.path).toEqual(["status_reason"]);
  });

  it("changes the number and routing number, refuses a number another account has, audited", async () => {
    const a = await fundedMember(db());
    const b = await fundedMember(db());
    const parsed = edit(a.checking.id, { account_number: "987 654 3210", routing_number: "021000021" }, a.checking);
    const saved = await editMemberAccount(db(), { ...staffRequest(a.member.id), edit: parsed.data! });
    expect(saved).toMatchObject({ status: "saved" });
    expect((await getAccount(db(), a.checking.id))!.account_number).toBe("9876543210");
    const [settings] = await db()
      .select()
      .from(memberAccountSettings)
      .where(eq(memberAccountSettings.account_id, a.checking.id));
    expect(settings!.routing_number).toBe("021000021");
    const [audit] = await auditsOf("ledger.account.edit", a.checking.id);
    expect(audit!.before).toMatchObject({ account_number: a.checking.account_number });
    expect(audit!.after).toMatchObject({ account_number: "9876543210", routing_number: "021000021" });
    const taken = await editMemberAccount(db(), {
      ...staffRequest(b.member.id),
      edit: edit(b.checking.id, { account_number: "9876543210" }, b.checking).data!,
    });
    expect(taken).toMatchObject({
      ok: false,
      field: "account_number",
      message: "This account number is already in use",
    });
    expect((await getAccount(db(), b.checking.id))!.account_number).toBe(b.checking.account_number);
  });

  it("answers Account not found for another member's account or an institution account", async () => {
    const a = await fundedMember(db());
    const b = await fundedMember(db());
    const cash = await institutionAccount(db(), "cash");
    expect(
      await editMemberAccount(db(), {
        ...staffRequest(a.member.id),
        edit: edit(b.checking.id, { status: "frozen", status_reason: "x" }, b.checking).data!,
      }),
    ).toMatchObject({ ok: false, kind: "not_found", message: "Account not found" });
    expect(
      await editMemberAccount(db(), {
        ...staffRequest(a.member.id),
        edit: edit(cash.id, { status: "frozen", status_reason: "x" }, cash).data!,
      }),
    ).toMatchObject({ ok: false, kind: "not_found" });
    expect((await getAccount(db(), b.checking.id))!.status).toBe("active");
    expect((await getAccount(db(), cash.id))!.status).toBe("active");
  });

  it("freezes with a reason: the member's transfer is then refused as blocked; unfreezing lets it through", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000, savings_cents: 1_000 });
    const frozen = await editMemberAccount(db(), {
      ...staffRequest(m.member.id),
      edit: edit(m.checking.id, { status: "frozen", status_reason: "Suspected fraud" }, m.checking).data!,
    });
    expect(frozen).toMatchObject({ status: "saved" });
    expect(await auditsOf("ledger.account.freeze", m.checking.id)).toHaveLength(1);
    const [notice] = await db()
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "account_status")));
    expect(notice!.title).toBe("Account frozen");
    const transfer = () =>
      transferBetweenAccounts(
        db(),
        m.member,
        betweenAccountsSchema.parse({
          from_account_id: String(m.checking.id),
          to_account_id: String(m.savings.id),
          amount: "1.00",
          reference: "Rent",
          idempotency_key: crypto.randomUUID(),
        }),
      );
    expect(await transfer()).toMatchObject({ ok: false, code: "account_frozen" });
    expect(await balance(m.checking.id)).toMatchObject({ current: 10_000, status: "frozen" });
    await editMemberAccount(db(), {
      ...staffRequest(m.member.id),
      edit: edit(m.checking.id, { status: "active" }, m.checking).data!,
    });
    expect(await balance(m.checking.id)).toMatchObject({ status: "active" });
    expect(await transfer()).toMatchObject({ ok: true });
  });

  it("closes only at zero balance with nothing on hold", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000 });
    const close = () =>
      editMemberAccount(db(), {
        ...staffRequest(m.member.id),
        edit: edit(m.checking.id, { status: "closed", status_reason: "Member asked" }, m.checking).data!,
      });
    expect(await close()).toMatchObject({ ok: false, field: "status", code: "balance_not_zero" });
    await requestAdjustment(db(), {
      ...staffRequest(m.member.id),
      account_id: m.checking.id,
      target_cents: 0,
      reason: "Paid out in cash",
    });
    const hold = await placeStaffHold(db(), {
      ...staffRequest(m.member.id),
      account_id: m.savings.id,
      amount_cents: 1,
      reason: "x",
      request_key: crypto.randomUUID(),
    });
    expect(hold).toMatchObject({ ok: false, code: "insufficient_funds" });
    expect(await close()).toMatchObject({ status: "saved" });
    expect(await balance(m.checking.id)).toMatchObject({ status: "closed" });
    expect(await close()).toMatchObject({ status: "unchanged" });
  });

  it("closing an account blocks its debit cards for good, says so to the member, and its card's next purchase is declined", async () => {
    const m = await fundedMember(db(), { checking_cents: 0 });
    const card = await issueDebitCard(db(), { member_id: m.member.id, account_id: m.checking.id });
    const savingsCard = await issueDebitCard(db(), { member_id: m.member.id, account_id: m.savings.id });
    const closed = await editMemberAccount(db(), {
      ...staffRequest(m.member.id),
      edit: edit(m.checking.id, { status: "closed", status_reason: "Member asked" }, m.checking).data!,
    });
    expect(closed).toMatchObject({ status: "saved", message: "Account updated. Status: Closed." });
    const cards = await memberCardsView(db(), m.member.id);
    expect(cards.find((c) => c.id === card.id)).toMatchObject({
      status: "blocked",
      blocked_reason: "account_closed",
      replaced_by_last4: null,
    });
    expect(cards.find((c) => c.id === savingsCard.id)).toMatchObject({ status: "active" });
    const [notice] = await db()
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "account_status")));
    expect(notice!.title).toBe("Account closed");
    expect(notice!.body).toMatch(new RegExp(`is closed\\. Its debit card ending ${card.last4} no longer works\\.$`));
    const [audit] = await auditsOf("ledger.account.close", m.checking.id);
    expect(audit!.after).toMatchObject({ status: "closed", cards_blocked: [card.id] });
    const purchase = await authorizeCardPurchase(db(), {
      card_id: card.id,
      merchant: "Harbor Hardware",
      amount_cents: 100,
      category: "Shopping",
      idempotency_key: newKey("card"),
      initiator: "staff:test",
      created_by: "staff:test",
    });
    expect(purchase).toMatchObject({ ok: false, code: "card_blocked" });
  });
});

describe("Adjust balance", () => {
  it("posts the difference against the adjustments ledger account at or under the limit", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000 });
    const adjustments = await institutionAccount(db(), "adjustments");
    const before = (await getAccount(db(), adjustments.id))!.current_cents;
    const result = await requestAdjustment(db(), {
      ...staffRequest(m.member.id),
      account_id: m.checking.id,
      target_cents: 12_345,
      reason: "Bank error in your favour",
    });
    expect(result).toMatchObject({ status: "posted" });
    expect(await balance(m.checking.id)).toMatchObject({ current: 12_345 });
    expect((await getAccount(db(), adjustments.id))!.current_cents).toBe(before - 2_345);
    const tx = await getTransaction(db(), (result as { transaction_id: number }).transaction_id);
    expect(tx!.transaction).toMatchObject({ kind: "adjustment", created_by: maker.id });
    const [audit] = await auditsOf("ledger.adjustment.post", m.checking.id);
    expect(audit!.before).toEqual({ balance_cents: 10_000 });
    expect(audit!.after).toMatchObject({ balance_cents: 12_345, reason: "Bank error in your favour" });
    // Down too, and "no change" is refused.
    expect(
      await requestAdjustment(db(), {
        ...staffRequest(m.member.id),
        account_id: m.checking.id,
        target_cents: 5_000,
        reason: "Correction",
      }),
    ).toMatchObject({ status: "posted" });
    expect(
      await requestAdjustment(db(), {
        ...staffRequest(m.member.id),
        account_id: m.checking.id,
        target_cents: 5_000,
        reason: "Again",
      }),
    ).toMatchObject({ ok: false, field: "target_balance", code: "no_change" });
  });

  it("above the limit waits for a second staff member: the maker cannot approve, approval posts, decline records the reason", async () => {
    const m = await fundedMember(db(), { checking_cents: 100 });
    const limit = institution().limits.adjustment_second_approval_above_cents;
    const asked = await requestAdjustment(db(), {
      ...staffRequest(m.member.id),
      account_id: m.checking.id,
      target_cents: 100 + limit + 1,
      reason: "Wire received by phone",
    });
    expect(asked).toMatchObject({ status: "awaiting_approval" });
    expect(await balance(m.checking.id)).toMatchObject({ current: 100 });
    const id = (asked as { adjustment_id: number }).adjustment_id;
    const queued = (await awaitingAdjustments(db())).find((a) => a.id === id);
    expect(queued).toMatchObject({
      requested_by_email: maker.email,
      reason: "Wire received by phone",
      amount_cents: limit + 1,
    });
    expect(
      await decideAdjustment(db(), { staff: maker, origin: ORIGIN, adjustment_id: id, decision: "approve" }),
    ).toMatchObject({ ok: false, kind: "forbidden", code: "maker_cannot_approve" });
    expect(await balance(m.checking.id)).toMatchObject({ current: 100 });
    expect(
      await decideAdjustment(db(), { staff: checker, origin: ORIGIN, adjustment_id: id, decision: "approve" }),
    ).toMatchObject({ status: "posted" });
    expect(await balance(m.checking.id)).toMatchObject({ current: 100 + limit + 1 });
    expect(
      await decideAdjustment(db(), { staff: checker, origin: ORIGIN, adjustment_id: id, decision: "approve" }),
    ).toMatchObject({ ok: false, code: "already_decided" });
    const [row] = await db().select().from(balanceAdjustments).where(eq(balanceAdjustments.id, id));
    expect(row).toMatchObject({ status: "posted", requested_by: maker.id, decided_by: checker.id });
    expect(await auditsOf("ledger.adjustment.approve", id)).toHaveLength(1);

    const second = await requestAdjustment(db(), {
      ...staffRequest(m.member.id),
      account_id: m.checking.id,
      target_cents: 0,
      reason: "Reverse the phone wire",
    });
    const second_id = (second as { adjustment_id: number }).adjustment_id;
    expect(
      await decideAdjustment(db(), {
        staff: checker,
        origin: ORIGIN,
        adjustment_id: second_id,
        decision: "decline",
        reason: "No paperwork",
      }),
    ).toMatchObject({ status: "declined" });
    const [declined] = await db().select().from(balanceAdjustments).where(eq(balanceAdjustments.id, second_id));
    expect(declined).toMatchObject({ status: "declined", decline_reason: "No paperwork", transaction_id: null });
    expect(await balance(m.checking.id)).toMatchObject({ current: 100 + limit + 1 });
  });

  it("the database itself refuses a checker who is the maker", async () => {
    const m = await fundedMember(db(), { checking_cents: 100 });
    await expect(
      db().insert(balanceAdjustments).values({
        account_id: m.checking.id,
        member_id: m.member.id,
        from_cents: 100,
        target_cents: 200,
        amount_cents: 100,
        reason: "x",
        status: "awaiting_approval",
        requested_by: maker.id,
        decided_by: maker.id,
      }),
    ).rejects.toThrow();
  });

  it("refuses bad amounts with a message next to the field (negative, three decimals, huge, empty)", () => {
    const parse = (target_balance: string) =>
      AdjustBalanceSchema.safeParse({ account_id: "1", target_balance, reason: "r" });
    expect(parse("-5").error?.issues[0]).toMatchObject({ path: ["target_balance"] });
    expect(parse("1.005").error?.issues[0]!.message).toBe(AMOUNT_DECIMALS_MESSAGE);
    expect(parse("100000000.01").error?.issues[0]!.message).toBe(AMOUNT_TOO_LARGE_MESSAGE);
    expect(parse("").success).toBe(false);
    expect(parse("0").success).toBe(true);
    expect(
      AdjustBalanceSchema.safeParse({ account_id: "1", target_balance: "5", reason: "  " }).error?.issues[0]!.path,
    ).toEqual(["reason"]);
    const hold = (amount: string) =>
      PlaceHoldSchema.safeParse({ account_id: "1", amount, reason: "r", request_key: crypto.randomUUID() });
    expect(hold("0").error?.issues[0]!.message).toBe(AMOUNT_MESSAGE);
    expect(hold("-1").error?.issues[0]!.message).toBe(AMOUNT_MESSAGE);
    expect(hold("1.001").error?.issues[0]!.message).toBe(AMOUNT_DECIMALS_MESSAGE);
    expect(hold("99999999999999").error?.issues[0]!.message).toBe(AMOUNT_TOO_LARGE_MESSAGE);
  });

  it("refuses a debit beyond what is available, another member's account, a frozen account: nothing posted", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000 });
    const other = await fundedMember(db(), { checking_cents: 10_000 });
    await placeStaffHold(db(), {
      ...staffRequest(m.member.id),
      account_id: m.checking.id,
      amount_cents: 6_000,
      reason: "Hold",
      request_key: crypto.randomUUID(),
    });
    const count = await transactionCount();
    // Words about the adjustment, not "Failed to update account" (no account was being edited).
    expect(
      await requestAdjustment(db(), {
        ...staffRequest(m.member.id),
        account_id: m.checking.id,
        target_cents: 1_000,
        reason: "x",
      }),
    ).toMatchObject({
      ok: false,
      code: "insufficient_funds",
      message:
        "Failed to adjust the balance: Insufficient funds: $60.00 is on hold; release holds first or choose a higher balance.",
    });
    expect(
      await requestAdjustment(db(), {
        ...staffRequest(m.member.id),
        account_id: other.checking.id,
        target_cents: 1_000,
        reason: "x",
      }),
    ).toMatchObject({ ok: false, kind: "not_found" });
    await db().update(ledgerAccounts).set({ status: "frozen" }).where(eq(ledgerAccounts.id, m.savings.id));
    expect(
      await requestAdjustment(db(), {
        ...staffRequest(m.member.id),
        account_id: m.savings.id,
        target_cents: 1_000,
        reason: "x",
      }),
    ).toMatchObject({ ok: false, code: "account_frozen" });
    expect(await transactionCount()).toBe(count);
  });
});

describe("Holds", () => {
  it("places a hold (available drops, current stays), once per form, and releases it with a reason", async () => {
    const m = await fundedMember(db(), { checking_cents: 10_000 });
    const request_key = crypto.randomUUID();
    const placed = await placeStaffHold(db(), {
      ...staffRequest(m.member.id),
      account_id: m.checking.id,
      amount_cents: 2_500,
      reason: "Check under review",
      request_key,
    });
    expect(placed).toMatchObject({ status: "placed" });
    expect(
      await placeStaffHold(db(), {
        ...staffRequest(m.member.id),
        account_id: m.checking.id,
        amount_cents: 2_500,
        reason: "Check under review",
        request_key,
      }),
    ).toMatchObject({ status: "placed" });
    expect(await balance(m.checking.id)).toMatchObject({ current: 10_000, available: 7_500 });
    const [hold] = await staffHolds(db(), m.member.id);
    expect(hold).toMatchObject({ amount_cents: 2_500, placed_by_email: maker.email });
    expect(await auditsOf("ledger.hold.place", m.checking.id)).toHaveLength(1);
    expect(
      await releaseStaffHold(db(), {
        ...staffRequest(m.member.id),
        transaction_id: hold!.transaction_id,
        reason: "Check cleared",
      }),
    ).toMatchObject({ status: "released" });
    expect(await balance(m.checking.id)).toMatchObject({ current: 10_000, available: 10_000 });
    expect(
      await releaseStaffHold(db(), {
        ...staffRequest(m.member.id),
        transaction_id: hold!.transaction_id,
        reason: "again",
      }),
    ).toMatchObject({ ok: false, code: "not_pending" });
    const [audit] = await auditsOf("ledger.hold.release", hold!.transaction_id);
    expect(audit!.after).toMatchObject({ status: "failed", reason: "Check cleared" });
  });

  it("refuses a hold beyond the available balance, on another member's account, and a release of a member's own pending payment", async () => {
    const m = await fundedMember(db(), { checking_cents: 1_000 });
    const other = await fundedMember(db(), { checking_cents: 1_000 });
    const count = await transactionCount();
    expect(
      await placeStaffHold(db(), {
        ...staffRequest(m.member.id),
        account_id: m.checking.id,
        amount_cents: 1_001,
        reason: "x",
        request_key: crypto.randomUUID(),
      }),
    ).toMatchObject({ ok: false, code: "insufficient_funds", field: "amount" });
    expect(
      await placeStaffHold(db(), {
        ...staffRequest(m.member.id),
        account_id: other.checking.id,
        amount_cents: 1,
        reason: "x",
        request_key: crypto.randomUUID(),
      }),
    ).toMatchObject({ ok: false, kind: "not_found" });
    expect(await transactionCount()).toBe(count);
    const adjustments = await institutionAccount(db(), "adjustments");
    const system = await placeHold(db(), {
      idempotency_key: newKey("sys"),
      initiator: "system:test",
      created_by: "system:test",
      kind: "withdrawal",
      entries: transferEntries(m.checking.id, adjustments.id, 100),
    });
    const id = (system as { transaction: { id: number } }).transaction.id;
    // Not a staff hold: the Holds box does not release it (the row's Release does, with its own checks).
    expect(
      await releaseStaffHold(db(), { ...staffRequest(m.member.id), transaction_id: id, reason: "x" }),
    ).toMatchObject({ ok: false, kind: "not_found" });
  });
});

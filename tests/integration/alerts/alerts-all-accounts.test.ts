import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, isNull } from "drizzle-orm";
import "../member-support";
import { openTestDatabase } from "../test-database";
import { deposit } from "../ledger-fixtures";
import { fundedMember } from "../../factories";
import type { Database } from "~/server/db/client.server";
import { auditLog, ledgerAccounts, memberAlerts, notifications, outbox } from "~/server/db/schema";
import { openAccount } from "~/server/ledger/accounts.server";
import { ALL_ACCOUNTS_LABEL, addAlert, editAlertAmount, loadAlerts, removeAlert } from "~/server/alerts/alerts.server";
import { ALERT_MESSAGES, addAlertSchema } from "~/domain/alerts";

/**
 * An alert "for all my accounts" (docs/product.md#alerts): it watches every open account of the
 * member's and any opened later (the account gets it in the transaction that opens it), is listed
 * once, changes and goes as one, does not count once per account, and cannot sit beside the same
 * alert on one account. Another member's accounts are never watched.
 */
let database: Database;
const db = () => database.db;
const ORIGIN = { request_id: "all-accounts", ip: "127.0.0.1" };

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

type Member = Awaited<ReturnType<typeof fundedMember>>;

async function flags(account_ids: number[]) {
  const rows = await db().select({ id: ledgerAccounts.id, on: ledgerAccounts.alerts_on }).from(ledgerAccounts);
  return account_ids.map((id) => rows.find((r) => r.id === id)!.on);
}

async function liveRows(m: Member) {
  return db()
    .select()
    .from(memberAlerts)
    .where(and(eq(memberAlerts.member_id, m.member.id), isNull(memberAlerts.removed_at)));
}

async function deposits(m: Member) {
  const bell = await db()
    .select({ title: notifications.title, body: notifications.body })
    .from(notifications)
    .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "account_alert")));
  const mail = await db()
    .select({ subject: outbox.subject })
    .from(outbox)
    .where(and(eq(outbox.user_id, m.member.id), eq(outbox.kind, "account_alert")));
  return { bell, mail };
}

describe("an alert for all my accounts", () => {
  it("the form takes “all” or an account's id", () => {
    expect(addAlertSchema.parse({ account_id: "all", kind: "deposit_posted", amount: "" })).toEqual({
      account_id: "all",
      kind: "deposit_posted",
      amount_cents: null,
    });
    expect(addAlertSchema.parse({ account_id: "12", kind: "balance_below", amount: "5" })).toMatchObject({
      account_id: 12,
      amount_cents: 500,
    });
    expect(addAlertSchema.safeParse({ account_id: "everything", kind: "deposit_posted" }).success).toBe(false);
  });

  it("watches every open account and one opened later, told in the posting as any alert", async () => {
    const m = await fundedMember(db(), { checking_cents: 100_00, savings_cents: 10_00 });
    const other = await fundedMember(db(), { checking_cents: 100_00 });
    const added = await addAlert(
      db(),
      m.member,
      { account_id: "all", kind: "deposit_posted", amount_cents: null },
      ORIGIN,
    );
    expect(added).toMatchObject({ ok: true, alert: { kind: "deposit_posted" } });
    expect(await flags([m.checking.id, m.savings.id, other.checking.id])).toEqual([true, true, false]);
    const page = await loadAlerts(db(), m.member.id);
    expect(page.alerts).toEqual([
      {
        id: added.ok ? added.alert.id : 0,
        account_id: null,
        account_label: ALL_ACCOUNTS_LABEL,
        kind: "deposit_posted",
        amount_cents: null,
      },
    ]);

    // An account opened later: watched from its first posting, without anyone adding it.
    const later = await openAccount(db(), { member_id: m.member.id, type: "savings", name: "Vacation" });
    expect(await flags([later.id])).toEqual([true]);
    // Another member's new account is not.
    const theirs = await openAccount(db(), { member_id: other.member.id, type: "savings", name: "Theirs" });
    expect(await flags([theirs.id])).toEqual([false]);
    await deposit(db(), later.id, 42_00);
    const told = await deposits(m);
    expect(told.bell).toHaveLength(1);
    expect(told.bell[0]!.title).toContain("$42.00");
    expect(told.mail).toHaveLength(1);
    expect((await deposits(other)).bell).toEqual([]);
    // Still listed once.
    expect((await loadAlerts(db(), m.member.id)).alerts).toHaveLength(1);
  });

  it("changes its amount on every account at once and is removed as one; rows on accounts are not changed alone", async () => {
    const m = await fundedMember(db(), { checking_cents: 100_00, savings_cents: 10_00 });
    const added = await addAlert(
      db(),
      m.member,
      { account_id: "all", kind: "balance_below", amount_cents: 50_00 },
      ORIGIN,
    );
    if (!added.ok) throw new Error(added.message);
    const rows = await liveRows(m);
    expect(rows).toHaveLength(3);
    const one = rows.find((r) => r.account_id === m.checking.id)!;
    expect(await editAlertAmount(db(), m.member, { alert_id: one.id, amount_cents: 1 }, ORIGIN)).toMatchObject({
      ok: false,
      reason: "not_found",
    });
    expect(await removeAlert(db(), m.member, one.id, ORIGIN)).toMatchObject({ ok: false, reason: "not_found" });
    expect(
      await editAlertAmount(db(), m.member, { alert_id: added.alert.id, amount_cents: 75_00 }, ORIGIN),
    ).toMatchObject({ ok: true });
    expect((await liveRows(m)).map((r) => r.amount_cents)).toEqual([75_00, 75_00, 75_00]);
    expect(await removeAlert(db(), m.member, added.alert.id, ORIGIN)).toMatchObject({ ok: true });
    expect(await liveRows(m)).toEqual([]);
    expect(await flags([m.checking.id, m.savings.id])).toEqual([false, false]);
    // After it is gone, a new account gets nothing.
    const later = await openAccount(db(), { member_id: m.member.id, type: "checking", name: "Second" });
    expect(await flags([later.id])).toEqual([false]);
    const audit = await db().select().from(auditLog).where(eq(auditLog.member_id, m.member.id));
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(["alerts.added", "alerts.changed", "alerts.removed"]),
    );
    expect(audit.find((a) => a.action === "alerts.added")!.after).toMatchObject({ account_id: "all" });
  });

  it("cannot sit beside the same alert on one account, either way round; other members' alerts do not count", async () => {
    const m = await fundedMember(db(), { checking_cents: 100_00, savings_cents: 10_00 });
    const single = await addAlert(
      db(),
      m.member,
      { account_id: m.checking.id, kind: "payment_sent", amount_cents: null },
      ORIGIN,
    );
    expect(single.ok).toBe(true);
    expect(
      await addAlert(db(), m.member, { account_id: "all", kind: "payment_sent", amount_cents: null }, ORIGIN),
    ).toMatchObject({ ok: false, reason: "conflict", message: ALERT_MESSAGES.single_first });
    const all = await addAlert(
      db(),
      m.member,
      { account_id: "all", kind: "card_declined", amount_cents: null },
      ORIGIN,
    );
    expect(all.ok).toBe(true);
    expect(
      await addAlert(db(), m.member, { account_id: m.savings.id, kind: "card_declined", amount_cents: null }, ORIGIN),
    ).toMatchObject({ ok: false, reason: "conflict", message: ALERT_MESSAGES.already_all });
    expect(
      await addAlert(db(), m.member, { account_id: "all", kind: "card_declined", amount_cents: null }, ORIGIN),
    ).toMatchObject({ ok: false, reason: "conflict", message: ALERT_MESSAGES.already_all });
    // The member's choices: the single one and the one for all accounts.
    expect((await loadAlerts(db(), m.member.id)).alerts.map((a) => a.kind)).toEqual(["card_declined", "payment_sent"]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import "../member-support";
import { openTestDatabase } from "../test-database";
import { STAFF, accepted, deposit, newKey } from "../ledger-fixtures";
import { fundedMember } from "../../factories";
import type { Database } from "~/server/db/client.server";
import { ledgerAccounts, memberAlerts, notifications, outbox } from "~/server/db/schema";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { placeHold, postBatch, postTransfer, reverseTransaction, settleHold } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";
import { addAlert, editAlertAmount, loadAlerts, removeAlert } from "~/server/alerts/alerts.server";
import { issueDebitCard } from "~/server/cards/cards.server";
import { authorizeCardPurchase } from "~/server/cards/authorization.server";
import type { AccountAlertKind } from "~/domain/alerts";

/**
 * Alerts a member chooses (docs/product.md#alerts): each kind is written once, in the posting's own
 * transaction (a bell notification and an outbox email), never for a repeat of the posting's key
 * or a posting that rolls back, and not when the posting stays on the right side of the amount.
 */

let database: Database;
const db = () => database.db;
const ORIGIN = { request_id: "test", ip: "127.0.0.1" };

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

type Member = Awaited<ReturnType<typeof fundedMember>>;

async function memberWith(checking_cents = 500_00, savings_cents = 0): Promise<Member> {
  return fundedMember(db(), { checking_cents, savings_cents });
}

async function alertOn(m: Member, account_id: number, kind: AccountAlertKind, amount_cents: number | null = null) {
  const answer = await addAlert(db(), m.member, { account_id, kind, amount_cents }, ORIGIN);
  if (!answer.ok) throw new Error(`alert refused: ${answer.message}`);
  return answer.alert.id;
}

/** The member's alert notifications and alert emails, oldest first. */
async function told(m: Member) {
  const bell = await db()
    .select({ title: notifications.title, body: notifications.body })
    .from(notifications)
    .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "account_alert")))
    .orderBy(notifications.id);
  const mail = await db()
    .select({ to: outbox.to_email, subject: outbox.subject, text: outbox.text_body })
    .from(outbox)
    .where(and(eq(outbox.user_id, m.member.id), eq(outbox.kind, "account_alert")))
    .orderBy(outbox.id);
  return { bell, mail, titles: bell.map((n) => n.title) };
}

function move(from: number, to: number, amount_cents: number, kind: "transfer" | "member_transfer" = "transfer") {
  return postTransfer(db(), {
    idempotency_key: newKey("move"),
    initiator: "member:test",
    created_by: "member:test",
    kind,
    entries: transferEntries(from, to, amount_cents),
  });
}

describe("managing alerts", () => {
  it("adds, edits and removes an alert on the member's own account, keeping alerts_on in step", async () => {
    const m = await memberWith();
    const flag = async () =>
      (
        await db()
          .select({ on: ledgerAccounts.alerts_on })
          .from(ledgerAccounts)
          .where(eq(ledgerAccounts.id, m.checking.id))
      )[0]!.on;
    expect(await flag()).toBe(false);
    const id = await alertOn(m, m.checking.id, "balance_below", 100_00);
    expect(await flag()).toBe(true);
    const edited = await editAlertAmount(db(), m.member, { alert_id: id, amount_cents: 250_00 }, ORIGIN);
    expect(edited.ok).toBe(true);
    const page = await loadAlerts(db(), m.member.id);
    expect(page.alerts).toMatchObject([{ id, kind: "balance_below", amount_cents: 250_00, account_id: m.checking.id }]);
    expect(page.accounts.map((a) => a.id)).toEqual([m.checking.id, m.savings.id]);
    expect(page.new_device_sign_in).toBe(true);
    expect((await removeAlert(db(), m.member, id, ORIGIN)).ok).toBe(true);
    expect(await flag()).toBe(false);
    expect((await loadAlerts(db(), m.member.id)).alerts).toEqual([]);
    // Nothing is deleted: the removed alert stays, marked.
    const [row] = await db().select().from(memberAlerts).where(eq(memberAlerts.id, id));
    expect(row!.removed_at).not.toBeNull();
  });

  it("refuses another member's account and alert, and a second alert of a kind on an account, changing nothing", async () => {
    const m = await memberWith();
    const other = await memberWith();
    const theirs = await alertOn(other, other.checking.id, "deposit_posted");
    const foreign = await addAlert(
      db(),
      m.member,
      { account_id: other.checking.id, kind: "deposit_posted", amount_cents: null },
      ORIGIN,
    );
    expect(foreign).toMatchObject({ ok: false, reason: "not_found", field: "account_id" });
    expect(await editAlertAmount(db(), m.member, { alert_id: theirs, amount_cents: 5_00 }, ORIGIN)).toMatchObject({
      ok: false,
      reason: "not_found",
    });
    expect(await removeAlert(db(), m.member, theirs, ORIGIN)).toMatchObject({ ok: false, reason: "not_found" });
    expect((await loadAlerts(db(), other.member.id)).alerts).toHaveLength(1);
    await alertOn(m, m.checking.id, "deposit_posted");
    const twice = await addAlert(
      db(),
      m.member,
      { account_id: m.checking.id, kind: "deposit_posted", amount_cents: null },
      ORIGIN,
    );
    expect(twice).toMatchObject({ ok: false, reason: "conflict" });
    expect((await loadAlerts(db(), m.member.id)).alerts).toHaveLength(1);
    // Only a threshold alert has an amount to change.
    const deposit_alert = (await loadAlerts(db(), m.member.id)).alerts[0]!.id;
    expect(
      await editAlertAmount(db(), m.member, { alert_id: deposit_alert, amount_cents: 5_00 }, ORIGIN),
    ).toMatchObject({ ok: false });
  });
});

describe("alerts met by postings", () => {
  it("balance below: told once when the available balance crosses the amount, not again while below, again after rising above", async () => {
    const m = await memberWith(500_00);
    await alertOn(m, m.checking.id, "balance_below", 100_00);
    await accepted(move(m.checking.id, m.savings.id, 350_00)); // 150.00 left: still above
    expect((await told(m)).bell).toHaveLength(0);
    await accepted(move(m.checking.id, m.savings.id, 60_00)); // 90.00: crosses
    let t = await told(m);
    expect(t.titles).toEqual(["Checking •••• " + m.checking.account_number.slice(-4) + " is below $100.00"]);
    expect(t.bell[0]!.body).toContain("$90.00");
    expect(t.mail).toHaveLength(1);
    expect(t.mail[0]!.to).toBe(m.member.email);
    expect(t.mail[0]!.text).toContain("choose Alerts in the account menu");
    await accepted(move(m.checking.id, m.savings.id, 10_00)); // 80.00: still below, told already
    expect((await told(m)).bell).toHaveLength(1);
    await accepted(move(m.savings.id, m.checking.id, 100_00)); // 180.00: above again
    await accepted(move(m.checking.id, m.savings.id, 100_00)); // 80.00: crosses again
    t = await told(m);
    expect(t.bell).toHaveLength(2);
    expect(t.mail).toHaveLength(2);
  });

  it("a hold lowers the available balance and crosses too", async () => {
    const m = await memberWith(200_00);
    await alertOn(m, m.checking.id, "balance_below", 100_00);
    const settlement = await institutionAccount(db(), "ach_settlement");
    await accepted(
      placeHold(db(), {
        ...STAFF,
        idempotency_key: newKey("hold"),
        kind: "ach_out",
        entries: transferEntries(m.checking.id, settlement.id, 150_00),
      }),
    );
    expect((await told(m)).titles).toHaveLength(1);
  });

  it("transaction above: only a transaction of more than the amount, either way", async () => {
    const m = await memberWith(1_000_00);
    await alertOn(m, m.checking.id, "transaction_above", 100_00);
    await accepted(move(m.checking.id, m.savings.id, 100_00)); // exactly the amount: not above
    expect((await told(m)).bell).toHaveLength(0);
    await accepted(move(m.checking.id, m.savings.id, 100_01));
    await accepted(move(m.savings.id, m.checking.id, 150_00)); // money in counts too
    const t = await told(m);
    expect(t.titles).toEqual([
      expect.stringMatching(/^Withdrawal of \$100\.01 on Checking/),
      expect.stringMatching(/^Deposit of \$150\.00 on Checking/),
    ]);
  });

  it("deposit posted: money from outside, posted at once or a held deposit accepted; not a transfer between own accounts", async () => {
    const m = await memberWith(100_00, 100_00);
    await alertOn(m, m.checking.id, "deposit_posted");
    await accepted(move(m.savings.id, m.checking.id, 10_00));
    expect((await told(m)).bell).toHaveLength(0);
    await deposit(db(), m.checking.id, 25_00);
    expect((await told(m)).titles).toEqual([expect.stringMatching(/^Deposit of \$25\.00 posted to Checking/)]);
    const transit = await institutionAccount(db(), "deposits_in_transit");
    const held = await accepted(
      placeHold(db(), {
        ...STAFF,
        idempotency_key: newKey("check"),
        kind: "mobile_deposit",
        entries: transferEntries(transit.id, m.checking.id, 40_00),
      }),
    );
    expect((await told(m)).bell).toHaveLength(1); // pending: not posted yet
    await accepted(
      settleHold(db(), {
        transaction_id: held.transaction.id,
        idempotency_key: newKey("settle"),
        resolved_by: "staff:test",
      }),
    );
    expect((await told(m)).titles).toHaveLength(2);
    expect((await told(m)).titles[1]).toMatch(/^Deposit of \$40\.00 posted/);
  });

  it("deposit posted: each credit of an ACH batch", async () => {
    const m = await memberWith(0);
    await alertOn(m, m.checking.id, "deposit_posted");
    const settlement = await institutionAccount(db(), "ach_settlement");
    await accepted(
      postBatch(db(), {
        ...STAFF,
        idempotency_key: newKey("ach"),
        transactions: [
          { kind: "ach_in", entries: transferEntries(settlement.id, m.checking.id, 1_200_00) },
          { kind: "ach_in", entries: transferEntries(settlement.id, m.checking.id, 30_00) },
        ],
      }),
    );
    expect((await told(m)).titles).toEqual([
      expect.stringMatching(/^Deposit of \$1,200\.00/),
      expect.stringMatching(/^Deposit of \$30\.00/),
    ]);
  });

  it("payment sent and payment returned", async () => {
    const m = await memberWith(500_00);
    await alertOn(m, m.checking.id, "payment_sent");
    await alertOn(m, m.checking.id, "payment_returned");
    await accepted(move(m.checking.id, m.savings.id, 10_00)); // between own accounts: no payment
    expect((await told(m)).bell).toHaveLength(0);
    const settlement = await institutionAccount(db(), "ach_settlement");
    const sent = await accepted(
      postTransfer(db(), {
        ...STAFF,
        idempotency_key: newKey("ach-out"),
        kind: "ach_out",
        entries: transferEntries(m.checking.id, settlement.id, 75_00),
      }),
    );
    expect((await told(m)).titles).toEqual([expect.stringMatching(/^Payment of \$75\.00 sent from Checking/)]);
    await accepted(
      reverseTransaction(db(), {
        ...STAFF,
        transaction_id: sent.transaction.id,
        idempotency_key: newKey("return"),
        memo: "Returned by the other bank",
      }),
    );
    const t = await told(m);
    expect(t.titles).toHaveLength(2);
    expect(t.titles[1]).toMatch(/^Payment of \$75\.00 returned to Checking/);
  });

  it("a repeat of the posting's key writes no second alert", async () => {
    const m = await memberWith(500_00);
    await alertOn(m, m.checking.id, "transaction_above", 1_00);
    const input = {
      idempotency_key: newKey("same"),
      initiator: "member:test",
      created_by: "member:test",
      kind: "transfer" as const,
      entries: transferEntries(m.checking.id, m.savings.id, 5_00),
    };
    await accepted(postTransfer(db(), input));
    const again = await accepted(postTransfer(db(), input));
    expect(again.replayed).toBe(true);
    expect((await told(m)).bell).toHaveLength(1);
    expect((await told(m)).mail).toHaveLength(1);
  });

  it("a posting that rolls back writes no alert", async () => {
    const m = await memberWith(500_00);
    await alertOn(m, m.checking.id, "transaction_above", 1_00);
    await expect(
      db().transaction(async (tx) => {
        await accepted(
          postTransfer(tx, {
            idempotency_key: newKey("rolled-back"),
            initiator: "member:test",
            created_by: "member:test",
            kind: "transfer",
            entries: transferEntries(m.checking.id, m.savings.id, 5_00),
          }),
        );
        // Written inside: visible to the transaction itself.
        const [inside] = (
          await tx.execute(
            sql`select count(*)::int as n from notifications where member_id = ${m.member.id} and kind = 'account_alert'`,
          )
        ).rows;
        expect(Number(inside!.n)).toBe(1);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await told(m)).toMatchObject({ bell: [], mail: [] });
  });

  it("an account without alerts, or whose alerts were removed, is told nothing", async () => {
    const m = await memberWith(500_00);
    const id = await alertOn(m, m.savings.id, "deposit_posted");
    await deposit(db(), m.checking.id, 10_00); // the alert watches savings, not checking
    await removeAlert(db(), m.member, id, ORIGIN);
    await deposit(db(), m.savings.id, 10_00);
    expect(await told(m)).toMatchObject({ bell: [], mail: [] });
  });
});

describe("the cost of alerts to a posting (PostgreSQL, where round trips are counted)", () => {
  /** Round trips of `work`, counted on node-postgres (each is one call of the client's `query`), after a first call. */
  async function roundTrips(work: () => Promise<unknown>): Promise<number> {
    await work(); // a first call prepares the statements
    let n = 0;
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      n++;
      return (query as (...x: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      await work();
    } finally {
      pg.Client.prototype.query = query;
    }
    return n;
  }

  it.runIf(process.env.TEST_DATABASE_URL)(
    "no statement more for accounts without alerts; one to read them; one more to tell a met alert",
    async () => {
      const m = await memberWith(1_000_00);
      const without = await roundTrips(() => move(m.checking.id, m.savings.id, 1));
      expect(without).toBe(3); // BEGIN with the locks, the write, COMMIT: the ledger alone
      await alertOn(m, m.checking.id, "transaction_above", 500_00);
      expect(await roundTrips(() => move(m.checking.id, m.savings.id, 1))).toBe(without + 1);
      await alertOn(m, m.checking.id, "payment_sent");
      expect(await roundTrips(() => move(m.checking.id, m.savings.id, 600_00 / 4, "member_transfer"))).toBe(
        without + 2,
      );
    },
  );
});

describe("card purchase declined", () => {
  it("a declined purchase is on the bell for everyone, and by email to the member who chose the alert on the card's account", async () => {
    const m = await memberWith(20_00);
    const card = await issueDebitCard(db(), { member_id: m.member.id, account_id: m.checking.id });
    const purchase = (amount_cents: number) =>
      authorizeCardPurchase(db(), {
        card_id: card.id,
        merchant: "Corner Store",
        amount_cents,
        category: "Shopping",
        idempotency_key: crypto.randomUUID(),
        initiator: "staff:test",
        created_by: "staff:test",
      });
    expect((await purchase(50_00)).ok).toBe(false); // more than the $20.00 there
    expect((await told(m)).mail).toHaveLength(0);
    await alertOn(m, m.checking.id, "card_declined");
    expect((await purchase(12_34)).ok).toBe(true); // an accepted purchase tells nothing
    expect((await purchase(60_00)).ok).toBe(false);
    const t = await told(m);
    expect(t.mail).toHaveLength(1);
    expect(t.mail[0]!.subject).toBe("Card purchase of $60.00 declined");
    expect(t.mail[0]!.text).toContain("Corner Store");
    const declines = await db()
      .select({ title: notifications.title })
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "card_activity")));
    expect(declines.map((n) => n.title)).toEqual([
      "Card purchase declined: $50.00 at Corner Store",
      "Card purchase declined: $60.00 at Corner Store",
    ]);
  });
});

import "../member-support";
import { beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { externalPayments, linkedAccounts, notifications, scheduledTransfers } from "~/server/db/schema";
import { linkAccount } from "~/server/linked-accounts/linked-accounts.server";
import { decryptField } from "~/server/security/crypto.server";
import { achAccountNumberContext, scheduleTransfer, slotKey } from "~/server/payments/scheduled-transfers.server";
import {
  cancelScheduledTransfer,
  editScheduledTransfer,
  listScheduledTransfers,
  skipNextTransfer,
} from "~/server/payments/scheduled-transfer-changes.server";
import { runDueScheduledTransfers } from "~/server/payments/scheduled-transfers-job.server";
import { institution } from "~/config/institution.server";
import { addDays, seriesPaymentDate } from "~/domain/schedule";
import { toUsBankSchema } from "~/domain/transfers";
import { openNumber } from "~/server/payments/payment-destination.server";
import { linkAccountSchema } from "~/domain/linked-accounts";
import type { SessionUser } from "~/server/auth/session.server";
import { key, lastTransferCode } from "../member-support";
import { first_day, on, postTransferForm, scheduledTransfersFile, today, when } from "./scheduled-support";

/**
 * Scheduled and recurring To US Bank transfers (docs/product.md#scheduled-transfers) on PGlite and
 * PostgreSQL: set-up with the code bound to the schedule, the account number sealed in the
 * series, each slot sent once (two job runners racing) under its own key through the same service
 * as a payment sent now (a queued ACH payment and its hold), a failure told and the series going
 * on or stopping, a removed linked account not paid, skip/edit/cancel and another member's series.
 */
const ORIGIN = { request_id: "scheduled-us-bank-0001", ip: "203.0.113.19" };
const ACCOUNT_NUMBER = "5550001234567";
const file = scheduledTransfersFile();
const { available, member, series, runs, raceForSlot, expectNotFoundFor, failureNotices } = file;
let db: Db;
beforeAll(() => {
  db = file.db;
});

function ach(m: Awaited<ReturnType<typeof member>>, amount: string, reference = "Rent") {
  return toUsBankSchema.parse({
    from_account_id: String(m.checking.id),
    routing_number: "121000248",
    account_number: ACCOUNT_NUMBER,
    account_type: "checking",
    account_name: "Casey Landlord",
    amount,
    reference,
    idempotency_key: key(),
  });
}

async function paymentsOf(member_id: string) {
  return db.select().from(externalPayments).where(eq(externalPayments.member_id, member_id));
}

function post(user: SessionUser, fields: Record<string, string>) {
  return postTransferForm(user, fields, ORIGIN);
}

describe("setting up a To US Bank transfer for later", () => {
  it("asks for the code bound to the schedule, seals the account number, and holds nothing", async () => {
    const m = await member();
    const fields = {
      from_account_id: String(m.checking.id),
      payee: "new",
      bank: "other",
      routing_number: "121000248",
      account_number: ACCOUNT_NUMBER,
      account_type: "checking",
      account_name: "Casey Landlord",
      amount: "400.00",
      reference: "Rent",
      idempotency_key: key(),
      when: "repeat",
      transfer_date: first_day,
      frequency: "monthly",
      ends: "count",
      payment_count: "3",
      on_failure: "continue",
    };
    const review = await post(m.user, { intent: "ach-review", ...fields });
    expect(review).toMatchObject({ status: "otp", summary: expect.stringContaining("Monthly, 3 transfers") });
    const code = await lastTransferCode(db, m.member.email);
    // The code confirms this schedule only: another count is refused and nothing is set up.
    expect(await post(m.user, { intent: "ach-send", ...fields, payment_count: "12", otp: code })).toMatchObject({
      status: "refused",
      code: "otp_invalid",
      step: "otp",
    });
    expect(await post(m.user, { intent: "ach-send", ...fields, otp: "" })).toMatchObject({
      status: "refused",
      code: "otp_missing",
    });
    expect(await db.select().from(scheduledTransfers).where(eq(scheduledTransfers.member_id, m.member.id))).toEqual([]);
    await post(m.user, { intent: "ach-review", ...fields });
    const fresh = await lastTransferCode(db, m.member.email);
    expect(await post(m.user, { intent: "ach-send", ...fields, otp: fresh })).toMatchObject({
      status: "scheduled",
      tab: "ach",
      amount_cents: 40_000,
      message: expect.stringContaining("Monthly, 3 transfers, from"),
    });
    const [row] = await db.select().from(scheduledTransfers).where(eq(scheduledTransfers.member_id, m.member.id));
    expect(row).toMatchObject({ kind: "ach", ach_routing_number: "121000248", ach_account_last4: "4567" });
    expect(JSON.stringify(row)).not.toContain(ACCOUNT_NUMBER);
    expect(decryptField(row!.ach_account_number_enc!, achAccountNumberContext(m.member.id))).toBe(ACCOUNT_NUMBER);
    expect(await available(m.checking.id)).toBe(100_000);
    expect(await paymentsOf(m.member.id)).toEqual([]);
    const [view] = await listScheduledTransfers(db, m.member.id);
    expect(view).toMatchObject({ kind: "ach", remaining: 3, to_label: "Casey Landlord at Wells Fargo Bank ••4567" });
    expect(JSON.stringify(view)).not.toContain(ACCOUNT_NUMBER);
  });

  it("refuses an amount over the per-transfer limit and another member's account; nothing is set up", async () => {
    const m = await member();
    const other = await member();
    expect(
      await scheduleTransfer(db, m.who, { kind: "ach", form: ach(m, "999999.00") }, when({ when: "date" }), ORIGIN),
    ).toMatchObject({ ok: false, code: "over_transfer_max" });
    expect(
      await scheduleTransfer(db, m.who, { kind: "ach", form: ach(other, "5.00") }, when({ when: "date" }), ORIGIN),
    ).toMatchObject({ ok: false, code: "not_your_account" });
    expect(await db.select().from(scheduledTransfers).where(eq(scheduledTransfers.member_id, m.member.id))).toEqual([]);
  });
});

describe("the job sends each slot as a payment sent now", () => {
  it("queues an ACH payment with its hold under each slot's key, once per slot, and ends after its count", async () => {
    const m = await member();
    const rule = when({ when: "repeat", frequency: "monthly", ends: "count", payment_count: "2" });
    const set = await scheduleTransfer(db, m.who, { kind: "ach", form: ach(m, "30.00") }, rule, ORIGIN);
    if (!set.ok) throw new Error(set.message);
    await runDueScheduledTransfers(db, on(today));
    expect(await paymentsOf(m.member.id)).toEqual([]);
    await runDueScheduledTransfers(db, on(first_day));
    await runDueScheduledTransfers(db, on(first_day));
    const first = await paymentsOf(m.member.id);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      kind: "ach",
      status: "pending",
      amount_cents: 3000,
      idempotency_key: slotKey(set.series_id, 1),
    });
    expect(first[0]!.details).toMatchObject({
      account_last4: ACCOUNT_NUMBER.slice(-4),
      account_name: "Casey Landlord",
    });
    expect(openNumber(first[0]!, "account_number")).toBe(ACCOUNT_NUMBER);
    expect(await available(m.checking.id)).toBe(100_000 - 3000);
    const second = seriesPaymentDate(rule.rule!, 2);
    await runDueScheduledTransfers(db, on(second));
    expect(await paymentsOf(m.member.id)).toHaveLength(2);
    expect((await runs(set.series_id)).map((r) => r.status)).toEqual(["sent", "sent"]);
    expect((await series(set.series_id)).status).toBe("ended");
    const pending = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "payment_pending")));
    expect(pending).toHaveLength(2);
  });

  it("two job runners racing for one slot send it once", async () => {
    const m = await member();
    const set = await scheduleTransfer(
      db,
      m.who,
      { kind: "ach", form: ach(m, "17.00") },
      when({ when: "date" }),
      ORIGIN,
    );
    if (!set.ok) throw new Error(set.message);
    await raceForSlot(first_day);
    expect(await paymentsOf(m.member.id)).toHaveLength(1);
    expect(await available(m.checking.id)).toBe(100_000 - 1700);
    expect((await runs(set.series_id)).map((r) => r.status)).toEqual(["sent"]);
  });

  it("a failure is told by bell and email; the series goes on or stops as chosen", async () => {
    const m = await member(1_000);
    const repeat = (on_failure: string) =>
      when({ when: "repeat", frequency: "weeks", every_weeks: "1", ends: "count", payment_count: "3", on_failure });
    const goes_on = await scheduleTransfer(
      db,
      m.who,
      { kind: "ach", form: ach(m, "50.00", "Goes on") },
      repeat("continue"),
      ORIGIN,
    );
    const stops = await scheduleTransfer(
      db,
      m.who,
      { kind: "ach", form: ach(m, "60.00", "Stops") },
      repeat("stop"),
      ORIGIN,
    );
    if (!goes_on.ok || !stops.ok) throw new Error("set-up refused");
    await runDueScheduledTransfers(db, on(first_day));
    expect((await runs(goes_on.series_id))[0]).toMatchObject({
      status: "failed",
      failure_reason: "Insufficient funds on the transfer date",
    });
    expect((await series(goes_on.series_id)).status).toBe("active");
    expect((await series(stops.series_id)).status).toBe("stopped");
    expect(await paymentsOf(m.member.id)).toEqual([]);
    const { bell, mail } = await failureNotices(m.member.id);
    expect(bell).toHaveLength(2);
    expect(mail).toHaveLength(2);
    expect(JSON.stringify([bell, mail])).not.toContain(ACCOUNT_NUMBER);
  });

  it("to a linked account: sent while the link is verified, not sent once it is removed", async () => {
    const m = await member();
    const link = await linkAccount(
      db,
      m.member,
      linkAccountSchema.parse({
        routing_number: "121000248",
        account_number: ACCOUNT_NUMBER,
        account_type: "savings",
        nickname: "Other bank",
      }),
      ORIGIN,
    );
    await db.update(linkedAccounts).set({ status: "verified" }).where(eq(linkedAccounts.id, link.id));
    const fields = {
      from_account_id: String(m.checking.id),
      payee: String(link.id),
      amount: "11.00",
      reference: "Weekly saving",
      idempotency_key: key(),
      when: "repeat",
      transfer_date: first_day,
      frequency: "weeks",
      every_weeks: "1",
      ends: "count",
      payment_count: "2",
      on_failure: "continue",
    };
    await post(m.user, { intent: "ach-review", ...fields });
    const code = await lastTransferCode(db, m.member.email);
    expect(await post(m.user, { intent: "ach-send", ...fields, otp: code })).toMatchObject({ status: "scheduled" });
    const [row] = await db.select().from(scheduledTransfers).where(eq(scheduledTransfers.member_id, m.member.id));
    expect(row).toMatchObject({
      linked_account_id: link.id,
      ach_account_type: "savings",
      ach_account_name: m.member.name,
    });
    await runDueScheduledTransfers(db, on(first_day));
    const [payment] = await paymentsOf(m.member.id);
    expect(payment!.details).toMatchObject({ linked_account_id: String(link.id) });
    expect(openNumber(payment!, "account_number")).toBe(ACCOUNT_NUMBER);
    await db.update(linkedAccounts).set({ status: "removed" }).where(eq(linkedAccounts.id, link.id));
    await runDueScheduledTransfers(db, on((await series(row!.id)).next_date!));
    const done = await runs(row!.id);
    expect(done.map((r) => r.status).sort()).toEqual(["failed", "sent"]);
    expect(done.find((r) => r.status === "failed")!.failure_reason).toBe("The linked account is no longer verified");
    expect(await paymentsOf(m.member.id)).toHaveLength(1);
  });
});

describe("skip, edit, cancel", () => {
  it("works on the member's own To US Bank series; another member's is not found; an edit over the limit is refused", async () => {
    const m = await member();
    const other = await member();
    const set = await scheduleTransfer(
      db,
      m.who,
      { kind: "ach", form: ach(m, "20.00") },
      when({ when: "repeat", frequency: "weeks", every_weeks: "2", ends: "count", payment_count: "4" }),
      ORIGIN,
    );
    if (!set.ok) throw new Error(set.message);
    await expectNotFoundFor(other.who, set.series_id, ORIGIN);
    expect(await skipNextTransfer(db, m.who, set.series_id, ORIGIN)).toMatchObject({ ok: true });
    const next = (await series(set.series_id)).next_date!;
    expect(
      await editScheduledTransfer(
        db,
        m.who,
        {
          series_id: set.series_id,
          amount_cents: institution().limits.external_transfer_max_cents + 1,
          next_date: next,
        },
        ORIGIN,
      ),
    ).toMatchObject({ ok: false, field: "amount" });
    expect(
      await editScheduledTransfer(db, m.who, { series_id: set.series_id, amount_cents: 2500, next_date: next }, ORIGIN),
    ).toMatchObject({ ok: true });
    expect(await cancelScheduledTransfer(db, m.who, set.series_id, ORIGIN)).toMatchObject({ ok: true });
    await runDueScheduledTransfers(db, on(addDays(next, 60)));
    expect(await paymentsOf(m.member.id)).toEqual([]);
    expect((await runs(set.series_id)).map((r) => r.status)).toEqual(["skipped"]);
  });
});

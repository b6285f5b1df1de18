import "../member-support";
import { beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import {
  auditLog,
  ledgerTransactions,
  notifications,
  scheduledTransferRuns,
  scheduledTransfers,
} from "~/server/db/schema";
import { setAccountStatus } from "~/server/ledger/accounts.server";
import { scheduleTransfer, slotKey } from "~/server/payments/scheduled-transfers.server";
import {
  cancelScheduledTransfer,
  editScheduledTransfer,
  listScheduledTransfers,
  skipNextTransfer,
} from "~/server/payments/scheduled-transfer-changes.server";
import { runDueScheduledTransfers } from "~/server/payments/scheduled-transfers-job.server";
import { businessDayOnOrAfter } from "~/domain/payment-dates";
import { addDays, seriesPaymentDate } from "~/domain/schedule";
import { whenSchema } from "~/domain/scheduled-transfers";
import { transferBetweenAccounts } from "~/server/payments/between-accounts.server";
import { betweenAccountsSchema, toMemberSchema } from "~/domain/transfers";
import { REFUSAL_MESSAGES } from "~/domain/refusals";
import { institution } from "~/config/institution.server";
import { key, lastTransferCode } from "../member-support";
import { expectLedgerVerifies } from "../ledger-fixtures";
import { first_day, on, postTransferForm, scheduledTransfersFile, today, when } from "./scheduled-support";

/**
 * Scheduled and recurring transfers (docs/product.md#scheduled-transfers) on PGlite and
 * PostgreSQL: set-up and its refusals, runs by the job's clock (sent, failed, the series going on
 * or stopping as chosen), skip, edit, cancel, another member's series refused, and two job runners
 * racing for one slot sending it once.
 */
const ORIGIN = { request_id: "scheduled-transfers-0001", ip: "203.0.113.9" };
const file = scheduledTransfersFile();
const { available, member, series, runs, raceForSlot, expectNotFoundFor, failureNotices } = file;
let db: Db;
beforeAll(() => {
  db = file.db;
});

function internal(m: Awaited<ReturnType<typeof member>>, amount: string, reference = "Savings") {
  return betweenAccountsSchema.parse({
    from_account_id: String(m.checking.id),
    to_account_id: String(m.savings.id),
    amount,
    reference,
    idempotency_key: key(),
  });
}

describe("when fields", () => {
  it("send now without a When, and refuse a repeat without an end", () => {
    expect(whenSchema(today).parse({})).toBeNull();
    const r = whenSchema(today).safeParse({ when: "repeat", transfer_date: first_day, frequency: "monthly" });
    expect(r.success).toBe(false);
    const t = whenSchema(today).safeParse({ when: "date", transfer_date: today });
    expect(t.success).toBe(false);
  });
});

describe("set-up", () => {
  it("schedules a Between Accounts transfer, holds nothing, and a repeat of the key sets up nothing more", async () => {
    const m = await member();
    const form = internal(m, "25.00");
    const before = await available(m.checking.id);
    const done = await scheduleTransfer(db, m.who, { kind: "internal", form }, when({ when: "date" }), ORIGIN);
    expect(done).toMatchObject({ ok: true, first_date: first_day, replayed: false });
    expect(await available(m.checking.id)).toBe(before);
    const again = await scheduleTransfer(db, m.who, { kind: "internal", form }, when({ when: "date" }), ORIGIN);
    expect(again).toMatchObject({ ok: true, replayed: true });
    const list = await listScheduledTransfers(db, m.member.id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ amount_cents: 2500, frequency: "once", remaining: 1, next_date: first_day });
  });

  it("refuses another member's account, a frozen account, an unknown recipient and the sender as recipient", async () => {
    const m = await member();
    const other = await member();
    const theirs = betweenAccountsSchema.parse({
      from_account_id: String(other.checking.id),
      to_account_id: String(m.savings.id),
      amount: "5.00",
      reference: "x",
      idempotency_key: key(),
    });
    const refused = await scheduleTransfer(
      db,
      m.who,
      { kind: "internal", form: theirs },
      when({ when: "date" }),
      ORIGIN,
    );
    expect(refused).toMatchObject({ ok: false, code: "not_your_account" });
    const to_member = (email: string) =>
      toMemberSchema.parse({
        from_account_id: String(m.checking.id),
        recipient_email: email,
        amount: "5.00",
        reference: "Rent",
        idempotency_key: key(),
      });
    expect(
      await scheduleTransfer(
        db,
        m.who,
        { kind: "member", form: to_member("nobody@members.example") },
        when({ when: "date" }),
        ORIGIN,
      ),
    ).toMatchObject({ ok: false, code: "recipient_not_found" });
    expect(
      await scheduleTransfer(
        db,
        m.who,
        { kind: "member", form: to_member(m.member.email) },
        when({ when: "date" }),
        ORIGIN,
      ),
    ).toMatchObject({ ok: false, code: "own_account" });
    await setAccountStatus(db, m.checking.id, "frozen");
    expect(
      await scheduleTransfer(
        db,
        m.who,
        { kind: "internal", form: internal(m, "5.00") },
        when({ when: "date" }),
        ORIGIN,
      ),
    ).toMatchObject({ ok: false, code: "account_frozen" });
    expect(await db.select().from(scheduledTransfers).where(eq(scheduledTransfers.member_id, m.member.id))).toEqual([]);
  });
});

describe("runs by the job's clock", () => {
  it("sends a monthly series on each date once, under each slot's key, and ends after its count", async () => {
    const m = await member();
    const rule = when({ when: "repeat", frequency: "monthly", ends: "count", payment_count: "2" });
    const set = await scheduleTransfer(db, m.who, { kind: "internal", form: internal(m, "10.00") }, rule, ORIGIN);
    if (!set.ok) throw new Error(set.message);
    const savings = await available(m.savings.id);
    // Not yet due: nothing happens.
    await runDueScheduledTransfers(db, on(today));
    expect(await runs(set.series_id)).toEqual([]);
    await runDueScheduledTransfers(db, on(first_day));
    await runDueScheduledTransfers(db, on(first_day));
    expect(await available(m.savings.id)).toBe(savings + 1000);
    const second = seriesPaymentDate(rule.rule!, 2);
    expect((await series(set.series_id)).next_date).toBe(second);
    await runDueScheduledTransfers(db, on(second));
    expect(await available(m.savings.id)).toBe(savings + 2000);
    const done = await runs(set.series_id);
    expect(done.map((r) => r.status)).toEqual(["sent", "sent"]);
    expect((await series(set.series_id)).status).toBe("ended");
    const [tx] = await db
      .select()
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.idempotency_key, slotKey(set.series_id, 1)));
    expect(tx?.id).toBe(done.find((r) => r.sequence === 1)!.transaction_id);
    await expectLedgerVerifies(db);
  });

  it("tells the member of a failure by bell and email, and goes on or stops as they chose", async () => {
    const m = await member(1_000);
    const goes_on = await scheduleTransfer(
      db,
      m.who,
      { kind: "internal", form: internal(m, "50.00", "Goes on") },
      when({
        when: "repeat",
        frequency: "weeks",
        every_weeks: "1",
        ends: "count",
        payment_count: "3",
        on_failure: "continue",
      }),
      ORIGIN,
    );
    const stops = await scheduleTransfer(
      db,
      m.who,
      { kind: "internal", form: internal(m, "60.00", "Stops") },
      when({
        when: "repeat",
        frequency: "weeks",
        every_weeks: "1",
        ends: "count",
        payment_count: "3",
        on_failure: "stop",
      }),
      ORIGIN,
    );
    if (!goes_on.ok || !stops.ok) throw new Error("set-up refused");
    const counts = await runDueScheduledTransfers(db, on(first_day));
    expect(counts.failed).toBeGreaterThanOrEqual(2);
    expect((await runs(goes_on.series_id))[0]).toMatchObject({
      status: "failed",
      failure_reason: "Insufficient funds on the transfer date",
    });
    expect((await series(goes_on.series_id)).status).toBe("active");
    expect((await series(stops.series_id)).status).toBe("stopped");
    const { bell, mail } = await failureNotices(m.member.id);
    expect(bell.map((n) => n.title).sort()).toEqual([
      "Scheduled transfer of $50.00 not sent",
      "Scheduled transfer of $60.00 not sent",
    ]);
    expect(bell.find((n) => n.title.includes("$60.00"))!.body).toContain("stopped");
    expect(mail).toHaveLength(2);
    expect(await db.select().from(auditLog).where(eq(auditLog.action, "scheduled_transfer.failed"))).not.toHaveLength(
      0,
    );
  });

  it("an account frozen by the transfer date: not sent, told by bell and email, the series goes on to the next date", async () => {
    const m = await member();
    const set = await scheduleTransfer(
      db,
      m.who,
      { kind: "internal", form: internal(m, "15.00", "Frozen then") },
      when({ when: "repeat", frequency: "weeks", every_weeks: "1", ends: "count", payment_count: "2" }),
      ORIGIN,
    );
    if (!set.ok) throw new Error(set.message);
    await setAccountStatus(db, m.checking.id, "frozen");
    const savings = await available(m.savings.id);
    await runDueScheduledTransfers(db, on(first_day));
    expect(await available(m.savings.id)).toBe(savings);
    const [run] = await runs(set.series_id);
    expect(run).toMatchObject({ status: "failed", sequence: 1 });
    expect(run!.failure_reason).toContain(REFUSAL_MESSAGES.account_frozen);
    const after = await series(set.series_id);
    expect(after).toMatchObject({ status: "active", next_sequence: 2 });
    const { bell, mail } = await failureNotices(m.member.id);
    expect(bell.map((n) => n.title)).toEqual(["Scheduled transfer of $15.00 not sent"]);
    expect(mail).toHaveLength(1);
    await setAccountStatus(db, m.checking.id, "active");
  });

  it("a To Another Member transfer over the day's limit on its date: not sent, told, the series goes on", async () => {
    const m = await member(2_000_000);
    const friend = await member();
    // Three series due the same day, each 40% of the day's limit (under the per-transfer maximum):
    // two fit the day's limit, the third would pass it.
    const each = Math.floor(institution().limits.member_daily_max_cents * 0.4);
    const repeat = when({ when: "repeat", frequency: "weeks", every_weeks: "1", ends: "count", payment_count: "2" });
    const ids: number[] = [];
    for (const reference of ["First", "Second", "Third"]) {
      const form = toMemberSchema.parse({
        from_account_id: String(m.checking.id),
        recipient_email: friend.member.email,
        amount: (each / 100).toFixed(2),
        reference,
        idempotency_key: key(),
      });
      const set = await scheduleTransfer(db, m.who, { kind: "member", form }, repeat, ORIGIN);
      if (!set.ok) throw new Error(set.message);
      ids.push(set.series_id);
    }
    const before = await available(friend.checking.id);
    await runDueScheduledTransfers(db, on(first_day));
    expect(await available(friend.checking.id)).toBe(before + 2 * each);
    const all = (await Promise.all(ids.map((id) => runs(id)))).flat();
    expect(all.map((r) => r.status).toSorted()).toEqual(["failed", "sent", "sent"]);
    const failed = all.find((r) => r.status === "failed")!;
    expect(failed.failure_reason).toMatch(/limit/i);
    expect((await series(failed.series_id)).status).toBe("active");
    const { bell, mail } = await failureNotices(m.member.id);
    expect(bell).toHaveLength(1);
    expect(mail).toHaveLength(1);
  });

  it("two job runners racing for one slot send it once", async () => {
    const m = await member();
    const set = await scheduleTransfer(
      db,
      m.who,
      { kind: "internal", form: internal(m, "7.00") },
      when({ when: "date" }),
      ORIGIN,
    );
    if (!set.ok) throw new Error(set.message);
    const savings = await available(m.savings.id);
    await raceForSlot(first_day);
    expect(await available(m.savings.id)).toBe(savings + 700);
    expect((await runs(set.series_id)).map((r) => r.status)).toEqual(["sent"]);
    await expectLedgerVerifies(db);
  });

  it("a run a crash left claimed is sent again under its key after 10 minutes, moving the money once", async () => {
    const m = await member();
    const set = await scheduleTransfer(
      db,
      m.who,
      { kind: "internal", form: internal(m, "9.00") },
      when({ when: "date" }),
      ORIGIN,
    );
    if (!set.ok) throw new Error(set.message);
    const savings = await available(m.savings.id);
    // The crash: the slot claimed (its run row written, the series moved on) and the transfer
    // posted under the slot's key, but the outcome never recorded.
    await db.transaction(async (tx) => {
      await tx.insert(scheduledTransferRuns).values({
        series_id: set.series_id,
        sequence: 1,
        run_date: first_day,
        amount_cents: 900,
        status: "running",
        claimed_at: new Date(on(first_day).getTime() - 11 * 60_000),
      });
      await tx
        .update(scheduledTransfers)
        .set({ next_sequence: 2, next_date: null, status: "ended" })
        .where(eq(scheduledTransfers.id, set.series_id));
    });
    await transferBetweenAccounts(db, m.who, {
      from_account_id: m.checking.id,
      to_account_id: m.savings.id,
      amount_cents: 900,
      reference: "Savings",
      idempotency_key: slotKey(set.series_id, 1),
    });
    const counts = await runDueScheduledTransfers(db, on(first_day));
    expect(counts).toMatchObject({ resumed: 1, sent: 1 });
    expect(await available(m.savings.id)).toBe(savings + 900);
    const [run] = await runs(set.series_id);
    expect(run).toMatchObject({ status: "sent" });
    await runDueScheduledTransfers(db, on(first_day));
    expect(await available(m.savings.id)).toBe(savings + 900);
    await expectLedgerVerifies(db);
  });

  it("sends a To Another Member series to the recipient's checking account, with both notified", async () => {
    const m = await member();
    const friend = await member();
    const form = toMemberSchema.parse({
      from_account_id: String(m.checking.id),
      recipient_email: friend.member.email,
      amount: "12.00",
      reference: "Lunch",
      idempotency_key: key(),
    });
    const set = await scheduleTransfer(db, m.who, { kind: "member", form }, when({ when: "date" }), ORIGIN);
    if (!set.ok) throw new Error(set.message);
    const before = await available(friend.checking.id);
    await runDueScheduledTransfers(db, on(first_day));
    expect(await available(friend.checking.id)).toBe(before + 1200);
    const received = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, friend.member.id), eq(notifications.kind, "transfer_received")));
    expect(received).toHaveLength(1);
    expect((await listScheduledTransfers(db, m.member.id))[0]).toMatchObject({
      to_label: friend.member.name,
      status: "ended",
    });
  });

  it("two job runners racing for one slot of a To Another Member series send it once, the recipient told once", async () => {
    const m = await member();
    const friend = await member();
    const form = toMemberSchema.parse({
      from_account_id: String(m.checking.id),
      recipient_email: friend.member.email,
      amount: "8.00",
      reference: "Coffee",
      idempotency_key: key(),
    });
    const set = await scheduleTransfer(db, m.who, { kind: "member", form }, when({ when: "date" }), ORIGIN);
    if (!set.ok) throw new Error(set.message);
    const before = await available(friend.checking.id);
    await raceForSlot(first_day);
    expect(await available(friend.checking.id)).toBe(before + 800);
    expect((await runs(set.series_id)).map((r) => r.status)).toEqual(["sent"]);
    const received = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, friend.member.id), eq(notifications.kind, "transfer_received")));
    expect(received).toHaveLength(1);
    await expectLedgerVerifies(db);
  });
});

describe("skip, edit, cancel", () => {
  it("skips the next transfer, edits the amount and date, cancels; another member's series is not found", async () => {
    const m = await member();
    const other = await member();
    const set = await scheduleTransfer(
      db,
      m.who,
      { kind: "internal", form: internal(m, "20.00") },
      when({ when: "repeat", frequency: "weeks", every_weeks: "2", ends: "count", payment_count: "4" }),
      ORIGIN,
    );
    if (!set.ok) throw new Error(set.message);
    await expectNotFoundFor(other.who, set.series_id, ORIGIN);
    const before = await series(set.series_id);

    const skipped = await skipNextTransfer(db, m.who, set.series_id, ORIGIN);
    expect(skipped).toMatchObject({ ok: true });
    const after_skip = await series(set.series_id);
    expect(after_skip.next_sequence).toBe(2);
    expect(after_skip.next_date).not.toBe(before.next_date);
    expect((await runs(set.series_id)).map((r) => r.status)).toEqual(["skipped"]);

    const new_date = businessDayOnOrAfter(addDays(after_skip.next_date!, 3));
    const edited = await editScheduledTransfer(
      db,
      m.who,
      { series_id: set.series_id, amount_cents: 3300, next_date: new_date },
      ORIGIN,
    );
    expect(edited).toMatchObject({ ok: true, next_date: new_date });
    const list = await listScheduledTransfers(db, m.member.id);
    expect(list[0]).toMatchObject({ amount_cents: 3300, next_date: new_date, remaining: 3 });

    expect(await cancelScheduledTransfer(db, m.who, set.series_id, ORIGIN)).toMatchObject({ ok: true });
    expect((await series(set.series_id)).status).toBe("cancelled");
    expect(await skipNextTransfer(db, m.who, set.series_id, ORIGIN)).toMatchObject({ ok: false, kind: "conflict" });
    await runDueScheduledTransfers(db, on(addDays(new_date, 60)));
    expect((await runs(set.series_id)).map((r) => r.status)).toEqual(["skipped"]);
  });
});

describe("the code at set-up", () => {
  it("above the profile's amount a scheduled To Another Member transfer asks for the code, bound to its schedule", async () => {
    const m = await member(500_000);
    const friend = await member();
    const post = (fields: Record<string, string>) => postTransferForm(m.user, fields);
    const fields = {
      from_account_id: String(m.checking.id),
      recipient_email: friend.member.email,
      amount: "1500.00",
      reference: "Rent share",
      idempotency_key: key(),
      when: "repeat",
      transfer_date: first_day,
      frequency: "monthly",
      ends: "count",
      payment_count: "2",
      on_failure: "continue",
    };
    expect(await post({ intent: "member", ...fields })).toMatchObject({ status: "otp" });
    const code = await lastTransferCode(db, m.member.email);
    // The code confirms this schedule only: another count is refused, and nothing is set up.
    expect(await post({ intent: "member-send", ...fields, payment_count: "12", otp: code })).toMatchObject({
      status: "refused",
      code: "otp_invalid",
      step: "otp",
    });
    expect(await post({ intent: "member-send", ...fields, otp: "" })).toMatchObject({
      status: "refused",
      code: "otp_missing",
    });
    expect(await db.select().from(scheduledTransfers).where(eq(scheduledTransfers.member_id, m.member.id))).toEqual([]);
    expect(await post({ intent: "member", ...fields })).toMatchObject({ status: "otp" });
    const fresh = await lastTransferCode(db, m.member.email);
    expect(await post({ intent: "member-send", ...fields, otp: fresh })).toMatchObject({
      status: "scheduled",
      amount_cents: 150_000,
      message: expect.stringContaining("Monthly, 2 transfers, from"),
    });
    const list = await listScheduledTransfers(db, m.member.id);
    expect(list).toHaveLength(1);
    expect(await available(m.checking.id)).toBe(500_000);
  });
});

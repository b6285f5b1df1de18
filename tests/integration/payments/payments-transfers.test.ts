import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { eq, sql } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { externalPayments, notifications } from "~/server/db/schema";
import { getBalances, setAccountStatus, institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer, today } from "~/server/ledger/ledger.server";
import { setAppDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import { transferAction } from "~/routes/member/dashboard.server";
import { support } from "~/routes/member/layout.server";
import { institution } from "~/config/institution.server";
import { InstitutionSchema } from "~/config/institution";
import { demoInstitution } from "~/config/demo-institution";
import { verifyLedger } from "~/server/ledger/verify.server";
import { MESSAGES, stepUpTransfer } from "~/server/payments/transfers.server";
import {
  memberTransferNeedsCode,
  reviewMemberTransfer,
  transferToMember,
  verifyRecipient,
} from "~/server/payments/to-member.server";
import {
  reviewUsBankTransfer,
  sendUsBankTransfer,
  sendWire,
  reviewWire,
} from "~/server/payments/to-other-banks.server";
import { transferBetweenAccounts } from "~/server/payments/between-accounts.server";
import { setOutgoingPaymentsPaused } from "~/server/payments/controls.server";
import { setCurrencyRate } from "~/server/payments/rates.server";
import { sendStepUpCode, verifyStepUpCode } from "~/server/payments/step-up.server";
import { openNumber } from "~/server/payments/payment-destination.server";
import { betweenAccountsSchema, internationalSchema, toMemberSchema, toUsBankSchema } from "~/domain/transfers";
import { listNotifications, markAllRead, markRead, unreadCount } from "~/server/notifications/notifications.server";
import { openTestDatabase } from "../test-database";
import { key, lastTransferCode, newMember } from "../member-support";
import { fieldErrors } from "../../form-reply";

let database: Database;
let db: Db;
beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  await setCurrencyRate(db, { code: "EUR", usd_per_unit: "1.08375", updated_by: "test" });
});
afterAll(async () => {
  await database?.close();
});

async function balance(account_id: number) {
  const [a] = await getBalances(db, [account_id]);
  return { current: a!.current_cents, available: a!.available_cents };
}

async function ledgerTotal(): Promise<number> {
  const r = await db.execute(sql`select coalesce(sum(amount_cents), 0)::text as s from ledger_entries`);
  return Number(r.rows[0]!.s);
}

/**
 * Two members, the first with $5,000.00 in checking; the dashboard's action posted as the first,
 * and a transfer form of `amount` to the second.
 */
async function dashboardTransfer(amount: string) {
  setAppDatabase(database);
  const a = await newMember(db, { checking_cents: 500_000 });
  const b = await newMember(db);
  const fields = {
    from_account_id: String(a.checking.id),
    recipient_email: b.member.email,
    amount,
    reference: "Car",
    idempotency_key: key(),
  };
  return { a, b, post: dashboardPost(a.member), fields };
}

/** The dashboard's transfer action, posted as the signed-in member (the form as the browser sends it). */
function dashboardPost(member: { id: string; email: string; name: string }) {
  const user = { ...member, role: "user" } as unknown as SessionUser;
  return (fields: Record<string, string>) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    return transferAction(user, form);
  };
}

const internal = (from: number, to: number, amount: string, k = key()) =>
  betweenAccountsSchema.parse({
    from_account_id: String(from),
    to_account_id: String(to),
    amount,
    reference: "Rent",
    idempotency_key: k,
  });

describe("Between Accounts", () => {
  it("posts at once, notifies, and returns a reference number", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const result = await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "250.75"));
    expect(result).toMatchObject({ ok: true, amount_cents: 25_075, replayed: false });
    if (!result.ok) throw new Error();
    expect(result.reference_number).toMatch(/^MU\d{8}$/);
    expect(await balance(a.checking.id)).toEqual({ current: 74_925, available: 74_925 });
    expect(await balance(a.savings.id)).toEqual({ current: 25_075, available: 25_075 });
    const list = await listNotifications(db, a.member.id);
    expect(list[0]).toMatchObject({ kind: "transfer_sent", read: false });
  });

  it("a double submission or replay with the same key moves money once and notifies once", async () => {
    const a = await newMember(db, { checking_cents: 10_000 });
    const k = key();
    const [one, two] = await Promise.all([
      transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "60.00", k)),
      transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "60.00", k)),
    ]);
    const three = await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "60.00", k));
    expect([one.ok, two.ok, three.ok]).toEqual([true, true, true]);
    expect(new Set([one, two, three].map((r) => (r.ok ? r.transaction_id : 0))).size).toBe(1);
    expect(three).toMatchObject({ replayed: true });
    expect(await balance(a.checking.id)).toEqual({ current: 4_000, available: 4_000 });
    expect(await unreadCount(db, a.member.id)).toBe(1);
  });

  it("a finished transfer's answer carries a fresh key, so the next one sent before the page reloads is a new transfer", async () => {
    setAppDatabase(database);
    const a = await newMember(db, { checking_cents: 10_000 });
    const post = dashboardPost(a.member);
    const fields = {
      intent: "internal",
      from_account_id: String(a.checking.id),
      to_account_id: String(a.savings.id),
      amount: "10.00",
      reference: "Rent",
      idempotency_key: key(),
    };
    const first = await post(fields);
    if (first.status !== "done") throw new Error(`not done: ${first.status}`);
    expect(first.next_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.next_key).not.toBe(fields.idempotency_key);
    const second = await post({ ...fields, idempotency_key: first.next_key });
    expect(second).toMatchObject({ status: "done", amount_cents: 1_000 });
    expect(second.status === "done" && second.reference_number).not.toBe(first.reference_number);
    expect(await balance(a.checking.id)).toEqual({ current: 8_000, available: 8_000 });
  });

  it("refuses another member's account, the same account, and amounts above available, moving nothing", async () => {
    const a = await newMember(db, { checking_cents: 5_000 });
    const b = await newMember(db, { checking_cents: 5_000 });
    const before = await ledgerTotal();
    expect(await transferBetweenAccounts(db, a.member, internal(b.checking.id, a.savings.id, "1.00"))).toMatchObject({
      ok: false,
      kind: "not_found",
      code: "not_your_account",
    });
    expect(await transferBetweenAccounts(db, a.member, internal(a.checking.id, b.checking.id, "1.00"))).toMatchObject({
      ok: false,
      code: "not_your_account",
    });
    expect(await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "50.01"))).toMatchObject({
      ok: false,
      kind: "bad_input",
      code: "insufficient_funds",
      message: "Insufficient funds",
      field: "amount",
    });
    expect(await balance(a.checking.id)).toEqual({ current: 5_000, available: 5_000 });
    expect(await balance(b.checking.id)).toEqual({ current: 5_000, available: 5_000 });
    expect(await ledgerTotal()).toBe(before);
  });

  it("the form schema refuses negative, zero and fractional-cent amounts and a missing key", () => {
    const base = { from_account_id: "1", to_account_id: "2", reference: "x", idempotency_key: key() };
    for (const amount of ["-5.00", "0", "0.001", "1.234", "abc", "1e3"]) {
      const parsed = betweenAccountsSchema.safeParse({ ...base, amount });
      expect(parsed.success, amount).toBe(false);
    }
    expect(betweenAccountsSchema.safeParse({ ...base, amount: "1.00", idempotency_key: "" }).success).toBe(false);
  });

  it("a frozen source account is refused as Transaction Blocked", async () => {
    const a = await newMember(db, { checking_cents: 5_000 });
    await setAccountStatus(db, a.checking.id, "frozen");
    expect(await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "1.00"))).toMatchObject({
      ok: false,
      code: "account_frozen",
    });
    expect(await balance(a.checking.id)).toEqual({ current: 5_000, available: 5_000 });
  });

  it("the savings limit refuses the 7th transfer out of savings this month, naming the count", async () => {
    const a = await newMember(db, { savings_cents: 10_000 });
    for (let i = 0; i < 6; i++)
      expect((await transferBetweenAccounts(db, a.member, internal(a.savings.id, a.checking.id, "1.00"))).ok).toBe(
        true,
      );
    const seventh = await transferBetweenAccounts(db, a.member, internal(a.savings.id, a.checking.id, "1.00"));
    expect(seventh).toMatchObject({ ok: false, code: "transfer_limit" });
    if (!seventh.ok) expect(seventh.message).toContain("6");
    expect(await balance(a.savings.id)).toEqual({ current: 9_400, available: 9_400 });
  });
});

describe("To Another Member", () => {
  it("verification shows the name only; own email and unknown emails are refused", async () => {
    const a = await newMember(db, { checking_cents: 5_000 });
    const b = await newMember(db, { first_name: "Robin", last_name: "Ames" });
    expect(await verifyRecipient(db, a.member, b.member.email)).toEqual({ ok: true, name: "Robin Ames" });
    expect(await verifyRecipient(db, a.member, a.member.email)).toMatchObject({
      ok: false,
      message: "Cannot transfer to your own account",
    });
    expect(await verifyRecipient(db, a.member, "nobody@members.example")).toMatchObject({
      ok: false,
      message: "Recipient not found",
    });
  });

  it("verification is rate-limited", async () => {
    const a = await newMember(db);
    const results = [];
    for (let i = 0; i < 31; i++) results.push(await verifyRecipient(db, a.member, `x${i}@members.example`));
    expect(results[29]).toMatchObject({ ok: false, code: "recipient_not_found" });
    expect(results[30]).toMatchObject({ ok: false, kind: "too_many", code: "rate_limited", field: "recipient_email" });
    expect((results[30] as { retry_after_s?: number }).retry_after_s).toBeGreaterThan(0);
  });

  it("posts to the recipient's checking and notifies both", async () => {
    const a = await newMember(db, { checking_cents: 20_000 });
    const b = await newMember(db);
    const form = toMemberSchema.parse({
      from_account_id: String(a.checking.id),
      recipient_email: b.member.email.toUpperCase(),
      amount: "120.50",
      reference: "Dinner",
      idempotency_key: key(),
    });
    const result = await transferToMember(db, a.member, form);
    expect(result).toMatchObject({ ok: true, amount_cents: 12_050 });
    expect(await balance(b.checking.id)).toEqual({ current: 12_050, available: 12_050 });
    expect((await listNotifications(db, b.member.id))[0]).toMatchObject({ kind: "transfer_received" });
    expect((await listNotifications(db, a.member.id))[0]).toMatchObject({ kind: "transfer_sent" });
  });

  it("refuses own account, unknown recipients and insufficient funds", async () => {
    const a = await newMember(db, { checking_cents: 1_000 });
    const b = await newMember(db);
    const form = (email: string, amount = "1.00") =>
      toMemberSchema.parse({
        from_account_id: String(a.checking.id),
        recipient_email: email,
        amount,
        reference: "x",
        idempotency_key: key(),
      });
    expect(await transferToMember(db, a.member, form(a.member.email))).toMatchObject({
      ok: false,
      message: "Cannot transfer to your own account",
    });
    expect(await transferToMember(db, a.member, form("ghost@members.example"))).toMatchObject({
      ok: false,
      message: "Recipient not found",
    });
    expect(await transferToMember(db, a.member, form(b.member.email, "10.01"))).toMatchObject({
      ok: false,
      message: "Insufficient funds",
    });
    expect(await balance(b.checking.id)).toEqual({ current: 0, available: 0 });
  });

  it("a transfer's recipient lookup counts against the Verify limit, so many sends to different emails are throttled", async () => {
    const a = await newMember(db, { checking_cents: 1_000 });
    const b = await newMember(db);
    // An impossible amount: before the limit, a member's email would answer "Insufficient funds"
    // and any other "Recipient not found", which tells the two apart.
    const send = (email: string) =>
      transferToMember(
        db,
        a.member,
        toMemberSchema.parse({
          from_account_id: String(a.checking.id),
          recipient_email: email,
          amount: "999.00",
          reference: "x",
          idempotency_key: key(),
        }),
      );
    expect(await send(b.member.email)).toMatchObject({ ok: false, code: "insufficient_funds" });
    for (let i = 0; i < 9; i++)
      expect(await verifyRecipient(db, a.member, `probe-v${i}@members.example`)).toMatchObject({
        ok: false,
        code: "recipient_not_found",
      });
    const answers = [];
    for (let i = 0; i < 25; i++) answers.push(await send(`probe-${i}@members.example`));
    // 1 + 9 + 20 = the 30 lookups of the window; every later one is refused, whatever the address.
    expect(answers.slice(0, 20).every((r) => !r.ok && r.code === "recipient_not_found")).toBe(true);
    for (const r of answers.slice(20))
      expect(r).toMatchObject({
        ok: false,
        code: "rate_limited",
        message: MESSAGES.rate_limited,
        field: "recipient_email",
      });
    expect(await send(b.member.email)).toMatchObject({ ok: false, code: "rate_limited" });
    expect(await verifyRecipient(db, a.member, b.member.email)).toMatchObject({ ok: false, code: "rate_limited" });
    expect(await balance(a.checking.id)).toEqual({ current: 1_000, available: 1_000 });
  });
});

describe("step-up codes", () => {
  it("are single use, expire after 5 wrong tries", async () => {
    const a = await newMember(db);
    const check = (code: string) =>
      verifyStepUpCode(db, a.member, { code, transfer: "transfer", action: "transfer_to_us_bank" });
    await sendStepUpCode(db, a.member, "summary", "transfer");
    const code = await lastTransferCode(db, a.member.email);
    expect(await check(code === "000000" ? "111111" : "000000")).toEqual({
      ok: false,
      kind: "unprocessable",
      code: "otp_invalid",
      message: "Invalid OTP",
      field: "otp",
    });
    expect(await check(code)).toEqual({ ok: true });
    expect(await check(code)).toMatchObject({ ok: false, code: "otp_invalid" });
    await sendStepUpCode(db, a.member, "summary", "transfer");
    const second = await lastTransferCode(db, a.member.email);
    const wrong = second === "999999" ? "888888" : "999999";
    for (let i = 0; i < 5; i++) expect(await check(wrong)).toMatchObject({ ok: false, code: "otp_invalid" });
    expect(await check(second)).toMatchObject({ ok: false, code: "otp_invalid" });
  });

  it("confirm only the transfer they were emailed for: for another one the right code is a wrong code", async () => {
    const a = await newMember(db, { checking_cents: 500_000 });
    const k = key();
    const ach = (amount: string, account_number = "123456789") =>
      toUsBankSchema.parse({
        from_account_id: String(a.checking.id),
        routing_number: "021000021",
        account_number,
        account_name: "Lee Park",
        amount,
        reference: "Rent",
        idempotency_key: k,
      });
    // The code is asked for $20.00 to Lee Park; the same form is then sent for $4,000.00, or to another account.
    const review = await reviewUsBankTransfer(db, a.member, ach("20.00"));
    if (!review.ok) throw new Error(review.message);
    await sendStepUpCode(db, a.member, review.summary, stepUpTransfer({ kind: "ach", form: ach("20.00") }));
    const code = await lastTransferCode(db, a.member.email);
    expect(await sendUsBankTransfer(db, a.member, ach("4000.00"), code)).toMatchObject({
      ok: false,
      kind: "unprocessable",
      code: "otp_invalid",
      message: "Invalid OTP",
    });
    expect(await sendUsBankTransfer(db, a.member, ach("20.00", "99990000"), code)).toMatchObject({
      ok: false,
      code: "otp_invalid",
    });
    expect(await balance(a.checking.id)).toEqual({ current: 500_000, available: 500_000 });
    expect(await sendUsBankTransfer(db, a.member, ach("20.00"), code)).toMatchObject({ ok: true, amount_cents: 2_000 });
  });
});

describe("To US Bank (ACH)", () => {
  const achForm = (from: number, amount: string, k = key()) =>
    toUsBankSchema.parse({
      from_account_id: String(from),
      routing_number: "021000021",
      account_number: "123456789",
      account_name: "Lee Park",
      amount,
      reference: "Tuition",
      idempotency_key: k,
    });

  it("needs the emailed code, then holds the money and queues the payment; a replay returns the first result", async () => {
    const a = await newMember(db, { checking_cents: 50_000 });
    const form = achForm(a.checking.id, "100.00");
    const review = await reviewUsBankTransfer(db, a.member, form);
    expect(review).toMatchObject({ ok: true, bank_name: "JPMorgan Chase Bank" });
    await sendStepUpCode(db, a.member, "x", stepUpTransfer({ kind: "ach", form }));
    expect(await sendUsBankTransfer(db, a.member, form, "")).toMatchObject({ ok: false, message: "Please enter OTP" });
    const code = await lastTransferCode(db, a.member.email);
    expect(await sendUsBankTransfer(db, a.member, form, code === "123456" ? "654321" : "123456")).toMatchObject({
      ok: false,
      message: "Invalid OTP",
    });
    const sent = await sendUsBankTransfer(db, a.member, form, code);
    expect(sent).toMatchObject({ ok: true, amount_cents: 10_000, replayed: false });
    expect(await balance(a.checking.id)).toEqual({ current: 50_000, available: 40_000 });
    const [payment] = await db.select().from(externalPayments).where(eq(externalPayments.member_id, a.member.id));
    expect(payment).toMatchObject({ kind: "ach", status: "pending", amount_cents: 10_000 });
    const replay = await sendUsBankTransfer(db, a.member, form, code);
    expect(replay).toMatchObject({ ok: true, replayed: true });
    expect(await balance(a.checking.id)).toEqual({ current: 50_000, available: 40_000 });
  });

  it("is denied when staff paused outgoing payments, and blocked for a frozen account", async () => {
    const a = await newMember(db, { checking_cents: 50_000 });
    await setOutgoingPaymentsPaused(db, { paused: true, reason: "test", updated_by: "staff:test" });
    try {
      expect(await reviewUsBankTransfer(db, a.member, achForm(a.checking.id, "1.00"))).toMatchObject({
        ok: false,
        kind: "forbidden",
        code: "denied",
        message: "All transactions temporarily suspended",
      });
      expect(await sendUsBankTransfer(db, a.member, achForm(a.checking.id, "1.00"), "123456")).toMatchObject({
        ok: false,
        code: "denied",
      });
    } finally {
      await setOutgoingPaymentsPaused(db, { paused: false, updated_by: "staff:test" });
    }
    await setAccountStatus(db, a.checking.id, "frozen");
    expect(await reviewUsBankTransfer(db, a.member, achForm(a.checking.id, "1.00"))).toMatchObject({
      ok: false,
      code: "account_frozen",
    });
  });

  it("refuses above available, above the per-transfer limit, and another member's account", async () => {
    const a = await newMember(db, { checking_cents: 1_000 });
    const b = await newMember(db, { checking_cents: 1_000 });
    expect(await reviewUsBankTransfer(db, a.member, achForm(a.checking.id, "10.01"))).toMatchObject({
      ok: false,
      message: "Insufficient funds",
    });
    expect(await reviewUsBankTransfer(db, a.member, achForm(a.checking.id, "25000.01"))).toMatchObject({
      ok: false,
      code: "over_transfer_max",
    });
    expect(await reviewUsBankTransfer(db, a.member, achForm(b.checking.id, "1.00"))).toMatchObject({
      ok: false,
      code: "not_your_account",
    });
    expect(await sendUsBankTransfer(db, a.member, achForm(b.checking.id, "1.00"), "123456")).toMatchObject({
      ok: false,
      code: "not_your_account",
    });
  });

  it("counts the daily limit by the credit union's business day (its time zone), not the UTC day", async () => {
    // The demo credit union keeps its books in New York: 23:30 there is already the next day in UTC.
    expect(institution().time_zone).toBe("America/New_York");
    expect(institution().limits).toMatchObject({
      external_transfer_max_cents: 2_500_000,
      external_daily_max_cents: 5_000_000,
    });
    const a = await newMember(db, { checking_cents: 6_000_000 });
    for (let i = 0; i < 2; i++) {
      const form = achForm(a.checking.id, "25000.00");
      await sendStepUpCode(db, a.member, "x", stepUpTransfer({ kind: "ach", form }));
      expect(await sendUsBankTransfer(db, a.member, form, await lastTransferCode(db, a.member.email))).toMatchObject({
        ok: true,
      });
    }
    const sentAt = (instant: string) =>
      db
        .update(externalPayments)
        .set({ created_at: new Date(instant) })
        .where(eq(externalPayments.member_id, a.member.id));
    const reviewAt = async (instant: string) => {
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        vi.setSystemTime(new Date(instant));
        return await reviewUsBankTransfer(db, a.member, achForm(a.checking.id, "1.00"));
      } finally {
        vi.useRealTimers();
      }
    };
    const spent = { ok: false, code: "over_daily_limit", message: expect.stringContaining("($0.00 left today)") };
    // Both sent at 3 pm in New York on November 23 (20:00 UTC).
    await sentAt("2026-11-23T20:00:00Z");
    // 11:30 pm in New York, November 24 in UTC: the same business day, so the limit is spent.
    expect(await reviewAt("2026-11-24T04:30:00Z")).toMatchObject(spent);
    // 12:30 am in New York on November 24: a new business day.
    expect(await reviewAt("2026-11-24T05:30:00Z")).toMatchObject({ ok: true });
    // Both sent at 9 pm in New York on November 23 (02:00 UTC on November 24); the next morning in
    // New York is the same UTC day, but a new business day.
    await sentAt("2026-11-24T02:00:00Z");
    expect(await reviewAt("2026-11-24T15:00:00Z")).toMatchObject({ ok: true });
    expect(await reviewAt("2026-11-24T04:59:00Z")).toMatchObject(spent);
  });

  it("the routing number needs the ABA checksum", () => {
    const base = {
      from_account_id: "1",
      account_number: "123456789",
      account_name: "A",
      amount: "1",
      reference: "r",
      idempotency_key: key(),
    };
    expect(toUsBankSchema.safeParse({ ...base, routing_number: "021000022" }).success).toBe(false);
    expect(toUsBankSchema.safeParse({ ...base, routing_number: "021000021" }).success).toBe(true);
  });
});

describe("International (wire)", () => {
  const wireForm = (from: number, amount: string, currency = "EUR", k = key()) =>
    internationalSchema.parse({
      from_account_id: String(from),
      recipient_name: "Marie Curie",
      bank_name: "BNP Paribas",
      bic: "bnpafrpp",
      account_number: "FR14 2004 1010 0505 0001 3M02 606",
      iban: "FR14 2004 1010 0505 0001 3M02 606",
      country: "FR",
      currency,
      amount,
      reference: "Gift",
      idempotency_key: k,
    });

  it("quotes at the staff rate plus the fee, needs the emailed code, then holds USD + fee and queues the wire", async () => {
    const a = await newMember(db, { checking_cents: 200_000 });
    const form = wireForm(a.checking.id, "1000.00");
    const quote = await reviewWire(db, a.member, form);
    expect(quote).toMatchObject({ ok: true, usd_cents: 108_375, fee_cents: 4_500, total_cents: 112_875 });
    const fees = await institutionAccount(db, "fees_income");
    const summary = "EUR 1,000.00 to Marie Curie at BNP Paribas (France), account ••2606: $1,128.75 held from Checking";
    expect(await sendWire(db, a.member, form, "")).toMatchObject({
      ok: false,
      code: "otp_missing",
      message: "Please enter OTP",
      summary: expect.stringContaining(summary),
    });
    await sendStepUpCode(db, a.member, "x", stepUpTransfer({ kind: "wire", form }));
    const code = await lastTransferCode(db, a.member.email);
    expect(await sendWire(db, a.member, form, code === "123456" ? "654321" : "123456")).toMatchObject({
      ok: false,
      code: "otp_invalid",
      message: "Invalid OTP",
    });
    expect(await balance(a.checking.id)).toEqual({ current: 200_000, available: 200_000 });
    const sent = await sendWire(db, a.member, form, code);
    expect(sent).toMatchObject({ ok: true, amount_cents: 112_875 });
    expect(await balance(a.checking.id)).toEqual({ current: 200_000, available: 200_000 - 112_875 });
    const [payment] = await db.select().from(externalPayments).where(eq(externalPayments.member_id, a.member.id));
    expect(payment).toMatchObject({
      kind: "wire",
      currency: "EUR",
      foreign_amount_minor: 100_000,
      rate: "1.08375",
      fee_cents: 4_500,
    });
    expect(payment!.details.iban_last4).toBe("2606");
    expect(openNumber(payment!, "iban")).toBe("FR1420041010050500013M02606");
    expect(fees.id).toBeGreaterThan(0);
    expect(await sendWire(db, a.member, form, "")).toMatchObject({ ok: true, replayed: true });
    expect(await balance(a.checking.id)).toEqual({ current: 200_000, available: 200_000 - 112_875 });
  });

  it("refuses a currency without a rate, insufficient funds (fee included) and a bad IBAN", async () => {
    const a = await newMember(db, { checking_cents: 108_375 });
    expect(await reviewWire(db, a.member, wireForm(a.checking.id, "100", "GBP"))).toMatchObject({
      ok: false,
      code: "no_rate",
    });
    expect(await reviewWire(db, a.member, wireForm(a.checking.id, "1000.00"))).toMatchObject({
      ok: false,
      message: "Insufficient funds",
    });
    expect(await sendWire(db, a.member, wireForm(a.checking.id, "1000.00"), "123456")).toMatchObject({
      ok: false,
      message: "Insufficient funds",
    });
    const bad = internationalSchema.safeParse({
      ...wireForm(a.checking.id, "1"),
      amount: "1",
      iban: "FR15 2004 1010 0505 0001 3M02 606",
      idempotency_key: key(),
      bic: "BNPAFRPP",
      account_number: "12345678",
    });
    expect(bad.success).toBe(false);
  });

  it("is denied while outgoing payments are paused", async () => {
    const a = await newMember(db, { checking_cents: 200_000 });
    await setOutgoingPaymentsPaused(db, { paused: true, updated_by: "staff:test" });
    try {
      expect(await sendWire(db, a.member, wireForm(a.checking.id, "10"), "123456")).toMatchObject({
        ok: false,
        code: "denied",
      });
    } finally {
      await setOutgoingPaymentsPaused(db, { paused: false, updated_by: "staff:test" });
    }
    expect(await balance(a.checking.id)).toEqual({ current: 200_000, available: 200_000 });
  });
});

/**
 * Refusals with real causes (docs/product.md#refusals): the frozen-account and paused-payments
 * messages. The staff controls that cause them are not in the browser yet, so these are tested
 * here, for every kind.
 */
/**
 * To Another Member: per-transfer and daily limits from the institution profile (the demo's:
 * $5,000.00 a transfer, $10,000.00 a business day, the emailed code above $1,000.00), and the
 * same step-up code as To US Bank; every wire needs the code too (above).
 */
describe("To Another Member limits and the emailed code", () => {
  const toMember = (from: number, email: string, amount: string, k = key()) =>
    toMemberSchema.parse({
      from_account_id: String(from),
      recipient_email: email,
      amount,
      reference: "Car",
      idempotency_key: k,
    });
  /** Sends with a fresh code, as the code step does. */
  async function withCode(member: { id: string; email: string; name: string }, form: ReturnType<typeof toMember>) {
    await sendStepUpCode(db, member, "x", stepUpTransfer({ kind: "member", form }));
    return transferToMember(db, member, form, await lastTransferCode(db, member.email));
  }

  it("the profile's limits, with their defaults for a profile that leaves them out", () => {
    expect(institution().limits).toMatchObject({
      member_transfer_max_cents: 500_000,
      member_daily_max_cents: 1_000_000,
      member_transfer_code_above_cents: 100_000,
    });
    const {
      member_transfer_max_cents: _a,
      member_daily_max_cents: _b,
      member_transfer_code_above_cents: _c,
      ...older
    } = demoInstitution.limits;
    const parsed = InstitutionSchema.parse({ ...demoInstitution, limits: older });
    expect(parsed.limits).toMatchObject({
      member_transfer_max_cents: 500_000,
      member_daily_max_cents: 1_000_000,
      member_transfer_code_above_cents: 100_000,
    });
  });

  it("refuses more than the per-transfer limit, naming it, for any email and without a lookup", async () => {
    const a = await newMember(db, { checking_cents: 2_000_000 });
    const b = await newMember(db);
    const message = "The most you can send in one of your transfers to other members is $5,000.00";
    for (const email of [b.member.email, "ghost@members.example"]) {
      expect(await withCode(a.member, toMember(a.checking.id, email, "5000.01"))).toMatchObject({
        ok: false,
        code: "over_transfer_max",
        message,
        field: "amount",
      });
    }
    // No lookup was spent: the whole Verify allowance is still there.
    for (let i = 0; i < 30; i++) expect((await verifyRecipient(db, a.member, b.member.email)).ok).toBe(true);
    expect(await balance(a.checking.id)).toEqual({ current: 2_000_000, available: 2_000_000 });
  });

  it("refuses what would pass the daily limit, naming it and what is left today; yesterday's transfers do not count", async () => {
    const a = await newMember(db, { checking_cents: 2_000_000 });
    const b = await newMember(db);
    // Yesterday (the business date before today's): not today's.
    await postTransfer(db, {
      kind: "member_transfer",
      initiator: `member:${a.member.id}`,
      idempotency_key: key(),
      created_by: a.member.id,
      entries: [
        { account_id: a.checking.id, amount_cents: -400_000 },
        { account_id: b.checking.id, amount_cents: 400_000 },
      ],
      effective_date: new Date(Date.parse(`${today()}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10),
    });
    expect(await withCode(a.member, toMember(a.checking.id, b.member.email, "5000.00"))).toMatchObject({ ok: true });
    expect(await withCode(a.member, toMember(a.checking.id, b.member.email, "4000.00"))).toMatchObject({ ok: true });
    expect(await withCode(a.member, toMember(a.checking.id, b.member.email, "1000.01"))).toMatchObject({
      ok: false,
      code: "over_daily_limit",
      message:
        "This transfer would pass your daily limit of $10,000.00 for transfers to other members ($1,000.00 left today)",
      field: "amount",
    });
    // Exactly what is left, and at the code threshold: no code needed.
    expect(await transferToMember(db, a.member, toMember(a.checking.id, b.member.email, "1000.00"))).toMatchObject({
      ok: true,
    });
    expect(await transferToMember(db, a.member, toMember(a.checking.id, b.member.email, "0.01"))).toMatchObject({
      ok: false,
      code: "over_daily_limit",
      message: expect.stringContaining("($0.00 left today)"),
    });
    expect(await balance(a.checking.id)).toEqual({ current: 2_000_000 - 400_000 - 1_000_000, available: 600_000 });
  });

  it("two transfers at once cannot both pass the daily limit", async () => {
    const a = await newMember(db, { checking_cents: 2_000_000 });
    const b = await newMember(db);
    expect(await withCode(a.member, toMember(a.checking.id, b.member.email, "5000.00"))).toMatchObject({ ok: true });
    expect(await withCode(a.member, toMember(a.checking.id, b.member.email, "4000.00"))).toMatchObject({ ok: true });
    const results = await Promise.all(
      [0, 1, 2].map(() => transferToMember(db, a.member, toMember(a.checking.id, b.member.email, "600.00"))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.code === "over_daily_limit")).toHaveLength(2);
    expect(await balance(b.checking.id)).toEqual({ current: 960_000, available: 960_000 });
  });

  it("above the threshold the emailed code is needed: missing, wrong, then right; at the threshold none", async () => {
    const a = await newMember(db, { checking_cents: 500_000 });
    const b = await newMember(db, { first_name: "Robin", last_name: "Ames" });
    expect(memberTransferNeedsCode(100_000)).toBe(false);
    expect(memberTransferNeedsCode(100_001)).toBe(true);
    expect(await transferToMember(db, a.member, toMember(a.checking.id, b.member.email, "1000.00"))).toMatchObject({
      ok: true,
    });
    const form = toMember(a.checking.id, b.member.email, "1000.01");
    const review = await reviewMemberTransfer(db, a.member, form);
    expect(review).toEqual({
      ok: true,
      summary: `$1,000.01 from Checking •••• ${a.checking.account_number.slice(-4)} to Robin Ames (${b.member.email}).`,
    });
    expect(await transferToMember(db, a.member, form)).toMatchObject({
      ok: false,
      code: "otp_missing",
      message: "Please enter OTP",
      field: "otp",
      summary: (review as { summary: string }).summary,
    });
    await sendStepUpCode(
      db,
      a.member,
      (review as { summary: string }).summary,
      stepUpTransfer({ kind: "member", form }),
    );
    const code = await lastTransferCode(db, a.member.email);
    expect(await transferToMember(db, a.member, form, code === "123456" ? "654321" : "123456")).toMatchObject({
      ok: false,
      code: "otp_invalid",
      message: "Invalid OTP",
    });
    expect(await balance(b.checking.id)).toEqual({ current: 100_000, available: 100_000 });
    expect(await transferToMember(db, a.member, form, code)).toMatchObject({ ok: true, amount_cents: 100_001 });
    // The code is used up, and it confirmed that transfer only: another form's is refused with it.
    expect(
      await transferToMember(db, a.member, toMember(a.checking.id, b.member.email, "1000.01"), code),
    ).toMatchObject({ ok: false, code: "otp_invalid" });
    expect(await balance(b.checking.id)).toEqual({ current: 200_001, available: 200_001 });
  });

  it("the dashboard's action asks for the code above the threshold, whatever the request says, and emails it", async () => {
    const { a, b, post, fields } = await dashboardTransfer("2500.00");
    // The one-step intent with a code field of its own choosing still gets the code step.
    const first = await post({ ...fields, intent: "member", otp: "123456" });
    expect(first).toMatchObject({
      tab: "member",
      status: "otp",
      summary: expect.stringContaining("$2,500.00 from Checking"),
    });
    expect(await balance(b.checking.id)).toEqual({ current: 0, available: 0 });
    const missing = await post({ ...fields, intent: "member-send" });
    expect(missing).toMatchObject({ status: "refused", code: "otp_missing", step: "otp" });
    expect(fieldErrors(missing)).toMatchObject({ otp: "Please enter OTP" });
    const code = await lastTransferCode(db, a.member.email);
    expect(await post({ ...fields, intent: "member-send", otp: code })).toMatchObject({
      status: "done",
      amount_cents: 250_000,
      message: "Transfer sent",
    });
    expect(await balance(b.checking.id)).toEqual({ current: 250_000, available: 250_000 });
    // A wire: the notice step's submit asks for the code.
    const wire = await post({
      intent: "wire-code",
      from_account_id: String(a.checking.id),
      recipient_name: "Marie Curie",
      bank_name: "BNP Paribas",
      bic: "BNPAFRPP",
      account_number: "FR1420041010050500013M02606",
      country: "FR",
      currency: "EUR",
      amount: "1.00",
      reference: "Gift",
      idempotency_key: key(),
    });
    expect(wire).toMatchObject({
      tab: "wire",
      status: "otp",
      summary: expect.stringContaining("EUR 1.00 to Marie Curie at BNP Paribas (France)"),
    });
  });
});

describe("refusals with real causes", () => {
  const wire = (from: number) =>
    internationalSchema.parse({
      from_account_id: String(from),
      recipient_name: "Marie Curie",
      bank_name: "BNP Paribas",
      bic: "BNPAFRPP",
      account_number: "FR1420041010050500013M02606",
      country: "FR",
      currency: "EUR",
      amount: "10.00",
      reference: "Gift",
      idempotency_key: key(),
    });
  const ach = (from: number) =>
    toUsBankSchema.parse({
      from_account_id: String(from),
      routing_number: "021000021",
      account_number: "123456789",
      account_name: "Lee Park",
      amount: "1.00",
      reference: "r",
      idempotency_key: key(),
    });
  const toMember = (from: number, email: string) =>
    toMemberSchema.parse({
      from_account_id: String(from),
      recipient_email: email,
      amount: "1.00",
      reference: "r",
      idempotency_key: key(),
    });

  it("says what the refusal messages say", () => {
    expect(MESSAGES.blocked_title).toBe("Transaction Blocked");
    expect(MESSAGES.blocked).toBe(
      "Transactions on this account are blocked for security reasons. Please visit a branch or contact support.",
    );
    expect(MESSAGES.denied_title).toBe("Transaction Denied");
    expect(MESSAGES.denied).toBe("All transactions temporarily suspended");
    // Refusals give the profile's support hours, not a fixed text.
    expect(support()).toEqual({
      email: institution().support_email,
      phone: institution().support_phone,
      hours: institution().support_hours,
    });
  });

  it("a frozen source account refuses every kind as Transaction Blocked and moves nothing", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const b = await newMember(db);
    await setAccountStatus(db, a.checking.id, "frozen");
    const blocked = { ok: false, code: "account_frozen", message: MESSAGES.blocked };
    expect(await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "1.00"))).toMatchObject(
      blocked,
    );
    expect(await transferToMember(db, a.member, toMember(a.checking.id, b.member.email))).toMatchObject(blocked);
    expect(await reviewUsBankTransfer(db, a.member, ach(a.checking.id))).toMatchObject(blocked);
    expect(await reviewWire(db, a.member, wire(a.checking.id))).toMatchObject(blocked);
    expect(await sendWire(db, a.member, wire(a.checking.id), "123456")).toMatchObject(blocked);
    expect(await balance(a.checking.id)).toEqual({ current: 100_000, available: 100_000 });
    expect(await balance(b.checking.id)).toEqual({ current: 0, available: 0 });
  });

  it("paused outgoing payments deny To US Bank and International; transfers inside the credit union still go", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const b = await newMember(db);
    await setOutgoingPaymentsPaused(db, { paused: true, reason: "test", updated_by: "staff:test" });
    try {
      const denied = { ok: false, code: "denied", message: "All transactions temporarily suspended" };
      expect(await reviewUsBankTransfer(db, a.member, ach(a.checking.id))).toMatchObject(denied);
      expect(await reviewWire(db, a.member, wire(a.checking.id))).toMatchObject(denied);
      expect(await sendWire(db, a.member, wire(a.checking.id), "123456")).toMatchObject(denied);
      expect(await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "1.00"))).toMatchObject({
        ok: true,
      });
      expect(await transferToMember(db, a.member, toMember(a.checking.id, b.member.email))).toMatchObject({ ok: true });
    } finally {
      await setOutgoingPaymentsPaused(db, { paused: false, updated_by: "staff:test" });
    }
    expect(await balance(a.checking.id)).toEqual({ current: 99_800, available: 99_800 });
  });
});

/**
 * A retry under the same idempotency key: a form keeps its key after "Transfer failed" (the
 * answer to an unexpected error, which may come after the transfer was written). The same
 * transfer again answers with the first and moves nothing; a different one is refused.
 */
describe("a repeated idempotency key", () => {
  const reused = (transaction_id: number) => ({
    ok: false,
    kind: "conflict",
    code: "key_reused",
    message: `Your earlier transfer from this form went through (reference MU${String(transaction_id).padStart(8, "0")}) with a different amount or recipient, so this one was not sent. Check your recent transactions, then send it again if you still need to.`,
  });
  const toMember = (from: number, email: string, amount: string, k: string) =>
    toMemberSchema.parse({
      from_account_id: String(from),
      recipient_email: email,
      amount,
      reference: "Rent",
      idempotency_key: k,
    });
  const achForm = (from: number, amount: string, k: string, account_number = "123456789") =>
    toUsBankSchema.parse({
      from_account_id: String(from),
      routing_number: "021000021",
      account_number,
      account_name: "Lee Park",
      amount,
      reference: "Tuition",
      idempotency_key: k,
    });
  const wireForm = (from: number, amount: string, k: string) =>
    internationalSchema.parse({
      from_account_id: String(from),
      recipient_name: "Marie Curie",
      bank_name: "BNP Paribas",
      bic: "BNPAFRPP",
      account_number: "FR1420041010050500013M02606",
      country: "FR",
      currency: "EUR",
      amount,
      reference: "Gift",
      idempotency_key: k,
    });
  async function code(
    member: { id: string; email: string; name: string },
    request: Parameters<typeof stepUpTransfer>[0],
  ) {
    await sendStepUpCode(db, member, "x", stepUpTransfer(request));
    return lastTransferCode(db, member.email);
  }

  it("Between Accounts: the same request answers the first result; another amount or account under the key is refused", async () => {
    const a = await newMember(db, { checking_cents: 10_000 });
    const k = key();
    const first = await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "25.00", k));
    if (!first.ok) throw new Error(first.message);
    expect(await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "25.00", k))).toEqual({
      ...first,
      replayed: true,
    });
    expect(
      await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "30.00", k)),
    ).toMatchObject(reused(first.transaction_id));
    expect(
      await transferBetweenAccounts(db, a.member, internal(a.savings.id, a.checking.id, "25.00", k)),
    ).toMatchObject(reused(first.transaction_id));
    // More than is left now: still the key's answer, not "Insufficient funds".
    expect(
      await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "90.00", k)),
    ).toMatchObject(reused(first.transaction_id));
    expect(await balance(a.checking.id)).toEqual({ current: 7_500, available: 7_500 });
    expect(await unreadCount(db, a.member.id)).toBe(1);
  });

  it("To Another Member: the same request answers the first result without a lookup or a code; another amount or payee is refused", async () => {
    const a = await newMember(db, { checking_cents: 500_000 });
    const b = await newMember(db);
    const c = await newMember(db);
    const k = key();
    const first = await transferToMember(
      db,
      a.member,
      toMember(a.checking.id, b.member.email, "2000.00", k),
      await code(a.member, { kind: "member", form: toMember(a.checking.id, b.member.email, "2000.00", k) }),
    );
    if (!first.ok) throw new Error(first.message);
    // The whole lookup allowance spent: a repeat still answers (it looks nobody up), without a code.
    for (let i = 0; i < 30; i++) await verifyRecipient(db, a.member, `spent-${i}@members.example`);
    expect(
      await transferToMember(db, a.member, toMember(a.checking.id, b.member.email.toUpperCase(), "2000.00", k)),
    ).toEqual({ ...first, replayed: true });
    expect(await transferToMember(db, a.member, toMember(a.checking.id, b.member.email, "200.00", k))).toMatchObject(
      reused(first.transaction_id),
    );
    expect(await transferToMember(db, a.member, toMember(a.checking.id, c.member.email, "2000.00", k))).toMatchObject(
      reused(first.transaction_id),
    );
    expect(await transferToMember(db, a.member, toMember(a.savings.id, b.member.email, "2000.00", k))).toMatchObject(
      reused(first.transaction_id),
    );
    expect(await balance(a.checking.id)).toEqual({ current: 300_000, available: 300_000 });
    expect(await balance(c.checking.id)).toEqual({ current: 0, available: 0 });
  });

  it("To US Bank and International: the same request answers the first payment; another amount or payee is refused", async () => {
    const a = await newMember(db, { checking_cents: 500_000 });
    const k = key();
    const first = await sendUsBankTransfer(
      db,
      a.member,
      achForm(a.checking.id, "100.00", k),
      await code(a.member, { kind: "ach", form: achForm(a.checking.id, "100.00", k) }),
    );
    if (!first.ok) throw new Error(first.message);
    expect(await sendUsBankTransfer(db, a.member, achForm(a.checking.id, "100.00", k), "")).toEqual({
      ...first,
      replayed: true,
    });
    expect(
      await sendUsBankTransfer(
        db,
        a.member,
        achForm(a.checking.id, "150.00", k),
        await code(a.member, { kind: "ach", form: achForm(a.checking.id, "150.00", k) }),
      ),
    ).toMatchObject(reused(first.transaction_id));
    expect(
      await sendUsBankTransfer(
        db,
        a.member,
        achForm(a.checking.id, "100.00", k, "987654321"),
        await code(a.member, { kind: "ach", form: achForm(a.checking.id, "100.00", k, "987654321") }),
      ),
    ).toMatchObject(reused(first.transaction_id));
    const w = key();
    const wire = await sendWire(
      db,
      a.member,
      wireForm(a.checking.id, "10.00", w),
      await code(a.member, { kind: "wire", form: wireForm(a.checking.id, "10.00", w) }),
    );
    if (!wire.ok) throw new Error(wire.message);
    expect(await sendWire(db, a.member, wireForm(a.checking.id, "10.00", w), "")).toEqual({ ...wire, replayed: true });
    expect(
      await sendWire(
        db,
        a.member,
        wireForm(a.checking.id, "12.00", w),
        await code(a.member, { kind: "wire", form: wireForm(a.checking.id, "12.00", w) }),
      ),
    ).toMatchObject(reused(wire.transaction_id));
    const payments = await db.select().from(externalPayments).where(eq(externalPayments.member_id, a.member.id));
    expect(payments).toHaveLength(2);
    expect(await balance(a.checking.id)).toEqual({ current: 500_000, available: 500_000 - 10_000 - wire.amount_cents });
  });

  it("a key one kind of transfer used is refused for another kind, and no payment points at the first transfer", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const k = key();
    const first = await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "10.00", k));
    if (!first.ok) throw new Error(first.message);
    expect(
      await sendUsBankTransfer(
        db,
        a.member,
        achForm(a.checking.id, "10.00", k),
        await code(a.member, { kind: "ach", form: achForm(a.checking.id, "10.00", k) }),
      ),
    ).toMatchObject(reused(first.transaction_id));
    expect(
      await sendWire(
        db,
        a.member,
        wireForm(a.checking.id, "10.00", k),
        await code(a.member, { kind: "wire", form: wireForm(a.checking.id, "10.00", k) }),
      ),
    ).toMatchObject(reused(first.transaction_id));
    expect(await db.select().from(externalPayments).where(eq(externalPayments.member_id, a.member.id))).toHaveLength(0);
    expect(await balance(a.checking.id)).toEqual({ current: 99_000, available: 99_000 });
  });

  it("through the dashboard's action: a retry of a transfer that went through answers with it, at every step", async () => {
    const { a, b, post, fields } = await dashboardTransfer("1500.00");
    expect(await post({ ...fields, intent: "member" })).toMatchObject({ status: "otp" });
    const sent = await post({ ...fields, intent: "member-send", otp: await lastTransferCode(db, a.member.email) });
    expect(sent).toMatchObject({ status: "done", amount_cents: 150_000 });
    // The member did not see that answer and sends the form again: no new code, the same transfer.
    expect(await post({ ...fields, intent: "member" })).toEqual(sent);
    expect(await post({ ...fields, intent: "member", amount: "1400.00" })).toMatchObject({
      status: "refused",
      code: "key_reused",
    });
    expect(await balance(b.checking.id)).toEqual({ current: 150_000, available: 150_000 });

    const ach = {
      from_account_id: String(a.checking.id),
      bank: "021000021",
      account_number: "123456789",
      account_name: "Lee Park",
      amount: "100.00",
      reference: "Tuition",
      idempotency_key: key(),
    };
    expect(await post({ ...ach, intent: "ach-review" })).toMatchObject({ status: "otp" });
    const scheduled = await post({ ...ach, intent: "ach-send", otp: await lastTransferCode(db, a.member.email) });
    expect(scheduled).toMatchObject({ status: "done", amount_cents: 10_000 });
    expect(await post({ ...ach, intent: "ach-review" })).toEqual(scheduled);
  });
});

describe("notifications", () => {
  it("mark one read (own only) and all read", async () => {
    const a = await newMember(db, { checking_cents: 10_000 });
    const b = await newMember(db);
    for (let i = 0; i < 3; i++)
      await transferBetweenAccounts(db, a.member, internal(a.checking.id, a.savings.id, "1.00"));
    const list = await listNotifications(db, a.member.id);
    expect(await markRead(db, b.member.id, list[0]!.id)).toBe(false);
    expect(await markRead(db, a.member.id, list[0]!.id)).toBe(true);
    expect(await unreadCount(db, a.member.id)).toBe(2);
    expect(await markAllRead(db, a.member.id)).toBe(2);
    expect(await unreadCount(db, a.member.id)).toBe(0);
    const rows = await db.select().from(notifications).where(eq(notifications.member_id, b.member.id));
    expect(rows).toHaveLength(0);
  });
});

describe("ledger invariants after all of the above", () => {
  it("verifies", async () => {
    const report = await verifyLedger(db);
    expect(report.ok, JSON.stringify(report).slice(0, 500)).toBe(true);
  });
});

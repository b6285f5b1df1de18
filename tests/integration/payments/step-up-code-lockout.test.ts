import "../member-support";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { and, asc, eq, like } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { auditLog, externalPayments, memberProfiles, outbox } from "~/server/db/schema";
import { encryptField } from "~/server/security/crypto.server";
import { encryptionContext } from "~/server/members/members.server";
import { setAppDatabase } from "~/server/db/db.server";
import { getBalances } from "~/server/ledger/accounts.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { lockoutState } from "~/server/auth/lockout.server";
import { reviewUsBankTransfer, sendUsBankTransfer } from "~/server/payments/to-other-banks.server";
import { stepUpTransfer } from "~/server/payments/transfers.server";
import { sendStepUpCode, verifyStepUpCode } from "~/server/payments/step-up.server";
import { changeCardPin, revealCardDetails, sendCardCode } from "~/server/cards/controls.server";
import { issueDebitCard } from "~/server/cards/cards.server";
import { memberDetail } from "~/server/admin/directory.server";
import { transferAction } from "~/routes/member/dashboard.server";
import type { SessionUser } from "~/server/auth/session.server";
import { toUsBankSchema } from "~/domain/transfers";
import { openTestDatabase } from "../test-database";
import { key, lastTransferCode, newMember } from "../member-support";

/**
 * Wrong step-up codes (docs/product.md#step-up-codes), the emailed codes that confirm transfers to
 * other banks, large transfers to members, card details and a new PIN. Five tries end one code and
 * five codes can be sent per 10 minutes, but whoever holds a session could go on without end: 5
 * codes x 5 wrong tries every 10 minutes, with nothing audited and no one told. Now every code is
 * counted per member, like sign-in codes: the 10th wrong one in 15 minutes locks every action that
 * needs a code for 15 minutes, each wrong code is audited (never the code), the member is emailed
 * once per lock and the back office's member details say so.
 */
let database: Database;
let db: Db;
beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  db = database.db;
});
afterEach(async () => {
  vi.useRealTimers();
  expect((await verifyLedger(db)).problems).toEqual([]);
});
afterAll(async () => {
  await database?.close();
});

const ORIGIN = { request_id: "step-up-lock-0001", ip: "203.0.113.90" };
const LOCKED =
  "Too many wrong codes. For your security, transfers and card services that need a code are locked for 15 minutes. We have emailed you.";

/** A code that is certainly not `right`. */
function wrongCode(right: string, n: number): string {
  return ((Number(right) + 1 + n) % 1_000_000).toString().padStart(6, "0");
}

/** A member with $5,000.00 in checking, a debit card, and one To US Bank transfer form of $20.00. */
async function member() {
  const m = await newMember(db, { checking_cents: 500_000 });
  const card = await issueDebitCard(db, { member_id: m.member.id, account_id: m.checking.id });
  const form = toUsBankSchema.parse({
    from_account_id: String(m.checking.id),
    routing_number: "021000021",
    account_number: "123456789",
    account_name: "Lee Park",
    amount: "20.00",
    reference: "Rent",
    idempotency_key: key(),
  });
  /** Continue: everything checked, then the code emailed (or refused). */
  const askForCode = async () => {
    const review = await reviewUsBankTransfer(db, m.member, form);
    if (!review.ok) throw new Error(review.message);
    const sent = await sendStepUpCode(db, m.member, review.summary, stepUpTransfer({ kind: "ach", form }));
    return sent.ok ? await lastTransferCode(db, m.member.email) : sent;
  };
  return { ...m, card, form, askForCode, send: (code: string) => sendUsBankTransfer(db, m.member, form, code) };
}

/** The member's details as the back office shows them (the factory's profile, with real encrypted fields first). */
async function staffView(member_id: string) {
  await db
    .update(memberProfiles)
    .set({
      date_of_birth_enc: encryptField("1990-04-12", encryptionContext("date_of_birth", member_id)),
      id_number_enc: encryptField("X1234567", encryptionContext("id_number", member_id)),
    })
    .where(eq(memberProfiles.user_id, member_id));
  return (await memberDetail(db, { member_id }))!;
}

async function securityEvents(member_id: string) {
  return db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.member_id, member_id), like(auditLog.action, "auth.step_up_code.%")))
    .orderBy(asc(auditLog.id));
}

async function lockEmails(email: string) {
  return (await db.select().from(outbox).where(eq(outbox.to_email, email))).filter((m) =>
    m.subject.endsWith("Transfers and card services that need a code are locked"),
  );
}

async function balance(account_id: number) {
  const [a] = await getBalances(db, [account_id]);
  return { current: a!.current_cents, available: a!.available_cents };
}

describe("wrong step-up codes, counted per member across codes", () => {
  it("stops the attack: 5 codes x 5 wrong tries no longer go on; the 10th wrong code locks, audited, the member emailed once, staff told", async () => {
    const m = await member();
    const tried: string[] = [];
    const answers: string[] = [];
    let live = "";
    for (let n = 0; n < 5 && !answers.includes("otp_locked"); n++) {
      const code = await m.askForCode();
      if (typeof code !== "string") break;
      live = code;
      for (let i = 0; i < 5; i++) {
        const wrong = wrongCode(code, i);
        tried.push(wrong, code);
        const answer = await m.send(wrong);
        if (answer.ok) throw new Error("a wrong code confirmed the transfer");
        answers.push(answer.code);
        if (answer.code === "otp_locked") {
          expect(answer).toMatchObject({ message: LOCKED, field: "otp" });
          break;
        }
        expect(answer).toMatchObject({ code: "otp_invalid", message: "Invalid OTP", field: "otp" });
      }
    }
    // Nine wrong codes are "Invalid OTP"; the tenth locks.
    expect(answers).toEqual([...Array<string>(9).fill("otp_invalid"), "otp_locked"]);

    // Locked: the right code of the live code, a new code and the card services are all refused.
    expect(await m.send(live)).toMatchObject({
      ok: false,
      kind: "too_many",
      code: "otp_locked",
      message: LOCKED,
      field: "otp",
      retry_after_s: expect.any(Number),
    });
    expect(await m.askForCode()).toMatchObject({ ok: false, kind: "too_many", code: "otp_locked", message: LOCKED });
    expect(await sendCardCode(db, m.member, m.card.id, "details")).toMatchObject({
      ok: false,
      code: "otp_locked",
      message: LOCKED,
    });
    expect(await revealCardDetails(db, m.member, m.card.id, live, ORIGIN)).toMatchObject({
      ok: false,
      code: "otp_locked",
      field: "otp",
    });
    expect(await balance(m.checking.id)).toEqual({ current: 500_000, available: 500_000 });
    expect(await db.select().from(externalPayments).where(eq(externalPayments.member_id, m.member.id))).toHaveLength(0);
    // Sign-in itself is not locked: the lock is the money actions'.
    expect((await lockoutState(db, m.member.email)).locked).toBe(false);

    // Each wrong code is a security event, without the code; the lock one more; tries during the lock too.
    const events = await securityEvents(m.member.id);
    const wrong = events.filter((e) => e.action === "auth.step_up_code.wrong");
    expect(wrong.map((e) => e.after)).toEqual(
      Array.from({ length: 10 }, (_, i) => ({ action: "transfer_to_us_bank", recent_codes: i + 1, locked: i === 9 })),
    );
    expect(events.filter((e) => e.action === "auth.step_up_code.locked").map((e) => e.after)).toEqual([
      { wrong_codes: 10, locked_minutes: 15 },
    ]);
    expect(events.filter((e) => e.action === "auth.step_up_code.refused").map((e) => e.after)).toEqual([
      { action: "transfer_to_us_bank", reason: "locked" },
      { action: "card_details", reason: "locked" },
    ]);
    expect(
      events.find(
        (e) => e.action === "auth.step_up_code.refused" && (e.after as { action: string }).action === "card_details",
      ),
    ).toMatchObject({ ip: ORIGIN.ip, request_id: ORIGIN.request_id });
    const written = JSON.stringify(events);
    for (const code of tried) expect(written).not.toContain(code);

    // The member is emailed once, however often they try during the lock.
    await m.send(live);
    const mail = await lockEmails(m.member.email);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text_body).toContain("10 wrong codes were typed in your online banking in the last 15 minutes");
    for (const code of tried) expect(mail[0]!.text_body).not.toContain(code);

    // Staff see it on the member's details in the back office.
    expect((await staffView(m.member.id)).money_codes_locked_until!.getTime()).toBeGreaterThan(
      Date.now() + 14 * 60 * 1000,
    );
    expect((await staffView((await newMember(db)).member.id)).money_codes_locked_until).toBeNull();
  });

  it("ends the lock after 15 minutes: a new code is sent and the right one sends the transfer", async () => {
    const m = await member();
    const code = await m.askForCode();
    if (typeof code !== "string") throw new Error("no code");
    for (let i = 0; i < 5; i++) await m.send(wrongCode(code, i));
    const second = await m.askForCode();
    if (typeof second !== "string") throw new Error("no code");
    for (let i = 0; i < 5; i++) await m.send(wrongCode(second, i));
    expect(await m.send(second)).toMatchObject({ code: "otp_locked" });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 14 * 60 * 1000);
    expect(await m.send(second)).toMatchObject({
      code: "otp_locked",
      message: LOCKED.replace("15 minutes", "1 minute"),
    });
    vi.setSystemTime(Date.now() + 60 * 1000 + 1000);
    expect((await staffView(m.member.id)).money_codes_locked_until).toBeNull();
    const fresh = await m.askForCode();
    if (typeof fresh !== "string") throw new Error("no code after the lock ended");
    expect(await m.send(fresh)).toMatchObject({ ok: true, amount_cents: 2_000 });
  });

  it("counts transfers' and card services' codes together", async () => {
    const m = await member();
    const pin = { pin: "4826", pin_confirm: "4826" };
    expect(await sendCardCode(db, m.member, m.card.id, "pin")).toMatchObject({ ok: true });
    const card_code = await lastTransferCode(db, m.member.email);
    for (let i = 0; i < 5; i++)
      expect(
        await changeCardPin(db, m.member, m.card.id, { otp: wrongCode(card_code, i), ...pin }, ORIGIN),
      ).toMatchObject({ code: "otp_invalid" });
    const code = await m.askForCode();
    if (typeof code !== "string") throw new Error("no code");
    for (let i = 0; i < 4; i++) expect(await m.send(wrongCode(code, i))).toMatchObject({ code: "otp_invalid" });
    expect(await m.send(wrongCode(code, 4))).toMatchObject({ code: "otp_locked" });
    expect(
      (await securityEvents(m.member.id))
        .filter((e) => e.action === "auth.step_up_code.wrong")
        .map((e) => (e.after as { action: string }).action),
    ).toEqual([...Array<string>(5).fill("card_pin"), ...Array<string>(5).fill("transfer_to_us_bank")]);
  });

  it("does not lock a member who mistypes a few codes but then types the right one each time", async () => {
    const m = await member();
    for (let round = 0; round < 4; round++) {
      const code = await m.askForCode();
      if (typeof code !== "string") throw new Error(`round ${round}: ${JSON.stringify(code)}`);
      for (let i = 0; i < 4; i++) expect(await m.send(wrongCode(code, i))).toMatchObject({ code: "otp_invalid" });
      expect(
        await verifyStepUpCode(db, m.member, {
          code,
          transfer: stepUpTransfer({ kind: "ach", form: m.form }),
          action: "transfer_to_us_bank",
        }),
      ).toEqual({ ok: true });
    }
    expect(await lockEmails(m.member.email)).toHaveLength(0);
  });

  it("counts simultaneous guesses too: one lock, one email, however many arrive at once", async () => {
    const m = await member();
    const code = await m.askForCode();
    if (typeof code !== "string") throw new Error("no code");
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => m.send(wrongCode(code, i))));
    expect(answers.every((a) => !a.ok)).toBe(true);
    expect(answers.filter((a) => !a.ok && a.code === "otp_locked").length).toBeGreaterThanOrEqual(10);
    expect(await m.send(code)).toMatchObject({ code: "otp_locked" });
    expect(await lockEmails(m.member.email)).toHaveLength(1);
    expect((await securityEvents(m.member.id)).filter((e) => e.action === "auth.step_up_code.locked")).toHaveLength(1);
  });

  it("the dashboard keeps the member on the code step with the lock's message next to the code; Continue says it instead of sending a code", async () => {
    const m = await member();
    const user = { ...m.member, role: "user" } as unknown as SessionUser;
    const post = (fields: Record<string, string>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.set(name, value);
      return transferAction(user, form);
    };
    const fields = {
      from_account_id: String(m.checking.id),
      routing_number: "021000021",
      account_number: "123456789",
      account_type: "checking",
      account_name: "Lee Park",
      amount: "20.00",
      reference: "Rent",
      idempotency_key: m.form.idempotency_key,
    };
    for (let n = 0; n < 2; n++) {
      expect(await post({ intent: "ach-review", ...fields })).toMatchObject({ status: "otp" });
      const code = await lastTransferCode(db, m.member.email);
      for (let i = 0; i < 5; i++) await post({ intent: "ach-send", ...fields, otp: wrongCode(code, i) });
    }
    const at_code = await post({ intent: "ach-send", ...fields, otp: "123456" });
    expect(at_code).toMatchObject({ status: "refused", code: "otp_locked", step: "otp", message: LOCKED });
    expect(at_code.status === "refused" && at_code.reply.error?.otp).toEqual([LOCKED]);
    const at_continue = await post({ intent: "ach-review", ...fields });
    expect(at_continue).toMatchObject({ status: "refused", code: "otp_locked", message: LOCKED });
  });
});

import "../identity-support";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { count, desc, eq } from "drizzle-orm";
import sharp from "sharp";
import type { Database, Db } from "~/server/db/client.server";
import {
  auditLog,
  ledgerAccounts,
  ledgerTransactions,
  mobileDeposits,
  notifications,
  outbox,
} from "~/server/db/schema";
import { getBalances, institutionAccount, setAccountStatus } from "~/server/ledger/accounts.server";
import { historyPage } from "~/server/ledger/history.server";
import { memberHistoryPage, parseHistoryFilters } from "~/server/accounts/history.server";
import { memberAccounts } from "~/server/ledger/accounts.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import {
  approveMobileDeposit,
  rejectMobileDeposit,
  REVIEW_MESSAGES,
  submitMobileDeposit,
} from "~/server/deposits/deposits.server";
import {
  depositImage,
  memberDeposits,
  pendingDepositCount,
  pendingDeposits,
} from "~/server/deposits/deposit-lists.server";
import { releaseAvailableDeposits } from "~/server/deposits/availability.server";
import { MOBILE_DEPOSIT_IMAGE_MAX_BYTES } from "~/domain/mobile-deposit";
import { addBusinessDays } from "~/domain/payment-dates";
import { bankingDayOfDeposit } from "~/domain/funds-availability";
import { today } from "~/server/ledger/ledger.server";
import { paperDeliveryMembers, seedConsent } from "~/server/electronic-delivery/electronic-delivery.server";
import { reverseMemberTransaction } from "~/server/member-accounts/reversals.server";
import { memberTransactionsPage } from "~/server/member-accounts/transactions.server";
import { openTestDatabase } from "../test-database";
import { newMember as freshMember } from "../member-support";
import { staff as newStaff } from "../../factories";
import {
  asFile,
  brokenJpeg,
  checkJpeg,
  checkPng,
  htmlBytes,
  oversizedJpeg,
  pdfBytes,
  pngBomb,
  svgBytes,
} from "../../check-images";

/**
 * Mobile Deposit (docs/product.md#mobile-deposit) on the ledger: a deposit is a pending credit the
 * member cannot spend; approving posts it and holds what the availability policy does not yet
 * release, until its dates; rejecting fails it with the reason. Bad photos and bad amounts are
 * refused with nothing written. The ledger verifies after every test.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "deposit-test", ip: "198.51.100.40" };
/** A business date as the deposit page writes it: "Nov 30, 2026". */
const pageDate = (date: string) =>
  new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" }).format(
    new Date(`${date}T12:00:00Z`),
  );
const folder = () => path.join(process.env.DATA_DIR!, "uploads", "mobile-deposits");

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  staff = await newStaff(db);
});
afterAll(async () => {
  await database?.close();
});
afterEach(async () => {
  const report = await verifyLedger(db);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
});

/**
 * A member whose accounts were opened 90 days ago: not a new account (Regulation CC 229.13(a)), so
 * their checks follow the schedule. `freshMember` opens them today (a new account).
 */
async function newMember(...args: Parameters<typeof freshMember>) {
  const m = await freshMember(...args);
  await db
    .update(ledgerAccounts)
    .set({ opened_at: new Date(Date.now() - 90 * 24 * 60 * 60 * 1000) })
    .where(eq(ledgerAccounts.member_id, m.member.id));
  return m;
}

async function balance(account_id: number) {
  const [a] = await getBalances(db, [account_id]);
  return { current: a!.current_cents, available: a!.available_cents };
}

let seed = 10;
async function photos() {
  seed += 2;
  return {
    front: asFile(await checkJpeg(seed), "front.jpg"),
    back: asFile(await checkPng(seed + 1), "back.png", "image/png"),
  };
}

async function deposit(
  member: Awaited<ReturnType<typeof newMember>>,
  amount_cents: number,
  files?: { front: File | null; back: File | null },
  account_id = member.checking.id,
) {
  return submitMobileDeposit(
    db,
    member.member,
    { account_id, amount_cents, idempotency_key: crypto.randomUUID(), ...(files ?? (await photos())) },
    origin,
  );
}

async function written() {
  const [deposits] = await db.select({ n: count() }).from(mobileDeposits);
  const [transactions] = await db.select({ n: count() }).from(ledgerTransactions);
  const [audits] = await db.select({ n: count() }).from(auditLog);
  const files = fs.existsSync(folder()) ? fs.readdirSync(folder()).length : 0;
  return { deposits: Number(deposits!.n), transactions: Number(transactions!.n), audits: Number(audits!.n), files };
}

async function row(id: number) {
  const [d] = await db.select().from(mobileDeposits).where(eq(mobileDeposits.id, id));
  return d!;
}

async function transactionStatus(id: number | null) {
  const [t] = await db
    .select({ status: ledgerTransactions.status })
    .from(ledgerTransactions)
    .where(eq(ledgerTransactions.id, Number(id)));
  return t?.status;
}

async function lastNotification(member_id: string) {
  const [n] = await db
    .select()
    .from(notifications)
    .where(eq(notifications.member_id, member_id))
    .orderBy(desc(notifications.id))
    .limit(1);
  return n!;
}

describe("submit", () => {
  it("makes a pending credit that is not available: balances unchanged, history Pending, queue and count, notification and audit", async () => {
    const m = await newMember(db, { checking_cents: 10_000 });
    const in_transit = await institutionAccount(db, "deposits_in_transit");
    const transit_before = await balance(in_transit.id);
    const result = await deposit(m, 50_000);
    expect(result).toMatchObject({ ok: true, amount_cents: 50_000, replayed: false });
    if (!result.ok) return;
    expect(await balance(m.checking.id)).toEqual({ current: 10_000, available: 10_000 });
    const d = await row(result.deposit_id);
    expect(d).toMatchObject({
      status: "pending_review",
      member_id: m.member.id,
      account_id: m.checking.id,
      amount_cents: 50_000,
      duplicate_of_id: null,
      reviewed_at: null,
    });
    expect(await transactionStatus(d.pending_transaction_id)).toBe("pending");
    // The counterpart holds the debit: deposits in transit, not current balance.
    expect((await balance(in_transit.id)).current).toBe(transit_before.current);
    const history = await historyPage(db, m.checking.id, { limit: 5 });
    expect(history.rows[0]).toMatchObject({ amount_cents: 50_000, status: "pending", kind: "mobile_deposit" });
    expect((await pendingDeposits(db)).map((q) => q.id)).toContain(result.deposit_id);
    expect(await pendingDepositCount(db)).toBeGreaterThanOrEqual(1);
    expect((await memberDeposits(db, m.member.id))[0]).toMatchObject({
      id: result.deposit_id,
      status: "pending_review",
    });
    expect((await lastNotification(m.member.id)).title).toBe("Mobile deposit of $500.00 received");
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "mobile_deposit.submit"))
      .orderBy(desc(auditLog.id))
      .limit(1);
    expect(audit).toMatchObject({
      actor_id: m.member.id,
      member_id: m.member.id,
      subject_id: String(result.deposit_id),
    });
  });

  it("stores the photos re-encoded as JPEG and encrypted: the file on disk is not an image, staff read back a JPEG", async () => {
    const m = await newMember(db);
    const result = await deposit(m, 1_234);
    if (!result.ok) throw new Error(result.message);
    const d = await row(result.deposit_id);
    const stored = fs.readFileSync(path.join(folder(), d.front_image_file));
    expect(stored.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(false);
    expect(stored.toString("utf8")).toMatch(/^v1\./);
    expect(fs.statSync(path.join(folder(), d.front_image_file)).mode & 0o777).toBe(0o600);
    for (const side of ["front", "back"] as const) {
      const image = await depositImage(db, result.deposit_id, side, staff, origin);
      expect((await sharp(image!).metadata()).format).toBe("jpeg");
    }
    // The PNG side became a JPEG too (its transparency on white).
    expect(d.front_image_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("the queue's thumbnails are small encrypted JPEGs made at upload and not audited; each full-size view is", async () => {
    const m = await newMember(db);
    const result = await deposit(m, 4_321);
    if (!result.ok) throw new Error(result.message);
    const d = await row(result.deposit_id);
    const thumbnail = path.join(folder(), d.front_image_file.replace(/\.jpg\.enc$/, ".thumb.jpg.enc"));
    expect(fs.readFileSync(thumbnail).toString("utf8")).toMatch(/^v1\./);
    const views = async () =>
      (await db.select({ n: count() }).from(auditLog).where(eq(auditLog.action, "mobile_deposit.image_view")))[0]!.n;
    const before = Number(await views());
    for (const side of ["front", "back"] as const) {
      const small = await depositImage(db, result.deposit_id, side, staff, origin, "thumbnail");
      const meta = await sharp(small!).metadata();
      expect(meta.format).toBe("jpeg");
      expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(384);
    }
    expect(Number(await views())).toBe(before);
    const full = await depositImage(db, result.deposit_id, "front", staff, origin);
    expect((await sharp(full!).metadata()).width).toBe(1200);
    expect(Number(await views())).toBe(before + 1);

    // A deposit sent before thumbnails: its thumbnail is made from the photo on the first view, once.
    fs.rmSync(thumbnail);
    expect(
      Math.max(
        ...(await sharp((await depositImage(db, result.deposit_id, "front", staff, origin, "thumbnail"))!)
          .metadata()
          .then((x) => [x.width!, x.height!])),
      ),
    ).toBeLessThanOrEqual(384);
    expect(fs.existsSync(thumbnail)).toBe(true);
  });

  it("the same form sent twice makes one deposit", async () => {
    const m = await newMember(db);
    const files = await photos();
    const idempotency_key = crypto.randomUUID();
    const first = await submitMobileDeposit(
      db,
      m.member,
      { account_id: m.checking.id, amount_cents: 2_000, idempotency_key, ...files },
      origin,
    );
    const before = await written();
    const again = await submitMobileDeposit(
      db,
      m.member,
      { account_id: m.checking.id, amount_cents: 2_000, idempotency_key, ...files },
      origin,
    );
    expect(again).toMatchObject({ ok: true, replayed: true, deposit_id: first.ok ? first.deposit_id : -1 });
    expect(await written()).toEqual(before);
  });

  it("the same check (same amount, account and photo) sent again is accepted and flagged for staff", async () => {
    const m = await newMember(db);
    const front = await checkJpeg(901);
    const back = await checkJpeg(902);
    const first = await deposit(m, 7_500, { front: asFile(front, "a.jpg"), back: asFile(back, "b.jpg") });
    const second = await deposit(m, 7_500, { front: asFile(front, "again.jpg"), back: asFile(back, "again-back.jpg") });
    const other_amount = await deposit(m, 7_501, { front: asFile(front, "c.jpg"), back: asFile(back, "d.jpg") });
    if (!first.ok || !second.ok || !other_amount.ok) throw new Error("not deposited");
    expect((await row(first.deposit_id)).duplicate_of_id).toBeNull();
    expect((await row(second.deposit_id)).duplicate_of_id).toBe(first.deposit_id);
    expect((await row(other_amount.deposit_id)).duplicate_of_id).toBeNull();
    const queue = await pendingDeposits(db);
    expect(queue.find((q) => q.id === second.deposit_id)?.duplicate_of_id).toBe(first.deposit_id);
  });
});

describe("bad input: refused with its message, nothing written", () => {
  const cases: Array<{
    name: string;
    files: () => Promise<{ front: File | null; back: File | null }>;
    field: string;
    message: RegExp;
  }> = [
    {
      name: "a PDF renamed .jpg",
      files: async () => ({ front: asFile(pdfBytes(), "check.jpg"), back: asFile(await checkJpeg(3), "b.jpg") }),
      field: "front_image",
      message: /front of the check must be a JPEG or PNG/,
    },
    {
      name: "an HTML page renamed .jpg",
      files: async () => ({ front: asFile(await checkJpeg(4), "f.jpg"), back: asFile(htmlBytes(), "back.jpg") }),
      field: "back_image",
      message: /back of the check must be a JPEG or PNG/,
    },
    {
      name: "an SVG renamed .jpg",
      files: async () => ({ front: asFile(svgBytes(), "check.jpg"), back: asFile(await checkJpeg(3), "b.jpg") }),
      field: "front_image",
      message: /front of the check must be a JPEG or PNG/,
    },
    {
      name: "a 20000×20000 image (decompression bomb)",
      files: async () => ({
        front: asFile(pngBomb(), "huge.png", "image/png"),
        back: asFile(await checkJpeg(5), "b.jpg"),
      }),
      field: "front_image",
      message: /could not be read/,
    },
    {
      name: "a JPEG start with nothing readable behind it",
      files: async () => ({ front: asFile(brokenJpeg(), "f.jpg"), back: asFile(await checkJpeg(6), "b.jpg") }),
      field: "front_image",
      message: /could not be read/,
    },
    {
      name: "10 MB + 1 byte",
      files: async () => ({
        front: asFile(await checkJpeg(7), "f.jpg"),
        back: asFile(oversizedJpeg(MOBILE_DEPOSIT_IMAGE_MAX_BYTES + 1), "b.jpg"),
      }),
      field: "back_image",
      message: /larger than 10 MB/,
    },
    {
      name: "no photo of the back",
      files: async () => ({ front: asFile(await checkJpeg(8), "f.jpg"), back: null }),
      field: "back_image",
      message: /Please add a photo of the back/,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const m = await newMember(db, { checking_cents: 1_000 });
      const before = await written();
      const result = await deposit(m, 10_000, await c.files());
      expect(result).toMatchObject({ ok: false, kind: "bad_input", field: c.field });
      if (!result.ok) expect(result.message).toMatch(c.message);
      expect(await written()).toEqual(before);
      expect(await balance(m.checking.id)).toEqual({ current: 1_000, available: 1_000 });
    });
  }

  it("exactly 10 MB passes the size rule (then must still decode)", async () => {
    const m = await newMember(db);
    const result = await deposit(m, 100, {
      front: asFile(oversizedJpeg(MOBILE_DEPOSIT_IMAGE_MAX_BYTES), "f.jpg"),
      back: asFile(await checkJpeg(9), "b.jpg"),
    });
    expect(result).toMatchObject({ ok: false, field: "front_image" });
    if (!result.ok) expect(result.message).toMatch(/could not be read/);
  });

  it("$10,000.01 and $0 are refused; $10,000.00 is accepted", async () => {
    const m = await newMember(db);
    const before = await written();
    for (const amount_cents of [1_000_001, 0, -5])
      expect(await deposit(m, amount_cents)).toMatchObject({ ok: false, kind: "bad_input", field: "amount" });
    expect(await written()).toEqual(before);
    expect(await deposit(m, 1_000_000)).toMatchObject({ ok: true });
  });

  it("another member's account is 'not one of yours', a frozen account is refused; nothing written", async () => {
    const m = await newMember(db);
    const other = await newMember(db);
    const before = await written();
    expect(await deposit(m, 1_000, undefined, other.checking.id)).toMatchObject({
      ok: false,
      kind: "not_found",
      field: "account_id",
      message: "Please choose one of your accounts",
    });
    expect(await written()).toEqual(before);
    await setAccountStatus(db, m.checking.id, "frozen");
    const frozen = await deposit(m, 1_000);
    expect(frozen).toMatchObject({ ok: false, kind: "conflict", field: "account_id" });
    expect(await written()).toEqual(before);
    await setAccountStatus(db, m.checking.id, "active");
  });
});

describe("review", () => {
  it("approve posts the credit and holds it by Regulation CC ($275 the next business day, the rest two business days after the day of deposit); the job releases each on its date", async () => {
    const m = await newMember(db, { checking_cents: 5_000 });
    const result = await deposit(m, 100_000);
    if (!result.ok) throw new Error(result.message);
    const approved = await approveMobileDeposit(db, result.deposit_id, staff, origin);
    expect(approved).toMatchObject({ ok: true });
    const d = await row(result.deposit_id);
    expect(d).toMatchObject({
      status: "approved",
      reviewed_by: staff.id,
      next_day_amount_cents: 27_500,
      later_amount_cents: 72_500,
      exception_amount_cents: 0,
      hold_exception: null,
      hold_notice_at: null,
      funds_available_at: null,
    });
    expect(await transactionStatus(d.pending_transaction_id)).toBe("posted");
    expect(await transactionStatus(d.next_day_hold_transaction_id)).toBe("pending");
    expect(await balance(m.checking.id)).toEqual({ current: 105_000, available: 5_000 });
    expect(d.next_day_available_on! < d.later_available_on!).toBe(true);
    expect((await lastNotification(m.member.id)).title).toBe("Mobile deposit of $1,000.00 approved");
    // The deposit page's words for when the money is available ("$275.00 available on Nov 30, 2026").
    expect((await lastNotification(m.member.id)).body).toBe(
      `Your check was approved and posted. $275.00 available on ${pageDate(d.next_day_available_on!)}; $725.00 available on ${pageDate(d.later_available_on!)}.`,
    );
    // Each hold's line in the history says the same.
    const [memo] = await db
      .select({ memo: ledgerTransactions.memo })
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.id, d.next_day_hold_transaction_id!));
    expect(memo!.memo).toBe(`Deposit hold: available ${pageDate(d.next_day_available_on!)}`);
    expect((await memberDeposits(db, m.member.id))[0]!.availability).toEqual([
      { amount_cents: 27_500, available_on: d.next_day_available_on },
      { amount_cents: 72_500, available_on: d.later_available_on },
    ]);
    // Before its date nothing is released.
    await releaseAvailableDeposits(db, new Date());
    expect(await balance(m.checking.id)).toEqual({ current: 105_000, available: 5_000 });
    await releaseAvailableDeposits(db, new Date(`${d.next_day_available_on}T17:00:00Z`));
    expect(await balance(m.checking.id)).toEqual({ current: 105_000, available: 32_500 });
    await releaseAvailableDeposits(db, new Date(`${d.later_available_on}T17:00:00Z`));
    expect(await balance(m.checking.id)).toEqual({ current: 105_000, available: 105_000 });
    expect((await row(result.deposit_id)).funds_available_at).not.toBeNull();
    expect((await lastNotification(m.member.id)).title).toBe("Mobile deposit of $1,000.00 is available");
    // Running again changes nothing.
    const again = await releaseAvailableDeposits(db, new Date(`${d.later_available_on}T17:00:00Z`));
    expect(again.released).toBe(0);
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "mobile_deposit.approve"))
      .orderBy(desc(auditLog.id))
      .limit(1);
    expect(audit).toMatchObject({ actor_id: staff.id, member_id: m.member.id });
  });

  it("staff cannot release a deposit waiting for review from the member's transactions (the queue decides it); an availability hold they may release early", async () => {
    const m = await newMember(db, { checking_cents: 0 });
    const result = await deposit(m, 50_000);
    if (!result.ok) throw new Error(result.message);
    const before = await row(result.deposit_id);
    const request = { staff, origin, member_id: m.member.id };
    expect(
      (await memberTransactionsPage(db, m.member.id)).rows.find((r) => r.id === before.pending_transaction_id),
    ).toMatchObject({ pending_owner: "mobile_deposit" });
    expect(
      await reverseMemberTransaction(db, { ...request, transaction_id: before.pending_transaction_id }),
    ).toMatchObject({
      ok: false,
      code: "resolved_elsewhere",
      message:
        "Error reversing transaction: this is a mobile deposit waiting for review: approve or reject it in the deposit queue.",
    });
    expect(await transactionStatus(before.pending_transaction_id)).toBe("pending");
    expect(await approveMobileDeposit(db, result.deposit_id, staff, origin)).toMatchObject({ ok: true });
    // The availability holds are staff's to release early; the job then only finishes the deposit.
    const approved = await row(result.deposit_id);
    const hold = approved.next_day_hold_transaction_id!;
    expect((await memberTransactionsPage(db, m.member.id)).rows.find((r) => r.id === hold)).toMatchObject({
      status: "pending",
      pending_owner: null,
    });
    expect(await reverseMemberTransaction(db, { ...request, transaction_id: hold })).toMatchObject({
      status: "released",
    });
    expect(await balance(m.checking.id)).toEqual({ current: 50_000, available: 27_500 });
    await releaseAvailableDeposits(db, new Date(`${approved.later_available_on}T17:00:00Z`));
    expect(await balance(m.checking.id)).toEqual({ current: 50_000, available: 50_000 });
    expect((await row(result.deposit_id)).funds_available_at).not.toBeNull();
  });

  it("a deposit under $275 is held whole until the next business day", async () => {
    const m = await newMember(db, { checking_cents: 0 });
    const result = await deposit(m, 10_000);
    if (!result.ok) throw new Error(result.message);
    await approveMobileDeposit(db, result.deposit_id, staff, origin);
    expect(await row(result.deposit_id)).toMatchObject({
      next_day_amount_cents: 10_000,
      later_amount_cents: 0,
      later_hold_transaction_id: null,
    });
    expect(await balance(m.checking.id)).toEqual({ current: 10_000, available: 0 });
  });

  it("reject needs a reason; it fails the pending credit and tells the member why; a second decision is refused", async () => {
    const m = await newMember(db, { checking_cents: 2_000 });
    const result = await deposit(m, 30_000);
    if (!result.ok) throw new Error(result.message);
    expect(await rejectMobileDeposit(db, result.deposit_id, "   ", staff, origin)).toMatchObject({
      ok: false,
      kind: "bad_input",
      message: REVIEW_MESSAGES.reason_missing,
    });
    expect(await rejectMobileDeposit(db, result.deposit_id, "x".repeat(301), staff, origin)).toMatchObject({
      ok: false,
      kind: "bad_input",
    });
    const rejected = await rejectMobileDeposit(
      db,
      result.deposit_id,
      "The check is not signed on the back.",
      staff,
      origin,
    );
    expect(rejected).toMatchObject({ ok: true });
    const d = await row(result.deposit_id);
    expect(d).toMatchObject({ status: "rejected", reject_reason: "The check is not signed on the back." });
    expect(await transactionStatus(d.pending_transaction_id)).toBe("failed");
    expect(await balance(m.checking.id)).toEqual({ current: 2_000, available: 2_000 });
    const note = await lastNotification(m.member.id);
    expect(note.title).toBe("Mobile deposit of $300.00 rejected");
    expect(note.body).toContain("The check is not signed on the back.");
    expect((await memberDeposits(db, m.member.id))[0]).toMatchObject({
      status: "rejected",
      reject_reason: "The check is not signed on the back.",
    });
    expect(await approveMobileDeposit(db, result.deposit_id, staff, origin)).toMatchObject({
      ok: false,
      kind: "conflict",
      message: REVIEW_MESSAGES.already_reviewed,
    });
    expect(await rejectMobileDeposit(db, result.deposit_id, "again", staff, origin)).toMatchObject({
      ok: false,
      kind: "conflict",
    });
    expect(await approveMobileDeposit(db, 99_999_999, staff, origin)).toMatchObject({ ok: false, kind: "not_found" });
  });

  it("the member reads staff's reason as a sentence of its own, whether or not staff ended it with a full stop", async () => {
    const m = await newMember(db, { checking_cents: 0 });
    const told = async (reason: string) => {
      const result = await deposit(m, 1_000);
      if (!result.ok) throw new Error(result.message);
      expect(await rejectMobileDeposit(db, result.deposit_id, reason, staff, origin)).toMatchObject({ ok: true });
      return (await lastNotification(m.member.id)).body;
    };
    const rest = "Nothing was added to your account. Please contact us if you have questions.";
    expect(await told("The check is not signed on the back")).toBe(
      `Your check was not deposited: The check is not signed on the back. ${rest}`,
    );
    expect(await told("  Unreadable   photo ")).toBe(`Your check was not deposited: Unreadable photo. ${rest}`);
    expect(await told("Wrong payee!")).toBe(`Your check was not deposited: Wrong payee! ${rest}`);
    expect(await told('Marked "void."')).toBe(`Your check was not deposited: Marked "void." ${rest}`);
    // The page shows the reason as staff gave it, after "Reason:".
    expect((await memberDeposits(db, m.member.id))[0]!.reject_reason).toBe('Marked "void."');
  });

  it("the member's history says where each deposit stands: Pending review, Completed with its holds On hold then Released, Rejected", async () => {
    const m = await newMember(db, { checking_cents: 0 });
    const waiting = await deposit(m, 1_100);
    const approved = await deposit(m, 50_000);
    const rejected = await deposit(m, 2_200);
    if (!waiting.ok || !approved.ok || !rejected.ok) throw new Error("not deposited");
    await approveMobileDeposit(db, approved.deposit_id, staff, origin);
    await rejectMobileDeposit(db, rejected.deposit_id, "Unreadable", staff, origin);
    const accounts = await memberAccounts(db, m.member.id);
    const labels = async () => {
      const { rows } = await memberHistoryPage(db, accounts, parseHistoryFilters(new URLSearchParams(), accounts));
      return rows.map((r) => `${r.amount_cents} ${r.status_label} ${r.badge}`).sort();
    };
    expect(await labels()).toEqual(
      [
        "-22500 On hold pending",
        "-27500 On hold pending",
        "1100 Pending review pending",
        "2200 Rejected failed",
        "50000 Completed posted",
      ].sort(),
    );
    const d = await row(approved.deposit_id);
    await releaseAvailableDeposits(db, new Date(`${d.later_available_on}T17:00:00Z`));
    expect(await labels()).toEqual(
      [
        "-22500 Released reversed",
        "-27500 Released reversed",
        "1100 Pending review pending",
        "2200 Rejected failed",
        "50000 Completed posted",
      ].sort(),
    );
  });

  it("two staff approving at once approve once", async () => {
    const m = await newMember(db, { checking_cents: 0 });
    const result = await deposit(m, 40_000);
    if (!result.ok) throw new Error(result.message);
    const answers = await Promise.all([
      approveMobileDeposit(db, result.deposit_id, staff, origin),
      approveMobileDeposit(db, result.deposit_id, staff, origin),
    ]);
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(await balance(m.checking.id)).toEqual({ current: 40_000, available: 0 });
  });
});

describe("Regulation CC exceptions and the hold notice (12 CFR 229.13)", () => {
  const notices = async (member_id: string) =>
    db
      .select()
      .from(outbox)
      .where(eq(outbox.user_id, member_id))
      .then((rows) => rows.filter((r) => r.kind === "deposit_hold_notice"));

  it("a $9,000 check (large deposit, 229.13(b)): $6,725 on the schedule, $2,275 held to the 7th business day, with the notice in the app and by email", async () => {
    const m = await newMember(db, { checking_cents: 0 });
    await seedConsent(db, m.member.id, new Date());
    const result = await deposit(m, 900_000);
    if (!result.ok) throw new Error(result.message);
    const approved = await approveMobileDeposit(db, result.deposit_id, staff, origin);
    const on = bankingDayOfDeposit(today());
    const held_until = addBusinessDays(on, 7);
    expect(approved).toMatchObject({
      ok: true,
      message: `Deposit of $9,000.00 approved and posted. $2,275.00 is held until ${pageDate(held_until)} (large deposit, 12 CFR 229.13(b)); the member was sent the hold notice.`,
    });
    const d = await row(result.deposit_id);
    expect(d).toMatchObject({
      deposited_on: on,
      next_day_amount_cents: 27_500,
      later_amount_cents: 645_000,
      later_available_on: addBusinessDays(on, 2),
      exception_amount_cents: 227_500,
      exception_available_on: held_until,
      hold_exception: "large_deposit",
      hold_reason: null,
      hold_notice_channel: "email",
    });
    expect(d.hold_notice_at).not.toBeNull();
    expect(await balance(m.checking.id)).toEqual({ current: 900_000, available: 0 });
    // The notice: in the bell, on the deposit page and by email, with what 229.13(g)(1) asks.
    const bell = await lastNotification(m.member.id);
    expect(bell.title).toBe("Notice of hold on your deposit of $9,000.00");
    expect(bell.body).toContain(`Date of deposit: ${pageDate(on)}`);
    expect(bell.body).toContain("We are delaying the availability of $2,275.00 from this deposit.");
    expect(bell.body).toContain(`These funds will be available on ${pageDate(held_until)}.`);
    expect(bell.body).toContain(
      "The checks you deposited on this day exceed $6,725.00. (Regulation CC, 12 CFR 229.13(b).)",
    );
    const [email] = await notices(m.member.id);
    expect(email).toMatchObject({ subject: "Notice of hold on your deposit of $9,000.00", to_email: m.member.email });
    expect(email!.text_body).toContain(bell.body);
    expect((await memberDeposits(db, m.member.id))[0]!.hold_notice).toEqual({
      exception: "large_deposit",
      rule: "12 CFR 229.13(b)",
      reason: "The checks you deposited on this day exceed $6,725.00.",
      deposited_on: on,
      amount_cents: 227_500,
      available_on: held_until,
    });
    // The job releases each part on its day, the excepted part last.
    await releaseAvailableDeposits(db, new Date(`${addBusinessDays(on, 2)}T17:00:00Z`));
    expect(await balance(m.checking.id)).toEqual({ current: 900_000, available: 672_500 });
    await releaseAvailableDeposits(db, new Date(`${held_until}T17:00:00Z`));
    expect(await balance(m.checking.id)).toEqual({ current: 900_000, available: 900_000 });
    expect((await row(result.deposit_id)).funds_available_at).not.toBeNull();
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "mobile_deposit.approve"))
      .orderBy(desc(auditLog.id))
      .limit(1);
    expect(audit!.after).toMatchObject({
      exception: { kind: "large_deposit", rule: "12 CFR 229.13(b)", amount_cents: 227_500, notice: "email" },
    });
  });

  it("the day's checks aggregate across the member's accounts: $5,000 then $4,000 holds $2,275 of the second, and no second $275", async () => {
    const m = await newMember(db, { checking_cents: 0, savings_cents: 0 });
    const first = await deposit(m, 500_000);
    const second = await deposit(m, 400_000, undefined, m.savings.id);
    if (!first.ok || !second.ok) throw new Error("not deposited");
    await approveMobileDeposit(db, first.deposit_id, staff, origin);
    await approveMobileDeposit(db, second.deposit_id, staff, origin);
    expect(await row(first.deposit_id)).toMatchObject({ next_day_amount_cents: 27_500, exception_amount_cents: 0 });
    expect(await row(second.deposit_id)).toMatchObject({
      next_day_amount_cents: 0,
      later_amount_cents: 172_500,
      exception_amount_cents: 227_500,
      hold_exception: "large_deposit",
    });
  });

  it("a new account (229.13(a)): the whole check is held the policy's 7 business days; a member on paper is put on the mail list for the notice", async () => {
    const m = await freshMember(db, { checking_cents: 0 });
    const result = await deposit(m, 50_000);
    if (!result.ok) throw new Error(result.message);
    await approveMobileDeposit(db, result.deposit_id, staff, origin);
    expect(await row(result.deposit_id)).toMatchObject({
      next_day_amount_cents: 0,
      later_amount_cents: 0,
      exception_amount_cents: 50_000,
      exception_available_on: addBusinessDays(bankingDayOfDeposit(today()), 7),
      hold_exception: "new_account",
      hold_notice_channel: "mail",
    });
    expect((await lastNotification(m.member.id)).body).toContain(
      "Your account is new: it was opened in the last 30 days. (Regulation CC, 12 CFR 229.13(a).)",
    );
    // The email goes too (a courtesy copy); the written notice is the mailed one, on the paper list.
    expect(await notices(m.member.id)).toHaveLength(1);
    expect((await paperDeliveryMembers(db)).find((p) => p.member_id === m.member.id)).toMatchObject({
      notices_to_mail: 1,
    });
  });

  it("staff's reasonable-cause hold (229.13(e)) holds the whole check, $275 included, and tells the member the reason; a redeposited check (229.13(c)) too", async () => {
    const m = await newMember(db, { checking_cents: 0 });
    const doubted = await deposit(m, 30_000);
    const redeposited = await deposit(m, 20_000);
    if (!doubted.ok || !redeposited.ok) throw new Error("not deposited");
    const reason = "The paying bank told us this check is being returned unpaid.";
    expect(
      await approveMobileDeposit(db, doubted.deposit_id, staff, origin, { exception: "reasonable_cause", reason }),
    ).toMatchObject({ ok: true });
    expect(await row(doubted.deposit_id)).toMatchObject({
      next_day_amount_cents: 0,
      exception_amount_cents: 30_000,
      exception_available_on: addBusinessDays(bankingDayOfDeposit(today()), 7),
      hold_exception: "reasonable_cause",
      hold_reason: reason,
    });
    expect((await lastNotification(m.member.id)).body).toContain(
      `We believe a check you deposited will not be paid, for this reason: ${reason} (Regulation CC, 12 CFR 229.13(e).)`,
    );
    await approveMobileDeposit(db, redeposited.deposit_id, staff, origin, { exception: "redeposited", reason: "" });
    expect(await row(redeposited.deposit_id)).toMatchObject({
      exception_amount_cents: 20_000,
      hold_exception: "redeposited",
      hold_reason: null,
    });
    expect(await balance(m.checking.id)).toEqual({ current: 50_000, available: 0 });
  });

  it("a check staff approve after its days have come is available at once, and no hold or notice is made", async () => {
    const m = await newMember(db, { checking_cents: 0 });
    const result = await deposit(m, 40_000);
    if (!result.ok) throw new Error(result.message);
    // Sent three weeks ago (a deposit left in the queue): its schedule has run out.
    await db
      .update(mobileDeposits)
      .set({ created_at: new Date(Date.now() - 21 * 24 * 60 * 60 * 1000) })
      .where(eq(mobileDeposits.id, result.deposit_id));
    await approveMobileDeposit(db, result.deposit_id, staff, origin);
    expect(await row(result.deposit_id)).toMatchObject({
      next_day_amount_cents: 0,
      later_amount_cents: 0,
      exception_amount_cents: 0,
      hold_exception: null,
    });
    expect((await row(result.deposit_id)).funds_available_at).not.toBeNull();
    expect(await balance(m.checking.id)).toEqual({ current: 40_000, available: 40_000 });
  });
});

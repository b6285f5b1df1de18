import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { auditLog, externalPayments, ledgerTransactions, notifications, paymentExportFiles } from "~/server/db/schema";
import { getBalances, institutionAccount, setAccountStatus } from "~/server/ledger/accounts.server";
import { setCurrencyRate } from "~/server/payments/rates.server";
import { exportFile, exportPayments, traceSequence } from "~/server/rails/export.server";
import { cancelPayment, CANCEL_MESSAGES } from "~/server/rails/cancel.server";
import { loadQueues, memberPayments } from "~/server/rails/queues.server";
import { withAccountNumber } from "~/server/payments/payment-destination.server";
import { institution } from "~/config/institution.server";
import { openTestDatabase } from "../test-database";
import { expectLedgerVerifies } from "../ledger-fixtures";
import { newMember } from "../member-support";
import { queueAch, queueWire } from "../rails-support";
import { staff as newStaff } from "../../factories";
import { readNachaFile } from "../../unit/nacha-reader";
import { validatePain001, xpathCount, xpathValue } from "../../unit/xsd";

/**
 * Sending payments to other banks (docs/product.md#payment-queues): export settles the holds
 * against the settlement account, to the file's totals, all or nothing; a second export finds
 * nothing; cancel releases; two staff exporting at once export each payment once. Every file is
 * read back by the tests' own NACHA reader or validated against the pain.001 schema, and the
 * ledger verifies after each test.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "test", ip: "198.51.100.7" };

beforeAll(async () => {
  database = await openTestDatabase({ pool_max: 6 });
  db = database.db;
  await setCurrencyRate(db, { code: "EUR", usd_per_unit: "1.08375", updated_by: "test" });
  await setCurrencyRate(db, { code: "JPY", usd_per_unit: "0.0067", updated_by: "test" });
  staff = await newStaff(db);
});
afterAll(async () => {
  await database?.close();
});

async function balance(account_id: number) {
  const [a] = await getBalances(db, [account_id]);
  return { current: a!.current_cents, available: a!.available_cents };
}

async function posted(type: "ach_settlement" | "wire_settlement" | "fees_income"): Promise<number> {
  return (await balance((await institutionAccount(db, type)).id)).current;
}

/** Past the 30-minute cancellation window of a wire queued now: the export takes it (docs/product.md#remittance-transfers). */
function afterCancelWindow(): Date {
  return new Date(Date.now() + 31 * 60_000);
}

async function pendingOf(kind: "ach" | "wire"): Promise<number> {
  const rows = await db
    .select({ id: externalPayments.id })
    .from(externalPayments)
    .where(and(eq(externalPayments.kind, kind), eq(externalPayments.status, "pending")));
  return rows.length;
}

async function holdStatus(payment_id: number): Promise<string> {
  const [p] = await db.select().from(externalPayments).where(eq(externalPayments.id, payment_id));
  const [t] = await db
    .select({ status: ledgerTransactions.status })
    .from(ledgerTransactions)
    .where(eq(ledgerTransactions.id, Number(p!.hold_transaction_id)));
  return `${p!.status}/${t!.status}`;
}

describe("ACH export", () => {
  it("writes one NACHA file of every pending ACH transfer, settles each hold against the ACH settlement account, marks them sent, notifies and audits", async () => {
    const a = await newMember(db, { checking_cents: 500_000 });
    const b = await newMember(db, { checking_cents: 500_000, first_name: "Zoë" });
    const one = await queueAch(db, a.member, a.checking.id, {
      amount: "100.00",
      account_name: "Lee Park",
      reference: "Tuition <fall>",
    });
    const two = await queueAch(db, a.member, a.checking.id, {
      amount: "0.01",
      routing_number: "121000248",
      account_number: "98765432101234567",
      account_name: "Café & Co",
    });
    const three = await queueAch(db, b.member, b.checking.id, {
      amount: "2500.50",
      routing_number: "026009593",
      account_type: "savings",
      account_name: "Ana O'Neil",
    });
    expect(await balance(a.checking.id)).toEqual({ current: 500_000, available: 489_999 });
    const settlement_before = await posted("ach_settlement");

    const result = await exportPayments(db, "ach", staff, origin);
    expect(result.ok).toBe(true);
    if (!result.ok) throw new Error(result.message);
    expect(result.file).toMatchObject({ kind: "ach", payment_count: 3, total_cents: 10_000 + 1 + 250_050 });

    // The stored file, read by the independent reader, field by field.
    const stored = await exportFile(db, result.file.id);
    const read = readNachaFile(stored!.content);
    expect(read.header.immediate_origin).toBe(institution().routing_number);
    // Addressed to the ACH operator the profile names, from the company it names.
    expect(read.header).toMatchObject({ immediate_destination: "011000015", destination_name: "FEDERAL RESERVE BANK" });
    // The origin's name is the profile's short name, whole: the full name was cut mid-word ("HARBORVIEW COMMUNITY CR").
    expect(read.header.origin_name).toBe("HARBORVIEW CU");
    expect(read.batches).toHaveLength(1);
    const batch = read.batches[0]!;
    expect(batch).toMatchObject({
      company_name: "HARBORVIEW CU",
      company_id: "1990000001",
      entry_description: "TRANSFER",
    });
    expect(batch.effective_date).toBe(result.file.effective_date.slice(2).replaceAll("-", ""));
    expect(batch.sec_code).toBe("PPD");
    expect(batch.odfi).toBe(institution().routing_number.slice(0, 8));
    const byId = new Map(batch.entries.map((e) => [e.individual_id, e]));
    expect(byId.get(one.reference_number)).toMatchObject({
      rdfi: "02100002",
      check_digit: "1",
      account_number: "123456789",
      amount_cents: 10_000,
      individual_name: "LEE PARK",
      transaction_code: "22",
    });
    expect(byId.get(one.reference_number)!.addenda[0]!.text).toBe("TUITION <FALL>");
    expect(byId.get(one.reference_number)!.trace_number).toBe(
      `${batch.odfi}${String(traceSequence(one.payment_id)).padStart(7, "0")}`,
    );
    expect(byId.get(two.reference_number)).toMatchObject({
      rdfi: "12100024",
      account_number: "98765432101234567",
      amount_cents: 1,
      individual_name: "CAFE & CO",
    });
    // A savings account at the other bank: transaction code 32 (checking 22).
    expect(byId.get(three.reference_number)).toMatchObject({
      rdfi: "02600959",
      amount_cents: 250_050,
      individual_name: "ANA O'NEIL",
      transaction_code: "32",
    });
    expect(read.control.credit_cents).toBe(result.file.total_cents);

    // The settlement account received exactly the file's total; the members' money left.
    expect((await posted("ach_settlement")) - settlement_before).toBe(read.control.credit_cents);
    expect(await balance(a.checking.id)).toEqual({ current: 489_999, available: 489_999 });
    expect(await balance(b.checking.id)).toEqual({ current: 249_950, available: 249_950 });
    for (const p of [one, two, three]) expect(await holdStatus(p.payment_id)).toBe("sent/posted");

    // The member sees Sent with the file's effective date, and was told.
    const mine = await memberPayments(db, a.member.id);
    expect(mine.map((p) => [p.status, p.sent_effective_date])).toEqual([
      ["sent", result.file.effective_date],
      ["sent", result.file.effective_date],
    ]);
    const told = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, b.member.id), eq(notifications.kind, "payment_sent")));
    expect(told).toHaveLength(1);
    expect(told[0]!.body).toContain(result.file.effective_date);
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "payment_export.ach"), eq(auditLog.subject_id, String(result.file.id))));
    expect(audit).toMatchObject({ actor_id: staff.id });
    await expectLedgerVerifies(db);
  });

  it("a second export finds nothing pending and writes no file", async () => {
    expect(await pendingOf("ach")).toBe(0);
    const files_before = (await db.select({ id: paymentExportFiles.id }).from(paymentExportFiles)).length;
    expect(await exportPayments(db, "ach", staff, origin)).toEqual({
      ok: false,
      kind: "conflict",
      code: "nothing_pending",
      message: "There are no pending ACH transfers to export.",
    });
    expect((await db.select({ id: paymentExportFiles.id }).from(paymentExportFiles)).length).toBe(files_before);
    await expectLedgerVerifies(db);
  });

  it("files of one day get modifiers A, B...; a frozen account's transfer waits in the queue", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const frozen = await newMember(db, { checking_cents: 100_000 });
    await queueAch(db, a.member, a.checking.id, { amount: "10.00" });
    const waiting = await queueAch(db, frozen.member, frozen.checking.id, { amount: "20.00" });
    await setAccountStatus(db, frozen.checking.id, "frozen");
    const result = await exportPayments(db, "ach", staff, origin);
    if (!result.ok) throw new Error(result.message);
    expect(result.file.payment_count).toBe(1);
    const read = readNachaFile((await exportFile(db, result.file.id))!.content);
    expect(read.header.file_id_modifier).toBe("B");
    expect(await holdStatus(waiting.payment_id)).toBe("pending/pending");
    expect((await loadQueues(db)).ach.map((p) => [p.id, p.account_active])).toEqual([[waiting.payment_id, false]]);
    // Staff cancel it: the hold is released even on a frozen account.
    expect(await cancelPayment(db, waiting.payment_id, { kind: "staff", ...staff }, origin)).toEqual({
      ok: true,
      payment_id: waiting.payment_id,
      released_cents: 2_000,
    });
    expect(await balance(frozen.checking.id)).toEqual({ current: 100_000, available: 100_000 });
    await expectLedgerVerifies(db);
  });

  it("two staff exporting at the same moment: each transfer goes out in exactly one file", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const queued = [];
    for (let i = 1; i <= 4; i++) queued.push(await queueAch(db, a.member, a.checking.id, { amount: `${i}.00` }));
    const other = await newStaff(db);
    const settlement_before = await posted("ach_settlement");
    const [x, y] = await Promise.all([
      exportPayments(db, "ach", staff, origin),
      exportPayments(db, "ach", other, origin),
    ]);
    const done = [x, y].filter((r) => r.ok);
    expect(done).toHaveLength(1);
    expect([x, y].find((r) => !r.ok)).toMatchObject({ code: "nothing_pending" });
    const ids = queued.map((q) => q.payment_id);
    const rows = await db.select().from(externalPayments).where(inArray(externalPayments.id, ids));
    expect(new Set(rows.map((r) => r.export_file_id)).size).toBe(1);
    expect(rows.every((r) => r.status === "sent")).toBe(true);
    expect((await posted("ach_settlement")) - settlement_before).toBe(1_000);
    await expectLedgerVerifies(db);
  });

  it("a file holds at most the oldest max_payments; the rest stay pending for the next file", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const queued = [];
    for (let i = 1; i <= 3; i++) queued.push(await queueAch(db, a.member, a.checking.id, { amount: `${i}.00` }));
    const first = await exportPayments(db, "ach", staff, origin, { max_payments: 2 });
    expect(first).toMatchObject({ ok: true, file: { payment_count: 2, total_cents: 300 } });
    expect(await holdStatus(queued[0]!.payment_id)).toBe("sent/posted");
    expect(await holdStatus(queued[1]!.payment_id)).toBe("sent/posted");
    expect(await holdStatus(queued[2]!.payment_id)).toBe("pending/pending");
    expect(await exportPayments(db, "ach", staff, origin, { max_payments: 2 })).toMatchObject({
      ok: true,
      file: { payment_count: 1, total_cents: 300 },
    });
    await expectLedgerVerifies(db);
  });

  it("export and member cancel at the same moment: the transfer is either sent or cancelled, never both", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const q = await queueAch(db, a.member, a.checking.id, { amount: "5.00" });
    const [exported, cancelled] = await Promise.all([
      exportPayments(db, "ach", staff, origin),
      cancelPayment(db, q.payment_id, { kind: "member", id: a.member.id, email: a.member.email }, origin),
    ]);
    const status = await holdStatus(q.payment_id);
    if (cancelled.ok) {
      expect(status).toBe("cancelled/failed");
      expect(exported).toMatchObject({ ok: false, code: "nothing_pending" });
      expect(await balance(a.checking.id)).toEqual({ current: 100_000, available: 100_000 });
    } else {
      expect(cancelled).toMatchObject({ code: "already_sent", message: CANCEL_MESSAGES.already_sent });
      expect(status).toBe("sent/posted");
      expect(await balance(a.checking.id)).toEqual({ current: 99_500, available: 99_500 });
    }
    await expectLedgerVerifies(db);
  });
});

describe("cancel", () => {
  it("staff cancel a pending ACH: the hold is released, the member told, the cancel audited; it is not exported", async () => {
    const a = await newMember(db, { checking_cents: 50_000 });
    const q = await queueAch(db, a.member, a.checking.id, { amount: "75.00" });
    expect(await balance(a.checking.id)).toEqual({ current: 50_000, available: 42_500 });
    expect(await cancelPayment(db, q.payment_id, { kind: "staff", ...staff }, origin)).toEqual({
      ok: true,
      payment_id: q.payment_id,
      released_cents: 7_500,
    });
    expect(await balance(a.checking.id)).toEqual({ current: 50_000, available: 50_000 });
    expect(await holdStatus(q.payment_id)).toBe("cancelled/failed");
    expect((await memberPayments(db, a.member.id))[0]).toMatchObject({
      status: "cancelled",
      sent_effective_date: null,
    });
    const [told] = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, a.member.id), eq(notifications.kind, "payment_cancelled")));
    expect(told!.body).toContain("Our staff cancelled it");
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "payment.cancel"), eq(auditLog.subject_id, String(q.payment_id))));
    expect(audit).toMatchObject({ actor_id: staff.id, member_id: a.member.id });
    expect(await cancelPayment(db, q.payment_id, { kind: "staff", ...staff }, origin)).toMatchObject({
      ok: false,
      code: "already_cancelled",
    });
    expect(await exportPayments(db, "ach", staff, origin)).toMatchObject({ ok: false, code: "nothing_pending" });
    await expectLedgerVerifies(db);
  });

  it("a member cancels their own pending transfer; another member's is 'not found' and nothing changes; a sent one cannot be cancelled", async () => {
    const a = await newMember(db, { checking_cents: 50_000 });
    const b = await newMember(db, { checking_cents: 50_000 });
    const mine = await queueAch(db, a.member, a.checking.id, { amount: "10.00" });
    const theirs = await queueAch(db, b.member, b.checking.id, { amount: "20.00" });
    expect(
      await cancelPayment(db, theirs.payment_id, { kind: "member", id: a.member.id, email: a.member.email }, origin),
    ).toEqual({ ok: false, kind: "not_found", code: "not_found", message: CANCEL_MESSAGES.not_found });
    expect(await holdStatus(theirs.payment_id)).toBe("pending/pending");
    expect(
      await cancelPayment(db, 999_999_999, { kind: "member", id: a.member.id, email: a.member.email }, origin),
    ).toMatchObject({ code: "not_found" });
    expect(
      await cancelPayment(db, mine.payment_id, { kind: "member", id: a.member.id, email: a.member.email }, origin),
    ).toMatchObject({ ok: true, released_cents: 1_000 });
    expect(await balance(a.checking.id)).toEqual({ current: 50_000, available: 50_000 });
    const result = await exportPayments(db, "ach", staff, origin);
    expect(result).toMatchObject({ ok: true, file: { payment_count: 1, total_cents: 2_000 } });
    expect(
      await cancelPayment(db, theirs.payment_id, { kind: "member", id: b.member.id, email: b.member.email }, origin),
    ).toMatchObject({ ok: false, code: "already_sent" });
    expect(await balance(b.checking.id)).toEqual({ current: 48_000, available: 48_000 });
    await expectLedgerVerifies(db);
  });
});

describe("wire export", () => {
  it("writes one pain.001.001.09 message that validates against the schema; holds settle (USD to wire settlement, fee to fees income)", async () => {
    const a = await newMember(db, { checking_cents: 1_000_000 });
    const eur = await queueWire(db, a.member, a.checking.id, {
      amount: "1000.00",
      recipient_name: "Zoë <Ltd> & Söhne",
      reference: "Rent & <more>",
    });
    const jpy = await queueWire(db, a.member, a.checking.id, {
      amount: "50000",
      currency: "JPY",
      iban: "",
      account_number: "12345678",
      bic: "MHCBJPJT",
      country: "JP",
      recipient_name: "田中 太郎",
    });
    const payments = await db
      .select()
      .from(externalPayments)
      .where(inArray(externalPayments.id, [eur.payment_id, jpy.payment_id]));
    const usd_total = payments.reduce((s, p) => s + Number(p.amount_cents), 0);
    const fees_total = payments.reduce((s, p) => s + Number(p.fee_cents), 0);
    expect(fees_total).toBe(2 * institution().limits.wire_fee_cents);
    const wire_before = await posted("wire_settlement");
    const fees_before = await posted("fees_income");

    const result = await exportPayments(db, "wire", staff, origin, { now: afterCancelWindow() });
    if (!result.ok) throw new Error(result.message);
    expect(result.file).toMatchObject({ kind: "wire", payment_count: 2, total_cents: usd_total });
    const xml = (await exportFile(db, result.file.id))!.content;
    expect(validatePain001(xml)).toMatchObject({ valid: true });
    expect(xpathValue(xml, "GrpHdr/NbOfTxs")).toBe("2");
    expect(xpathValue(xml, "GrpHdr/CtrlSum")).toBe("51000"); // 1000.00 EUR + 50000 JPY
    expect(xpathValue(xml, "Dbtr/Id/OrgId/Othr/Id")).toBe(institution().routing_number);
    expect(xpathValue(xml, "DbtrAcct/Id/Othr/Id")).toBe(
      (await institutionAccount(db, "wire_settlement")).account_number,
    );
    expect(xpathValue(xml, "CdtTrfTxInf/PmtId/EndToEndId", 1)).toBe(eur.reference_number);
    expect(xpathValue(xml, "CdtTrfTxInf/Cdtr/Nm", 1)).toBe("Zoë <Ltd> & Söhne");
    expect(xpathValue(xml, "CdtTrfTxInf/RmtInf/Ustrd", 1)).toBe("Rent & <more>");
    expect(xpathValue(xml, "CdtTrfTxInf/CdtrAcct/Id/IBAN", 1)).toBe("DE89370400440532013000");
    expect(xpathValue(xml, "CdtTrfTxInf/PmtId/EndToEndId", 2)).toBe(jpy.reference_number);
    expect(xpathValue(xml, "CdtTrfTxInf/Amt/InstdAmt/@Ccy", 2)).toBe("JPY");
    expect(xpathValue(xml, "CdtTrfTxInf/CdtrAcct/Id/Othr/Id")).toBe("12345678");
    expect(xpathCount(xml, "CdtTrfTxInf/CdtrAgt/FinInstnId/BICFI")).toBe(2);

    expect((await posted("wire_settlement")) - wire_before).toBe(usd_total);
    expect((await posted("fees_income")) - fees_before).toBe(fees_total);
    expect(await balance(a.checking.id)).toEqual({
      current: 1_000_000 - usd_total - fees_total,
      available: 1_000_000 - usd_total - fees_total,
    });
    expect(await exportPayments(db, "wire", staff, origin, { now: afterCancelWindow() })).toEqual({
      ok: false,
      kind: "conflict",
      code: "nothing_pending",
      message: "There are no pending wires to export.",
    });
    await expectLedgerVerifies(db);
  });

  it("cancelling a pending wire gives back the USD amount plus the fee", async () => {
    const a = await newMember(db, { checking_cents: 500_000 });
    const w = await queueWire(db, a.member, a.checking.id, { amount: "100.00" });
    expect(await balance(a.checking.id)).toEqual({ current: 500_000, available: 500_000 - w.held_cents });
    const result = await cancelPayment(db, w.payment_id, { kind: "staff", ...staff }, origin);
    expect(result).toEqual({ ok: true, payment_id: w.payment_id, released_cents: w.held_cents });
    expect(w.held_cents).toBe(10_838 + institution().limits.wire_fee_cents); // 100 EUR at 1.08375, half up
    expect(await balance(a.checking.id)).toEqual({ current: 500_000, available: 500_000 });
    await expectLedgerVerifies(db);
  });
});

describe("one bad payment never blocks the rest (docs/product.md#payment-queues)", () => {
  async function auditOf(payment_id: number) {
    return db
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.subject_type, "external_payment"),
          eq(auditLog.subject_id, String(payment_id)),
          eq(auditLog.action, "payment_export.left_out"),
        ),
      );
  }

  it("an ACH payment whose payee name the file cannot carry is left out, marked for staff with the reason, and the rest are exported", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const good = await queueAch(db, a.member, a.checking.id, { amount: "1.00" });
    const bad = await queueAch(db, a.member, a.checking.id, { amount: "2.00" });
    const also_good = await queueAch(db, a.member, a.checking.id, {
      amount: "3.00",
      account_name: "Søren Łukasz Weiß-Æbelø",
    });
    // As a payment accepted before the form checked the name: 山田太郎 has nothing a NACHA file can carry.
    // The old export refused the whole file for everyone ("credit 2: the receiver's name is empty").
    await db.execute(
      sql`update external_payments set details = jsonb_set(details, '{account_name}', '"山田太郎"') where id = ${bad.payment_id}`,
    );

    const result = await exportPayments(db, "ach", staff, origin);
    if (!result.ok) throw new Error(result.message);
    expect(result.file.payment_count).toBe(2);
    expect(result.file.total_cents).toBe(400);
    const problem =
      "It cannot be written into the NACHA file: the receiver's name has no letter or digit a NACHA file can carry. Cancel it to give the member their money back.";
    expect(result.skipped).toEqual([{ payment_id: bad.payment_id, problem }]);
    const read = readNachaFile((await exportFile(db, result.file.id))!.content);
    const entries = read.batches.flatMap((b) => b.entries);
    expect(entries.map((e) => [e.individual_id, e.individual_name]).sort()).toEqual(
      [
        [good.reference_number, "LEE PARK"],
        [also_good.reference_number, "SOREN LUKASZ WEISS-AEB"],
      ].sort(),
    );
    expect(read.control.credit_cents).toBe(400);

    // The bad one waits: pending, its money held, the reason on the queue and in the audit log.
    expect(await holdStatus(good.payment_id)).toBe("sent/posted");
    expect(await holdStatus(bad.payment_id)).toBe("pending/pending");
    const queued = (await loadQueues(db)).ach.find((p) => p.id === bad.payment_id);
    expect(queued).toMatchObject({ payee: "山田太郎", export_problem: problem });
    const audit = await auditOf(bad.payment_id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: staff.id, after: { status: "pending", export_problem: problem } });

    // Not tried again: the next export finds nothing to send and says why.
    expect(await exportPayments(db, "ach", staff, origin)).toEqual({
      ok: false,
      kind: "conflict",
      code: "nothing_pending",
      message:
        "There are no pending ACH transfers to export: the one waiting cannot be written into the file (see its reason in the queue).",
    });
    expect(await auditOf(bad.payment_id)).toHaveLength(1);
    // Staff cancel it as any pending payment: the member's money comes back.
    expect(await cancelPayment(db, bad.payment_id, { kind: "staff", ...staff }, origin)).toMatchObject({
      ok: true,
      released_cents: 200,
    });
    expect(await holdStatus(bad.payment_id)).toBe("cancelled/failed"); // a released hold
    expect(await exportPayments(db, "ach", staff, origin)).toMatchObject({
      ok: false,
      code: "nothing_pending",
      message: "There are no pending ACH transfers to export.",
    });
    await expectLedgerVerifies(db);
  });

  it("a wire whose recipient name XML cannot hold is left out; the message of the others validates against the schema", async () => {
    const a = await newMember(db, { checking_cents: 1_000_000 });
    const good = await queueWire(db, a.member, a.checking.id, { amount: "10.00" });
    const bad = await queueWire(db, a.member, a.checking.id, { amount: "20.00" });
    await db.execute(
      sql`update external_payments set details = jsonb_set(details, '{recipient_name}', ${JSON.stringify("\uFFFF\uFFFE")}::jsonb) where id = ${bad.payment_id}`,
    );
    const result = await exportPayments(db, "wire", staff, origin, { now: afterCancelWindow() });
    if (!result.ok) throw new Error(result.message);
    expect(result.file.payment_count).toBe(1);
    expect(result.skipped).toEqual([
      {
        payment_id: bad.payment_id,
        problem:
          "It cannot be written into the pain.001 message: the creditor's name has no character an XML message can carry. Cancel it to give the member their money back.",
      },
    ]);
    const xml = (await exportFile(db, result.file.id))!.content;
    expect(validatePain001(xml)).toMatchObject({ valid: true });
    expect(xpathCount(xml, "CdtTrfTxInf")).toBe(1);
    expect(xpathValue(xml, "CdtTrfTxInf/PmtId/EndToEndId")).toBe(good.reference_number);
    expect(await holdStatus(bad.payment_id)).toBe("pending/pending");
    await cancelPayment(db, bad.payment_id, { kind: "staff", ...staff }, origin);
    await expectLedgerVerifies(db);
  });

  it("when every payment waiting is unwritable, no file is made but each is marked", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const bad = await queueAch(db, a.member, a.checking.id, { amount: "2.00" });
    // An account number the file cannot carry, sealed as the row keeps it (payment-destination.server.ts).
    const [queued] = await db.select().from(externalPayments).where(eq(externalPayments.id, bad.payment_id));
    await db
      .update(externalPayments)
      .set({ details: withAccountNumber(queued!.member_id, queued!.details, "12/34") })
      .where(eq(externalPayments.id, bad.payment_id));
    const files_before = (await db.select({ id: paymentExportFiles.id }).from(paymentExportFiles)).length;
    const result = await exportPayments(db, "ach", staff, origin);
    expect(result).toMatchObject({
      ok: false,
      code: "refused",
      message:
        "No file was made: the payment waiting cannot be written into the file; it is marked in the queue with the reason.",
    });
    expect((await db.select({ id: paymentExportFiles.id }).from(paymentExportFiles)).length).toBe(files_before);
    const [row] = await db.select().from(externalPayments).where(eq(externalPayments.id, bad.payment_id));
    expect(row!.export_problem).toBe(
      "It cannot be written into the NACHA file: account number must be 1 to 17 letters, digits or dashes. Cancel it to give the member their money back.",
    );
    expect(await holdStatus(bad.payment_id)).toBe("pending/pending");
    await cancelPayment(db, bad.payment_id, { kind: "staff", ...staff }, origin);
    await expectLedgerVerifies(db);
  });
});
